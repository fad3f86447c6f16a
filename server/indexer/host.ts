// The indexer host: a pool of indexer processes (sized to the cores). It takes ready runs from the
// stage queue (queue.ts), hands each to a free process with what the stage's `prepare` read from the
// store, and gives the outcome back to the queue, which records it (the one writer). A process that
// dies or hangs is replaced; its run is retried, then failed. A process left without work for
// `idleEndMs` ends, and its memory (the models it loaded) goes back; the next work starts one again.
import { EventEmitter } from 'node:events';
import type { Store } from '../store/index.ts';
import type { WorkerChannel, WorkerLauncher, WorkerMessage } from './protocol.ts';
import { STAGES } from './registry.ts';
import { stageValues } from './plan.ts';
import { StageQueue, type RunFinishedEvent } from './queue.ts';
import { outcomeWithoutRun, type IndexStageName, type StageOutcome } from './stage.ts';

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

interface InFlight {
  jobId: number;
  assetId: string;
  stage: IndexStageName;
  timer: NodeJS.Timeout;
  timedOut: boolean;
}

interface Slot {
  channel: WorkerChannel;
  ready: boolean;
  job: InFlight | null;
  /** Ends the process once it has had no run for `idleEndMs`. */
  idle: NodeJS.Timeout | null;
}

export interface HostOptions {
  workers: number;
  launch: WorkerLauncher;
  stageTimeoutMs: number;
  /** A process without a run for this long ends (default IDLE_END_MS). */
  idleEndMs?: number;
  log?: (msg: string) => void;
}

export class IndexerHost extends EventEmitter<{ 'run-finished': [RunFinishedEvent] }> {
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

  constructor(
    private readonly store: Store,
    private readonly opts: HostOptions,
    readonly queue: StageQueue = new StageQueue(store),
  ) {
    super();
    queue.on('work', () => this.kick());
    queue.on('run-finished', (e) => this.emit('run-finished', e));
  }

  get workerCount(): number {
    return this.slots.size;
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
    for (const slot of this.slots) {
      if (slot.idle) clearTimeout(slot.idle);
      if (slot.job) {
        clearTimeout(slot.job.timer);
        this.queue.requeue(slot.job.assetId, slot.job.stage);
        slot.job = null;
      }
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
    const slot: Slot = { channel: this.opts.launch(), ready: false, job: null, idle: null };
    this.slots.add(slot);
    slot.channel.onMessage((msg: WorkerMessage) => {
      if (msg.type === 'ready') {
        slot.ready = true;
        if (this.warm.length > 0) slot.channel.send({ type: 'warm', stages: this.warm });
        this.crashes = 0;
        this.kick();
      } else if (msg.type === 'done' && slot.job && slot.job.jobId === msg.jobId) {
        const job = slot.job;
        clearTimeout(job.timer);
        slot.job = null;
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

  private onExit(slot: Slot, code: number | null): void {
    if (!this.slots.delete(slot) || this.stopping) return;
    const job = slot.job;
    if (job) {
      clearTimeout(job.timer);
      const attempts = this.queue.attempts(job.assetId, job.stage);
      if (job.timedOut) {
        this.finish(job, { state: 'failed', code: 'timeout', reason: `timeout: the stage ran longer than ${Math.round(this.opts.stageTimeoutMs / 1000)} s` });
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
    const free = [...this.slots].filter((s) => s.ready && !s.job);
    if (free.length > 0) {
      // From the assets of the free processes, SETTLED_AHEAD runs more than they take.
      for (const { assetId, stage } of this.queue.next(free.length + SETTLED_AHEAD, free.length)) {
        if (free.length === 0) break;
        if (this.dispatch(free[0], assetId, stage)) free.shift();
      }
    }
    for (const slot of this.slots) {
      if (slot.job && slot.idle) {
        clearTimeout(slot.idle);
        slot.idle = null;
      } else if (!slot.job && slot.ready && !slot.idle) {
        slot.idle = setTimeout(() => this.endIdle(slot), this.idleEndMs);
        slot.idle.unref();
      }
    }
  }

  private get idleEndMs(): number {
    return this.opts.idleEndMs ?? IDLE_END_MS;
  }

  /** Ends a process that has had no run for `idleEndMs`: not a crash, and nothing to retry. */
  private endIdle(slot: Slot): void {
    slot.idle = null;
    if (slot.job || this.stopping || !this.slots.delete(slot)) return;
    this.log(`indexer process ${slot.channel.pid} ended after ${Math.round(this.idleEndMs / 1000)} s without work`);
    slot.channel.kill();
  }

  /**
   * Hands a run to a free process; or records its outcome here when its manifest says what it would
   * answer without any work (`outcomeWithoutRun`: no model installed, nothing to look at), which
   * may make other runs ready. Returns whether the process was given the run.
   */
  private dispatch(slot: Slot, assetId: string, stage: IndexStageName): boolean {
    const asset = this.store.assets.byId(assetId);
    if (!asset) return false;
    const { settled, input } = outcomeWithoutRun(STAGES[stage], () => STAGES[stage].prepare(this.store, asset.id), asset, this.store.files.root);
    if (settled) {
      this.queue.finish(assetId, stage, settled);
      this.rescheduled = true;
      return false;
    }
    const jobId = this.nextJobId++;
    this.queue.start(assetId, stage);
    const job: InFlight = {
      jobId,
      assetId,
      stage,
      timedOut: false,
      timer: setTimeout(() => {
        job.timedOut = true;
        slot.channel.kill();
      }, this.opts.stageTimeoutMs),
    };
    job.timer.unref();
    slot.job = job;
    const effective = asset.index_options;
    slot.channel.send({
      type: 'run',
      jobId,
      stage,
      asset: {
        id: asset.id,
        kind: asset.kind,
        ext: asset.ext,
        filePath: this.store.files.abs(asset.stored_path),
        sizeBytes: asset.size_bytes,
        sha256: asset.sha256,
        linked: asset.linked === 1,
        mimeType: asset.mime_type,
      },
      options: stageValues(effective, stage),
      dataDir: this.store.files.root,
      assetDir: this.store.files.assetDir(asset.id),
      input,
    });
    return true;
  }
}
