// The stage queue: the stage-run rows in SQLite are the queue (SPEC 3.1: indexing is
// asynchronous and resumes after a crash). `admit`/`enqueue` write runs and wake whoever waits
// for work; `next` says which pending runs may go (their dependencies finished) and settles those
// that cannot (a required dependency failed or did not run); `start`, `requeue` and `finish` move
// a run through its states. `finish` records an outcome and the stage's `save` in one transaction
// and completes the asset when its last run ends.
import { EventEmitter } from 'node:events';
import type { Store } from '../store/index.ts';
import type { AssetRow, NewAssetRow } from '../store/assets.repo.ts';
import { DEPENDENCY_FAILED, TERMINAL_STATES, type QueuedRun, type RunState, type StageRunRow } from '../store/stage-runs.repo.ts';
import { clock } from '../store/ids.ts';
import { STAGES, STAGE_ORDER, isPhaseOne } from './registry.ts';
import { codeOf, installedModel, missingModel, type IndexStageName, type StageOutcome } from './stage.ts';
import { planRerun, planRuns } from './plan.ts';
import { VIDEO_PICTURE_STAGES } from './picture-input.ts';

export interface RunFinishedEvent {
  assetId: string;
  stage: IndexStageName;
  state: string;
  /** A failed run's code. */
  code?: string;
  assetCompleted: boolean;
  /** This run ended the asset's phase 1: it is searchable by its text and metadata. */
  searchable: boolean;
  /** The asset was deleted meanwhile (or is gone): the purge, which waits for its running runs, may take it now. */
  assetDeleted: boolean;
  /**
   * This run (its shots pass, or a picture stage) left none of the asset's picture stages to run:
   * the frames the pass kept for them (SAMPLED_DIR) are not needed any more.
   */
  picturesDone?: boolean;
}

interface QueueEvents {
  /** Runs were queued: look for work. */
  work: [];
  'run-finished': [RunFinishedEvent];
}

/** A save that threw, recorded without a savepoint: the transaction is rolled back and recorded again. */
class SaveFailed extends Error {
  constructor(readonly cause: unknown) {
    super('a stage output could not be saved');
  }
}

export class StageQueue extends EventEmitter<QueueEvents> {
  private wakeScheduled = false;
  /**
   * Whether assets admitted without runs may be waiting: set when one is admitted so, cleared when
   * planning finds fewer than it asked for. A service may stop before planning them all, so it
   * starts set. Files added one by one (the command line, uploads) are planned as they are
   * admitted, and the queue then looks for none at each look.
   */
  private unplannedMaybe = true;

  constructor(private readonly store: Store) {
    super();
  }

  /** A new asset and its runs, in one transaction. */
  admit(asset: NewAssetRow, runs: StageRunRow[]): void {
    this.admitMany([{ asset, runs }]);
  }

  /**
   * New assets and their runs, all in one transaction (the command line takes a folder's small
   * files in this way: one commit for several files instead of one each).
   */
  admitMany(admitted: ReadonlyArray<{ asset: NewAssetRow; runs: StageRunRow[] }>): void {
    if (admitted.length === 0) return;
    const waiting = this.waitingForModels();
    this.store.transaction(() => {
      for (const { asset, runs } of admitted) this.store.assets.insertWithRuns(asset, runs.map(waiting));
    });
    this.wake();
  }

  /**
   * New assets whose runs are written when the queue reaches them (a folder of thousands of files is
   * taken in at one row per file). Call inside the transaction that records them.
   */
  admitUnplanned(asset: NewAssetRow): void {
    this.store.assets.insertWithRuns({ ...asset, runs_planned: 0 }, []);
    this.unplannedMaybe = true;
    this.wake();
  }

  /** Writes the runs of up to `max` of the oldest assets admitted without them. */
  private plan(max: number): void {
    const assets = this.store.assets.unplanned(max);
    if (assets.length > 0) {
      const waiting = this.waitingForModels();
      this.store.transaction(() => {
        for (const a of assets) {
          this.store.runs.replace(planRuns(a.id, a.kind, a.index_options, a.created_at, a.ext).map(waiting));
          this.store.assets.markPlanned(a.id);
        }
      });
    }
    if (assets.length < max) this.unplannedMaybe = false;
  }

  /** Runs of an existing asset again (these rows replace the old ones); the asset is processing again. */
  /**
   * Runs stages of an asset again (all when none are named) with every stage that depends on them,
   * planned as at upload; the stages queued. An asset the queue has not reached yet runs them all anyway.
   */
  rerun(asset: AssetRow, stages?: readonly string[]): IndexStageName[] {
    if (!asset.runs_planned) return [...STAGE_ORDER];
    const rows = planRerun(asset.id, asset.kind, asset.index_options, stages, clock.now(), asset.ext);
    this.enqueue(asset.id, rows);
    return rows.map((r) => r.stage as IndexStageName);
  }

  enqueue(assetId: string, runs: StageRunRow[]): void {
    const waiting = this.waitingForModels();
    this.store.transaction(() => {
      this.store.runs.replace(runs.map(waiting));
      // Nothing left to run (each stage asked for is off or does not apply, as a text file's faces):
      // the asset is complete again at once; no look at the queue would ever reach it.
      if (this.store.runs.unfinished(assetId).all === 0) this.store.assets.setCompleted(assetId, clock.now());
      else this.store.assets.setProcessing(assetId);
    });
    this.wake();
  }

  /**
   * Settles, as it is written, a pending run of a stage none of whose optional models is installed:
   * failed with `model_not_installed`, as a look at the queue would have recorded it when its turn
   * came (`outcomeWithoutRun`). A folder of 2,000 notes without the sentence encoder then has no
   * run left for phase 2, instead of 2,000 looked at, settled and recorded one look at a time after
   * the notes' text (through `index`: searchable in 2.77 s against 3.04, 8 interleaved runs a
   * side). Such runs run again once the model is there (`AssetsService.resumeWaitingForModels`:
   * after a pull, or at the next start). Which models are installed is looked at on disk once a
   * call, in the same turn as the rows are written, so a pull that ends meanwhile finds them to run
   * again. A run settled so keeps its reason should the file's extraction fail later, as off and
   * not-applicable runs do.
   */
  private waitingForModels(): (run: StageRunRow) => StageRunRow {
    // Each stage's reason, or null where it has its model (or needs none): looked at once a call.
    const reasons = new Map<string, string | null>();
    const reasonFor = (stage: string): string | null => {
      if (!reasons.has(stage)) {
        const missing = missingModel(STAGES[stage as IndexStageName], (st) => installedModel(st, this.store.files.root));
        reasons.set(stage, missing?.reason ?? null);
      }
      return reasons.get(stage) ?? null;
    };
    return (run) => {
      const reason = run.state === 'pending' ? reasonFor(run.stage) : null;
      return reason === null ? run : { ...run, state: 'failed', code: codeOf(reason), reason, finished_at: run.queued_at, duration_ms: 0 };
    };
  }

  /** After a crash or a stop: runs left running go back to the queue; assets whose runs all ended complete. */
  recover(): number {
    const requeued = this.store.runs.requeueAllRunning();
    for (const id of this.store.runs.assetsToComplete()) this.store.assets.setCompleted(id, clock.now());
    return requeued;
  }

  /**
   * Up to `max` pending runs whose dependencies have finished, oldest assets first. Runs that can
   * never go (a required dependency failed, or was off or not applicable) are settled on the way.
   * The assets looked at are sized by `window`, the processes the runs are for (four assets a
   * process, at least eight): `max` may ask for more runs from those assets. The rest of the queue
   * (phase 2) is read only when phase 1 gives fewer than `restBelow` runs.
   */
  next(max: number, window = max, restBelow = max): Array<{ assetId: string; stage: IndexStageName; attempts: number }> {
    // Assets admitted without runs are planned while few assets wait for their phase 1 (a folder of
    // thousands is planned a few at a time, and a new file is not left behind older phase 2 work).
    if (this.unplannedMaybe && this.store.runs.pendingAssets(window * 4, true) < window * 4) this.plan(window * 4);
    // Assets of workspaces whose owner paused indexing wait (POST /index/pause).
    const paused = this.store.runs.pausedWorkspaces();

    // Phase 1 (text and metadata) of every waiting asset, oldest first, then the rest by age: the
    // rest read only when phase 1 does not give `restBelow` runs (a folder of new files rarely needs it).
    const state = new Map<string, Map<string, RunState>>();
    const known = (rows: QueuedRun[]) => {
      for (const r of rows) {
        let runs = state.get(r.asset_id);
        if (!runs) state.set(r.asset_id, (runs = new Map()));
        // A run read in both lists keeps what this call already did to it.
        if (!runs.has(r.stage)) runs.set(r.stage, r.state);
      }
      return rows;
    };
    const windowAssets = Math.max(8, window * 4);
    const candidates = known(this.store.runs.runsOfAssetsInPhaseOne(windowAssets, paused));
    // Runs settled in this call, how many had been when the rest of the queue was last read, and
    // whether that read filled its window (assets may wait past it).
    let settledCount = 0;
    let settledAtRead = -1;
    let windowFull = true;
    const out: Array<{ assetId: string; stage: IndexStageName; attempts: number }> = [];
    // A run settled on the way (it can never go) may free others: the same rows are looked at again,
    // in age order, with what was settled known (the queue itself read again only past a full window).
    for (let settled = true; settled && out.length < max;) {
      settled = false;
      for (const o of out) state.get(o.assetId)!.set(o.stage, 'pending');
      out.length = 0;
      for (let i = 0; out.length < max; i++) {
        if (i === candidates.length) {
          // The rest, read when phase 1 gives fewer than `restBelow` runs; read again (the next
          // assets by age) after a full window whose runs were settled here: those of assets past
          // it would otherwise wait for a look that no process's answer may ask for (nine small
          // files whose text failed, the last left waiting for ever: test/host.test.ts).
          if (out.length >= restBelow || !windowFull || settledAtRead === settledCount) break;
          settledAtRead = settledCount;
          const rest = known(this.store.runs.runsOfAssetsWithPendingWork(windowAssets, paused));
          windowFull = new Set(rest.map((r) => r.asset_id)).size === windowAssets;
          candidates.push(...rest);
          if (i === candidates.length) break;
        }
        const run = candidates[i];
        const assetId = run.asset_id;
        const runs = state.get(assetId)!;
        // A run handed out in this pass is marked running below, so it is not handed out twice.
        if (runs.get(run.stage) !== 'pending') continue;
        const stage = run.stage as IndexStageName;
        const def = STAGES[stage];
        if (def.dependsOn.some((d) => !TERMINAL_STATES.includes(runs.get(d) ?? 'ok'))) continue;
        const required = def.requires ?? def.dependsOn;
        const failedDep = required.find((d) => runs.get(d) === 'failed');
        const skippedDep = required.find((d) => runs.get(d) === 'off' || runs.get(d) === 'not_applicable');
        if (failedDep || skippedDep) {
          const event = this.finish(
            assetId,
            stage,
            failedDep
              ? { state: 'failed', code: DEPENDENCY_FAILED, reason: `${DEPENDENCY_FAILED}: ${failedDep}` }
              : { state: 'not_applicable', reason: `needs ${skippedDep}, which did not run` },
          );
          runs.set(stage, event.state as RunState);
          settled = true;
          settledCount++;
          continue;
        }
        out.push({ assetId, stage, attempts: run.attempts });
        runs.set(run.stage, 'running');
      }
    }
    return out;
  }

  start(assetId: string, stage: IndexStageName): void {
    this.store.runs.markRunning(assetId, stage, clock.now());
  }

  /** Marks runs running, in one transaction. */
  startMany(runs: ReadonlyArray<{ assetId: string; stage: IndexStageName }>): void {
    const now = clock.now();
    this.store.transaction(() => {
      for (const r of runs) this.store.runs.markRunning(r.assetId, r.stage, now);
    });
  }

  requeue(assetId: string, stage: IndexStageName): void {
    this.store.runs.requeue(assetId, stage);
  }

  attempts(assetId: string, stage: IndexStageName): number | null {
    return this.store.runs.get(assetId, stage)?.attempts ?? null;
  }

  /** Records an outcome; an ok outcome's output is saved by the stage in the same transaction. */
  finish(assetId: string, stage: IndexStageName, outcome: StageOutcome): RunFinishedEvent {
    return this.finishMany([{ assetId, stage, outcome }])[0];
  }

  /**
   * Records outcomes in one transaction (each saved as `finish` saves it); the events follow the
   * commit. The saves run without a savepoint each (the full-text index writes out its pending
   * entries at every savepoint: measured, twice the time of the same entries written in one
   * transaction); should one throw, the whole transaction is rolled back and the outcomes recorded
   * again with a savepoint each, so that only that run fails. Among other outcomes, one of a stage
   * whose save changes more than the database has a savepoint from the start (no rollback of the
   * others' saves may undo its rows but not its other changes); alone, its rollback is its own.
   */
  finishMany(outcomes: ReadonlyArray<{ assetId: string; stage: IndexStageName; outcome: StageOutcome }>): RunFinishedEvent[] {
    const now = clock.now();
    const recordAll = (guarded: boolean) =>
      this.store.transaction(() => outcomes.map(({ assetId, stage, outcome }) => this.record(assetId, stage, outcome, now, guarded)));
    let events: RunFinishedEvent[] | null = null;
    if (outcomes.length === 1 || outcomes.every((o) => !STAGES[o.stage].savesBeyondDatabase)) {
      try {
        events = recordAll(false);
      } catch (err) {
        if (!(err instanceof SaveFailed)) throw err;
      }
    }
    events ??= recordAll(true);
    for (const event of events) this.emit('run-finished', event);
    return events;
  }

  /** `guarded`: the save in a savepoint of its own, its failure recorded; otherwise a failure throws SaveFailed. */
  private record(assetId: string, stage: IndexStageName, outcome: StageOutcome, now: number, guarded: boolean): RunFinishedEvent {
    const asset = this.store.assets.lifecycle(assetId);
    if (!asset) return { assetId, stage, state: outcome.state, assetCompleted: false, searchable: false, assetDeleted: true };
    const assetDeleted = asset.deleted_at !== null;
    const def = STAGES[stage];
    let final = outcome;
    if (outcome.state === 'ok' && def.save && asset.deleted_at === null) {
      if (!guarded) {
        try {
          def.save(this.store, assetId, outcome.output);
        } catch (err) {
          throw new SaveFailed(err);
        }
      } else {
        try {
          // Nested transaction = savepoint: a save that throws leaves none of its writes behind.
          this.store.transaction(() => def.save?.(this.store, assetId, outcome.output));
        } catch (err) {
          final = { state: 'failed', code: 'save_failed', reason: `save_failed: ${(err as Error).message}` };
        }
      }
    }
    const state = final.state;
    const code = final.state === 'failed' ? (final.code ?? codeOf(final.reason)) : undefined;
    this.store.runs.finish(assetId, stage, {
      state: final.state,
      code: code ?? null,
      reason: final.state === 'ok' ? null : final.reason,
      counts: final.state === 'ok' ? final.counts : {},
      details: final.state === 'not_applicable' ? null : (final.details ?? null),
      finishedAt: now,
    });
    const unfinished = this.store.runs.unfinished(assetId);
    const searchable = isPhaseOne(stage) && unfinished.phaseOne === 0;
    let assetCompleted = false;
    if (asset.status === 'processing' && unfinished.all === 0) {
      this.store.assets.setCompleted(assetId, now);
      assetCompleted = true;
    }
    const picturesDone =
      (stage === 'shots' || (VIDEO_PICTURE_STAGES as readonly string[]).includes(stage)) && this.store.runs.unfinishedOf(assetId, VIDEO_PICTURE_STAGES) === 0;
    return { assetId, stage, state, ...(code ? { code } : {}), assetCompleted, searchable, assetDeleted, ...(picturesDone ? { picturesDone } : {}) };
  }

  /** Wakes listeners once the caller's transaction has committed. */
  private wake(): void {
    if (this.wakeScheduled) return;
    this.wakeScheduled = true;
    setImmediate(() => {
      this.wakeScheduled = false;
      this.emit('work');
    });
  }
}
