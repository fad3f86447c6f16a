// The indexer host: the one writer of indexing results. It keeps a pool of indexer processes
// (sized to the cores), hands each a ready stage run from the SQLite queue, and records outcomes.
// Runs left `running` by a crash go back to the queue on start.
import { EventEmitter } from 'node:events';
import type { Store } from '../store/index.ts';
import type { AssetRow } from '../store/assets.repo.ts';
import type { StageRunRow } from '../store/stage-runs.repo.ts';
import { TERMINAL_STATES } from '../store/stage-runs.repo.ts';
import { clock } from '../store/ids.ts';
import type { EffectiveOptions } from '../contract/stages.ts';
import type { WorkerChannel, WorkerLauncher, WorkerMessage } from './protocol.ts';
import { STAGES } from './registry.ts';
import { stageValues } from './plan.ts';
import type { IndexStageName, StageOutcome } from './stage.ts';

/** A stage run whose process died this many times is failed instead of retried. */
export const MAX_ATTEMPTS = 2;

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
}

export interface HostOptions {
  workers: number;
  launch: WorkerLauncher;
  stageTimeoutMs: number;
  log?: (msg: string) => void;
}

export interface RunFinishedEvent {
  assetId: string;
  stage: IndexStageName;
  state: string;
  assetCompleted: boolean;
}

export class IndexerHost extends EventEmitter {
  private readonly slots = new Set<Slot>();
  private nextJobId = 1;
  private stopping = false;
  private scheduling = false;
  private rescheduled = false;
  private crashes = 0;

  constructor(
    private readonly store: Store,
    private readonly opts: HostOptions,
  ) {
    super();
  }

  get workerCount(): number {
    return this.slots.size;
  }

  start(): void {
    const requeued = this.store.runs.requeueAllRunning();
    if (requeued > 0) this.log(`resuming ${requeued} interrupted stage run(s)`);
    for (const id of this.store.runs.assetsToComplete()) this.store.assets.setCompleted(id, clock.now());
    for (let i = 0; i < this.opts.workers; i++) this.spawn();
    this.kick();
  }

  /** Looks for ready work; call after anything is queued. */
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
    } finally {
      this.scheduling = false;
    }
  }

  /** Stops the pool. Runs in flight go back to the queue and resume on the next start. */
  async stop(): Promise<void> {
    this.stopping = true;
    const exits: Promise<void>[] = [];
    for (const slot of this.slots) {
      if (slot.job) {
        clearTimeout(slot.job.timer);
        this.store.runs.requeue(slot.job.assetId, slot.job.stage);
        slot.job = null;
      }
      exits.push(new Promise((resolve) => slot.channel.onExit(() => resolve())));
      slot.channel.kill();
    }
    await Promise.race([Promise.all(exits), new Promise((r) => setTimeout(r, 3000))]);
    this.slots.clear();
  }

  private log(msg: string): void {
    this.opts.log?.(`indexer: ${msg}`);
  }

  private spawn(): void {
    const slot: Slot = { channel: this.opts.launch(), ready: false, job: null };
    this.slots.add(slot);
    slot.channel.onMessage((msg: WorkerMessage) => {
      if (msg.type === 'ready') {
        slot.ready = true;
        this.crashes = 0;
        this.kick();
      } else if (msg.type === 'done' && slot.job && slot.job.jobId === msg.jobId) {
        const job = slot.job;
        clearTimeout(job.timer);
        slot.job = null;
        this.finishRun(job.assetId, job.stage, msg.outcome);
        this.kick();
      }
    });
    slot.channel.onExit((code) => this.onExit(slot, code));
  }

  private onExit(slot: Slot, code: number | null): void {
    if (!this.slots.delete(slot) || this.stopping) return;
    const job = slot.job;
    if (job) {
      clearTimeout(job.timer);
      const row = this.store.runs.get(job.assetId, job.stage);
      if (job.timedOut) {
        this.finishRun(job.assetId, job.stage, {
          state: 'failed',
          reason: `timeout: the stage ran longer than ${Math.round(this.opts.stageTimeoutMs / 1000)} s`,
        });
      } else if (row && row.attempts >= MAX_ATTEMPTS) {
        this.finishRun(job.assetId, job.stage, {
          state: 'failed',
          reason: `indexer_crashed: the indexer process exited (code ${code}) during this stage ${row.attempts} times`,
        });
      } else if (row) {
        this.store.runs.requeue(job.assetId, job.stage);
      }
    }
    this.crashes++;
    const delay = Math.min(10_000, 100 * 2 ** Math.min(this.crashes, 7));
    this.log(`indexer process ${slot.channel.pid} exited (code ${code}); restarting in ${delay} ms`);
    setTimeout(() => {
      if (!this.stopping) this.spawn();
    }, delay).unref();
  }

  private schedule(): void {
    const free = [...this.slots].filter((s) => s.ready && !s.job);
    if (free.length === 0) return;
    const rows = this.store.runs.runsOfAssetsWithPendingWork(Math.max(8, free.length * 4));
    const byAsset = new Map<string, StageRunRow[]>();
    for (const r of rows) {
      const list = byAsset.get(r.asset_id) ?? [];
      list.push(r);
      byAsset.set(r.asset_id, list);
    }
    let settled = false;
    for (const [assetId, runs] of byAsset) {
      const state = new Map(runs.map((r) => [r.stage, r.state]));
      for (const run of runs) {
        if (run.state !== 'pending') continue;
        const def = STAGES[run.stage as IndexStageName];
        if (def.dependsOn.some((d) => !TERMINAL_STATES.includes(state.get(d) ?? 'ok'))) continue;
        const required = def.requires ?? def.dependsOn;
        const failedDep = required.find((d) => state.get(d) === 'failed');
        const skippedDep = required.find((d) => state.get(d) === 'off' || state.get(d) === 'not_applicable');
        if (failedDep || skippedDep) {
          this.finishRun(assetId, run.stage as IndexStageName,
            failedDep
              ? { state: 'failed', reason: `dependency_failed: ${failedDep}` }
              : { state: 'not_applicable', reason: `needs ${skippedDep}, which did not run` },
          );
          settled = true;
          continue;
        }
        const slot = free.pop();
        if (!slot) break;
        this.dispatch(slot, assetId, run.stage as IndexStageName);
        state.set(run.stage, 'running');
      }
      if (free.length === 0) break;
    }
    if (settled) this.rescheduled = true;
  }

  private dispatch(slot: Slot, assetId: string, stage: IndexStageName): void {
    const asset = this.store.assets.byId(assetId) as AssetRow;
    const jobId = this.nextJobId++;
    this.store.runs.markRunning(assetId, stage, clock.now());
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
    const effective = asset.index_options ? (JSON.parse(asset.index_options) as EffectiveOptions) : null;
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
      input: STAGES[stage].prepare?.(this.store, asset.id),
    });
  }

  private finishRun(assetId: string, stage: IndexStageName, outcome: StageOutcome): void {
    const now = clock.now();
    let assetCompleted = false;
    let state: string = outcome.state;
    this.store.transaction(() => {
      const asset = this.store.assets.byId(assetId);
      if (!asset) return;
      const def = STAGES[stage];
      let finalOutcome = outcome;
      if (outcome.state === 'ok' && def.save && asset.deleted_at === null) {
        try {
          // Nested transaction = savepoint: a save that throws leaves none of its writes behind.
          this.store.transaction(() => def.save?.(this.store, assetId, outcome.output));
        } catch (err) {
          finalOutcome = { state: 'failed', reason: `save_failed: ${(err as Error).message}` };
        }
      }
      state = finalOutcome.state;
      this.store.runs.finish(assetId, stage, {
        state: finalOutcome.state,
        reason: finalOutcome.state === 'ok' ? null : finalOutcome.reason,
        counts: finalOutcome.state === 'ok' ? (finalOutcome.counts ?? {}) : {},
        details: finalOutcome.state === 'not_applicable' ? null : (finalOutcome.details ?? null),
        finishedAt: now,
      });
      if (asset.status === 'processing' && this.store.runs.unfinishedCount(assetId) === 0) {
        this.store.assets.setCompleted(assetId, now);
        assetCompleted = true;
      }
    });
    const event: RunFinishedEvent = { assetId, stage, state, assetCompleted };
    this.emit('run-finished', event);
  }
}
