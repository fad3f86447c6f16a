// The indexer host: a pool of indexer processes (sized to the cores). It takes ready runs from the
// stage queue (queue.ts), hands each to a free process with what the stage's `prepare` read from the
// store, and gives the outcome back to the queue, which records it (the one writer). Light runs (a
// small file's text and metadata) go several to a process at once and their outcomes are recorded
// together: one at a time, a folder of small files kept this thread busy and the processes waiting.
// A process that dies or hangs is replaced; its runs are retried, then failed. A process left
// without work for `idleEndMs` ends, and its memory (the models it loaded) goes back; the next work
// starts one again.
import fs from 'node:fs';
import path from 'node:path';
import { EventEmitter } from 'node:events';
import type { Store } from '../store/index.ts';
import type { AssetRow } from '../store/assets.repo.ts';
import { SAMPLED_DIR } from '../media/types.ts';
import type { RunRequest, WorkerChannel, WorkerLauncher, WorkerMessage } from './protocol.ts';
import { STAGES, isPhaseOne } from './registry.ts';
import { stageValues } from './plan.ts';
import { StageQueue, type RunFinishedEvent } from './queue.ts';
import { STAGE_FAMILIES, placeRun } from './memory.ts';
import { installedModel, outcomeWithoutRun, type AnyStageManifest, type IndexStageName, type RunProgress, type StageOutcome } from './stage.ts';

export type { RunFinishedEvent } from './queue.ts';

/** A stage run whose process died this many times is failed instead of retried. */
export const MAX_ATTEMPTS = 2;
/**
 * Runs asked of the queue beyond the free processes: a run recorded without a process (no model
 * installed, nothing to look at) is followed by the next from the same look at the queue.
 */
const SETTLED_AHEAD = 8;
/** How long a process may go without a run before it ends, unless the options say. */
const IDLE_END_MS = 60_000;
/**
 * A light run: phase 1 (text and metadata) of a document of at most this size read as text (not a
 * PDF, whose size says little of its pages; nor a picture, whose pixels may be many in a small
 * file), and the metadata of a document of at most LIGHT_METADATA_BYTES (its properties: a PDF's
 * information dictionary, an office file's core.xml), never tried before (a run retried after its
 * process died goes alone, so that one file cannot take others down with it).
 */
export const LIGHT_BYTES = 64 * 1024;
/**
 * PDFium reads a PDF whole to give its properties: a larger document's metadata run goes to a
 * process alone, so that a process holding many light runs never holds many large files at once.
 */
export const LIGHT_METADATA_BYTES = 8 * 2 ** 20;

/** Whether every run a process holds is light (so does an empty one). */
function holdsOnlyLight(slot: { jobs: Map<number, { light: boolean }> }): boolean {
  for (const job of slot.jobs.values()) if (!job.light) return false;
  return true;
}

/** Whether a run is light (above). */
export function isLight(run: { stage: IndexStageName; attempts: number }, asset: Pick<AssetRow, 'kind' | 'ext' | 'size_bytes'>): boolean {
  if (run.attempts > 0 || asset.kind !== 'document') return false;
  if (run.stage === 'metadata') return asset.size_bytes <= LIGHT_METADATA_BYTES;
  return isPhaseOne(run.stage) && asset.ext !== '.pdf' && asset.size_bytes <= LIGHT_BYTES;
}
/**
 * Light runs a process may hold at once (it runs them as they come, and answers each). A look at
 * the queue hands out at most the phase 1 of its eight oldest assets (16 runs of small files); a
 * process holding half its room or less is looked for again. The host's thread is what a folder of
 * small files waits on (its processes idle half the time): each look, message and transaction
 * serves more files the more a process may hold. Measured through `index` on 2,000 notes of 60
 * words, 32 against 8, three times 5 interleaved runs a side: searchable in 2.51 s against 2.64,
 * 3.26 against 3.65 and 2.68 against 2.99 (every pair of the last two faster); the mixed folder of
 * bench:recoll unchanged (1.33 s against 1.32).
 */
export const LIGHT_IN_FLIGHT = 32;

interface InFlight {
  jobId: number;
  assetId: string;
  stage: IndexStageName;
  light: boolean;
  /** Set when the run is sent. */
  timer?: NodeJS.Timeout;
  timedOut: boolean;
  /** How far it has got, as its process last said. */
  progress?: RunProgress;
  /** When its progress last moved forward (ms since the epoch). */
  movedAt?: number;
}

/** How far a run still going has got (`IndexerHost`'s 'run-progress'). */
export interface RunProgressEvent extends RunProgress {
  assetId: string;
  stage: IndexStageName;
}

interface Slot {
  channel: WorkerChannel;
  ready: boolean;
  /** The runs the process holds: one, or up to LIGHT_IN_FLIGHT light ones. */
  jobs: Map<number, InFlight>;
  /** Ends the process once it has had no run for `idleEndMs`. */
  idle: NodeJS.Timeout | null;
  /** The model families of the runs it was given (memory.ts): it keeps them loaded. */
  families: Set<string>;
  /** Its resident memory as it last said, in MiB (null before its first answer). */
  rssMiB: number | null;
}

export interface HostOptions {
  workers: number;
  launch: WorkerLauncher;
  /** A run that goes this long without getting further is stopped (`failed: timeout`). */
  stageTimeoutMs: number;
  /** A process without a run for this long ends (default IDLE_END_MS). */
  idleEndMs?: number;
  /** The indexer processes' memory within which a second process may load a model another holds (MiB; default: no limit). */
  memoryMiB?: number;
  log?: (msg: string) => void;
}

export class IndexerHost extends EventEmitter<{ 'run-finished': [RunFinishedEvent]; 'run-progress': [RunProgressEvent] }> {
  private readonly slots = new Set<Slot>();
  /** After a process exits, no new one starts before this time (a crash loop backs off). */
  private startAfter = 0;
  private nextJobId = 1;
  private stopping = false;
  private scheduling = false;
  /** Stages each new process loads ahead (prestart). */
  private warm: IndexStageName[] = [];
  private rescheduled = false;
  private crashes = 0;
  /** Outcomes of light runs heard and not yet recorded: recorded together, once this turn's messages are read. */
  private heard: Array<{ job: InFlight; outcome: StageOutcome }> = [];

  constructor(
    private readonly store: Store,
    private readonly opts: HostOptions,
    readonly queue: StageQueue = new StageQueue(store),
  ) {
    super();
    queue.on('work', () => this.kick());
    queue.on('run-finished', (e) => {
      // The frames a video's shots pass kept for its picture stages, once none is left to look at them.
      if (e.picturesDone) void fs.promises.rm(path.join(store.files.assetDir(e.assetId), SAMPLED_DIR), { recursive: true, force: true }).catch(() => {});
      this.emit('run-finished', e);
    });
  }

  get workerCount(): number {
    return this.slots.size;
  }

  /**
   * The runs going now that are not light (each a process's only one), with how far each has got
   * where its stage tells (a document's pages, a video's seconds).
   */
  running(): Array<{ assetId: string; stage: IndexStageName; progress: RunProgress | null }> {
    return [...this.slots].flatMap((s) =>
      [...s.jobs.values()].filter((j) => !j.light).map((j) => ({ assetId: j.assetId, stage: j.stage, progress: j.progress ?? null })),
    );
  }

  /** The process ids of the indexer processes running now. */
  get workerPids(): number[] {
    return [...this.slots].map((s) => s.channel.pid).filter((pid): pid is number => pid !== undefined);
  }

  /**
   * Starts handing out work. Indexer processes are started when there is work for them (each
   * loads the stages' code and models): an idle library starts fast and stays light.
   */
  start(): void {
    const requeued = this.queue.recover();
    if (requeued > 0) this.log(`resuming ${requeued} interrupted stage run(s)`);
    this.kick();
  }

  /**
   * Starts every process of the pool now, before work is queued, each loading the runs of `stages`
   * while the caller adds its files: for the command line's `index`, which has work coming (a
   * library or the service starts processes when work comes, and an idle one stays light).
   */
  prestart(stages: IndexStageName[]): void {
    this.warm = stages;
    if (this.stopping || Date.now() < this.startAfter) return;
    while (this.slots.size < this.opts.workers) this.spawn();
  }

  /** Looks for ready work (the queue calls it when runs are queued). */
  kick(): void {
    if (this.stopping) return;
    if (this.scheduling) {
      this.rescheduled = true;
      return;
    }
    this.scheduling = true;
    try {
      do {
        this.rescheduled = false;
        this.schedule();
      } while (this.rescheduled);
    } catch (err) {
      // The database could not take the bookkeeping (the disk full, the file held by another
      // program): nothing was handed out; look again shortly.
      this.log(`could not hand out work (${(err as Error).message}); trying again`);
      setTimeout(() => this.kick(), 2000).unref();
    } finally {
      this.scheduling = false;
    }
  }

  /** Stops the pool. Runs in flight go back to the queue and resume on the next start. */
  async stop(): Promise<void> {
    this.stopping = true;
    const exits: Promise<void>[] = [];
    this.recordHeard();
    for (const slot of this.slots) {
      if (slot.idle) clearTimeout(slot.idle);
      for (const job of slot.jobs.values()) {
        clearTimeout(job.timer);
        this.queue.requeue(job.assetId, job.stage);
      }
      slot.jobs.clear();
      exits.push(new Promise((resolve) => slot.channel.onExit(() => resolve())));
      slot.channel.kill();
    }
    // Waits at most 3 s; the timer must not hold the process once they have all exited (the CLI
    // would wait it out after its work).
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all(exits), new Promise((r) => (timer = setTimeout(r, 3000)))]);
    clearTimeout(timer);
    this.slots.clear();
  }

  private log(msg: string): void {
    this.opts.log?.(`indexer: ${msg}`);
  }

  private spawn(): void {
    const slot: Slot = { channel: this.opts.launch(), ready: false, jobs: new Map(), idle: null, families: new Set(), rssMiB: null };
    this.slots.add(slot);
    slot.channel.onMessage((msg: WorkerMessage) => {
      if (msg.type === 'ready') {
        slot.ready = true;
        if (this.warm.length > 0) slot.channel.send({ type: 'warm', stages: this.warm });
        this.crashes = 0;
        this.kick();
      } else if (msg.type === 'progress') {
        const job = slot.jobs.get(msg.jobId);
        if (!job) return;
        if (!job.progress || msg.done > job.progress.done) job.movedAt = Date.now();
        job.progress = { done: msg.done, total: msg.total, unit: msg.unit };
        this.emit('run-progress', { assetId: job.assetId, stage: job.stage, ...job.progress });
      } else if (msg.type === 'done' && slot.jobs.has(msg.jobId)) {
        if (typeof msg.rss === 'number') slot.rssMiB = msg.rss / 2 ** 20;
        const job = slot.jobs.get(msg.jobId)!;
        clearTimeout(job.timer);
        slot.jobs.delete(msg.jobId);
        if (job.light) {
          // Recorded with the others heard in this turn, in one transaction, before the next look.
          if (this.heard.push({ job, outcome: msg.outcome }) === 1) setImmediate(() => this.recordHeard());
          return;
        }
        // The process is handed its next run before this outcome is stored: storing a book's
        // passages and line boxes takes this thread a while, and the process would wait for it.
        this.kick();
        this.finish(job, msg.outcome);
        this.kick();
      }
    });
    slot.channel.onExit((code) => this.onExit(slot, code));
  }

  /**
   * Records an outcome. Where the database cannot take it now (the disk full, the file held by
   * another program) it is tried again every few seconds; the run stays `running` meanwhile, and
   * goes back to the queue on the next start if the service stops first.
   */
  private finish(job: InFlight, outcome: StageOutcome, attempt = 0): void {
    try {
      this.queue.finish(job.assetId, job.stage, outcome);
    } catch (err) {
      if (this.stopping) return;
      this.log(`could not record ${job.stage} of ${job.assetId} (${(err as Error).message}); trying again`);
      setTimeout(() => this.finish(job, outcome, attempt + 1), Math.min(30_000, 1000 * 2 ** Math.min(attempt, 5))).unref();
    }
  }

  /** Records the outcomes of light runs heard so far, together; then looks for work. */
  private recordHeard(): void {
    if (this.heard.length === 0) return;
    const heard = this.heard;
    this.heard = [];
    try {
      this.queue.finishMany(heard.map(({ job, outcome }) => ({ assetId: job.assetId, stage: job.stage, outcome })));
    } catch {
      // One by one, each tried again until the database takes it.
      for (const { job, outcome } of heard) this.finish(job, outcome);
    }
    this.kick();
  }

  private onExit(slot: Slot, code: number | null): void {
    if (!this.slots.delete(slot) || this.stopping) return;
    for (const job of slot.jobs.values()) {
      clearTimeout(job.timer);
      const attempts = this.queue.attempts(job.assetId, job.stage);
      if (job.timedOut) {
        this.finish(job, {
          state: 'failed',
          code: 'timeout',
          reason: `timeout: the stage ran ${Math.round(this.opts.stageTimeoutMs / 1000)} s without getting further`,
        });
      } else if (attempts !== null && attempts >= MAX_ATTEMPTS) {
        this.finish(job, {
          state: 'failed',
          code: 'indexer_crashed',
          reason: `indexer_crashed: the indexer process exited (code ${code}) during this stage ${attempts} times`,
        });
      } else if (attempts !== null) {
        this.queue.requeue(job.assetId, job.stage);
      }
    }
    // A message of the process heard after its exit is not taken for the runs settled here.
    slot.jobs.clear();
    this.crashes++;
    const delay = Math.min(10_000, 100 * 2 ** Math.min(this.crashes, 7));
    this.log(`indexer process ${slot.channel.pid} exited (code ${code}); a new one may start in ${delay} ms`);
    const startAfter = Date.now() + delay;
    this.startAfter = startAfter;
    // The timer counts from the event loop's time, which may lag the clock (a long callback before
    // this one): it may fire before `startAfter` by the clock, and nothing else may come to kick.
    // When it fires, the wait it stands for is over, unless a later exit set a later one.
    setTimeout(() => {
      if (this.startAfter === startAfter) this.startAfter = 0;
      this.kick();
    }, delay).unref();
  }

  private schedule(): void {
    if (this.slots.size < this.opts.workers && Date.now() >= this.startAfter) {
      const want = Math.min(this.opts.workers, this.queue.next(this.opts.workers).length);
      while (this.slots.size < want) this.spawn();
    }
    const ready = [...this.slots].filter((s) => s.ready);
    const room = ready.reduce((n, s) => n + this.lightRoom(s), 0);
    if (ready.some((s) => this.wantsWork(s))) {
      const handed: Array<{ slot: Slot; job: InFlight; asset: AssetRow; input: unknown }> = [];
      const settled: Array<{ assetId: string; stage: IndexStageName; outcome: StageOutcome }> = [];
      // From the assets of the processes with room, SETTLED_AHEAD runs more than they take; the rest
      // of the queue read only when phase 1 would leave a process without work.
      const empty = ready.filter((s) => s.jobs.size === 0).length;
      // Whether a stage's model is installed, asked once a look (its files are looked at on disk).
      const models = new Map<string, string | undefined>();
      const installed = (st: AnyStageManifest) => {
        if (!models.has(st.name)) models.set(st.name, installedModel(st, this.store.files.root));
        return models.get(st.name);
      };
      const wanting = ready.filter((s) => this.wantsWork(s)).length;
      // Each asset's row read once a look: a look hands out several runs of one asset (a small
      // file's text and metadata).
      const assets = new Map<string, AssetRow | undefined>();
      const assetOf = (id: string) => {
        if (!assets.has(id)) assets.set(id, this.store.assets.byId(id));
        return assets.get(id);
      };
      for (const run of this.queue.next(room + SETTLED_AHEAD, wanting, Math.max(1, empty))) {
        if (!ready.some((s) => this.lightRoom(s) > 0)) break;
        const asset = assetOf(run.assetId);
        if (!asset) continue;
        const light = isLight(run, asset);
        const slot = light ? this.leastBusy(ready) : this.place(run.stage, run.attempts === 0 && isPhaseOne(run.stage));
        // No process for it now: nothing after it goes first (a larger file is not left behind a
        // stream of small ones; a process holding only light runs takes a heavy one beside them).
        if (slot === undefined) break;
        const stage = STAGES[run.stage];
        const { settled: outcome, input } = outcomeWithoutRun(stage, () => stage.prepare(this.store, asset.id), asset, this.store.files.root, installed);
        if (outcome) {
          settled.push({ assetId: asset.id, stage: run.stage, outcome });
          continue;
        }
        // Left for the process that holds its model (the runs after it may go to the free one).
        if (slot === null) continue;
        const family = STAGE_FAMILIES[run.stage];
        if (family) slot.families.add(family.name);
        const job: InFlight = { jobId: this.nextJobId++, assetId: asset.id, stage: run.stage, light, timedOut: false };
        slot.jobs.set(job.jobId, job);
        handed.push({ slot, job, asset, input });
      }
      try {
        if (handed.length > 0) this.queue.startMany(handed.map(({ job }) => job));
      } catch (err) {
        for (const { slot, job } of handed) slot.jobs.delete(job.jobId);
        throw err;
      }
      // One message a process.
      const bySlot = new Map<Slot, RunRequest[]>();
      for (const h of handed) {
        const list = bySlot.get(h.slot) ?? [];
        list.push(this.request(h.slot, h.job, h.asset, h.input));
        bySlot.set(h.slot, list);
      }
      for (const [slot, runs] of bySlot) slot.channel.send(runs.length === 1 ? runs[0] : { type: 'runs', runs });
      if (settled.length > 0) {
        this.queue.finishMany(settled);
        this.rescheduled = true;
      }
    }
    for (const slot of this.slots) {
      if (slot.jobs.size > 0 && slot.idle) {
        clearTimeout(slot.idle);
        slot.idle = null;
      } else if (slot.jobs.size === 0 && slot.ready && !slot.idle) {
        slot.idle = setTimeout(() => this.endIdle(slot), this.idleEndMs);
        slot.idle.unref();
      }
    }
  }

  /**
   * The free process for a run that is not light; undefined when none is free, null when the run
   * waits for the process holding its model (memory.ts). A process holding only light runs is free
   * for it `besideLight`: a run of phase 1 (a book's text is then not read only after the metadata
   * run handed to the process before it has gone there and back), never tried before (a run retried
   * after its process died goes alone). A run of phase 2 waits for an empty process: beside the
   * last light runs of phase 1, it made a folder searchable later (the folder with figures of
   * bench:recoll through `index`: 1.327 s against 1.214, 5 interleaved runs a side).
   */
  private place(stage: IndexStageName, besideLight: boolean): Slot | null | undefined {
    const slots = [...this.slots];
    const free = (s: Slot) => s.ready && (s.jobs.size === 0 || (besideLight && holdsOnlyLight(s)));
    const processes = slots.map((s) => ({ free: free(s), families: s.families, rssMiB: s.rssMiB }));
    if (!processes.some((p) => p.free)) return undefined;
    const i = placeRun(stage, processes, this.opts.memoryMiB ?? Infinity);
    return i < 0 ? null : slots[i];
  }

  /** How many more light runs a process may take now: none while it holds another run. */
  private lightRoom(slot: Slot): number {
    return slot.ready && holdsOnlyLight(slot) ? LIGHT_IN_FLIGHT - slot.jobs.size : 0;
  }

  /** Whether to look at the queue for a process: it is empty, or has done half the light runs it holds (a look then hands out several). */
  private wantsWork(slot: Slot): boolean {
    return slot.jobs.size <= LIGHT_IN_FLIGHT / 2 && this.lightRoom(slot) > 0;
  }

  /** The process with room for a light run that holds the fewest runs. */
  private leastBusy(ready: Slot[]): Slot | undefined {
    let best: Slot | undefined;
    for (const s of ready) if (this.lightRoom(s) > 0 && (!best || s.jobs.size < best.jobs.size)) best = s;
    return best;
  }

  private get idleEndMs(): number {
    return this.opts.idleEndMs ?? IDLE_END_MS;
  }

  /** Ends a process that has had no run for `idleEndMs`: not a crash, and nothing to retry. */
  private endIdle(slot: Slot): void {
    slot.idle = null;
    if (slot.jobs.size > 0 || this.stopping || !this.slots.delete(slot)) return;
    this.log(`indexer process ${slot.channel.pid} ended after ${Math.round(this.idleEndMs / 1000)} s without work`);
    slot.channel.kill();
  }

  /** The message of a run for its process (the run is marked running already), its timer started. */
  private request(slot: Slot, job: InFlight, asset: AssetRow, input: unknown): RunRequest {
    // Stopped once it has gone the stage timeout without getting further: a run that says how far
    // it has got (pages, seconds of a video) is given the timeout again from each step forward. An
    // indexer process runs below normal priority (priority.ts): while the machine is busy with the
    // owner's programs, a long video may take much longer than the timeout, and is not stuck.
    const timeout = this.opts.stageTimeoutMs;
    const sentAt = Date.now();
    const expire = () => {
      const since = Date.now() - (job.movedAt ?? sentAt);
      if (since < timeout) {
        job.timer = setTimeout(expire, timeout - since);
        job.timer.unref();
        return;
      }
      job.timedOut = true;
      slot.channel.kill();
    };
    job.timer = setTimeout(expire, timeout);
    job.timer.unref();
    return {
      type: 'run',
      jobId: job.jobId,
      stage: job.stage,
      asset: {
        id: asset.id,
        kind: asset.kind,
        ext: asset.ext,
        filePath: this.store.files.abs(asset.stored_path),
        sizeBytes: asset.size_bytes,
        sha256: asset.sha256,
        linked: asset.linked === 1,
        fileMtimeMs: asset.file_mtime_ms,
        mimeType: asset.mime_type,
        durationS: asset.duration_s,
      },
      options: stageValues(asset.index_options, job.stage),
      dataDir: this.store.files.root,
      assetDir: this.store.files.assetDir(asset.id),
      input,
    };
  }
}
