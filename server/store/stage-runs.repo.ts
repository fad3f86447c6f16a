import { insertRows, statementCache, type DB } from './db.ts';
import { PHASE_ONE_STAGES } from '../contract/assets.ts';
import { LASTING_FAILURE_CODES, mayClearOnRetry } from '../contract/stages.ts';
import { clock } from './ids.ts';

export type RunState = 'pending' | 'running' | 'ok' | 'off' | 'not_applicable' | 'failed';
/** A failed run that is a failure (not a stage waiting for an optional model: it runs once the model is pulled), on a run `r`. */
export const REAL_FAILURE = "r.state = 'failed' AND coalesce(r.code, '') != 'model_not_installed'";
/** The code of a run that did not run because a run it needs failed. */
export const DEPENDENCY_FAILED = 'dependency_failed';
/** A failed run (`r.`) that failed of itself with a failure another try may clear (contract/stages.ts). */
const MAY_CLEAR = `coalesce(r.code, '') NOT IN (${[...LASTING_FAILURE_CODES, DEPENDENCY_FAILED].map((c) => `'${c}'`).join(', ')})`;

/** A run that failed of itself: its stage, why, and whether another try may end otherwise. */
export interface FailureCause {
  stage: string;
  code: string | null;
  reason: string | null;
  retryable: boolean;
}

/** A run of a phase 1 stage (decision 0032), on a run `stage` column (or `r.stage` with `r.` before it). */
export const PHASE_ONE_STAGE = `stage IN (${PHASE_ONE_STAGES.map((st) => `'${st}'`).join(', ')})`;
/** A pending run of phase 1, written as migration 0029's index is, so that SQLite uses it. */
export const PENDING_PHASE_ONE = `state = 'pending' AND ${PHASE_ONE_STAGE}`;

export const TERMINAL_STATES: readonly RunState[] = ['ok', 'off', 'not_applicable', 'failed'];

export interface StageRunRow {
  asset_id: string;
  stage: string;
  version: number;
  state: RunState;
  /** A failed run's stable code (model_not_installed, file_changed, timeout…); null otherwise. */
  code: string | null;
  reason: string | null;
  counts: string;
  details: string | null;
  attempts: number;
  queued_at: number;
  started_at: number | null;
  finished_at: number | null;
  duration_ms: number | null;
}

export interface RunFinish {
  state: Exclude<RunState, 'pending' | 'running'>;
  code: string | null;
  reason: string | null;
  counts: Record<string, number>;
  details: Record<string, unknown> | null;
  finishedAt: number;
}

/** What the queue reads of a run to hand it out (a look at the queue reads hundreds). */
export type QueuedRun = Pick<StageRunRow, 'asset_id' | 'stage' | 'state' | 'attempts'>;

/** A stage run's columns, in the order `insertRuns` gives their values. */
const RUN_COLUMNS = [
  'asset_id',
  'stage',
  'version',
  'state',
  'code',
  'reason',
  'counts',
  'details',
  'attempts',
  'queued_at',
  'started_at',
  'finished_at',
  'duration_ms',
] as const satisfies ReadonlyArray<keyof StageRunRow>;

/** Inserts runs in a few statements (`sql`: the calling repository's statements). */
export function insertRuns(sql: ReturnType<typeof statementCache>, rows: readonly StageRunRow[]): void {
  insertRows(
    sql,
    'stage_runs',
    RUN_COLUMNS,
    rows.map((r) => RUN_COLUMNS.map((c) => r[c] ?? null)),
  );
}

export class StageRunsRepo {
  /** The queue runs these statements for every run it hands out and records: each is prepared once. */
  private readonly sql: ReturnType<typeof statementCache>;

  constructor(private readonly db: DB) {
    this.sql = statementCache(db);
  }

  forAsset(assetId: string): StageRunRow[] {
    return this.sql('SELECT * FROM stage_runs WHERE asset_id = ? ORDER BY rowid').all(assetId) as StageRunRow[];
  }

  get(assetId: string, stage: string): StageRunRow | undefined {
    return this.sql('SELECT * FROM stage_runs WHERE asset_id = ? AND stage = ?').get(assetId, stage) as StageRunRow | undefined;
  }

  /** All runs of the oldest assets that still have pending work (live assets only): what the queue needs of each. */
  runsOfAssetsWithPendingWork(maxAssets: number, pausedWorkspaces: readonly string[] = []): QueuedRun[] {
    return this.sql(
      `WITH waiting AS (
           SELECT a.id, a.created_at FROM assets a
           WHERE a.status = 'processing' AND a.deleted_at IS NULL
             AND a.workspace_id NOT IN (SELECT value FROM json_each(@paused))
             AND EXISTS (SELECT 1 FROM stage_runs r WHERE r.asset_id = a.id AND r.state = 'pending')
           ORDER BY a.created_at, a.id LIMIT @max)
         SELECT r.asset_id, r.stage, r.state, r.attempts FROM stage_runs r JOIN waiting w ON w.id = r.asset_id ORDER BY w.created_at, w.id, r.rowid`,
    ).all({ paused: JSON.stringify(pausedWorkspaces), max: maxAssets }) as QueuedRun[];
  }

  /**
   * The phase 1 runs of the oldest assets with a pending run of phase 1 (decision 0032; the queue
   * reads their other runs when it looks further). Found by walking the index of those runs
   * (migration 0029) in the order of their assets' ids, which are made from the time each asset was
   * admitted (ids.ts), and stopping at `maxAssets`: a few rows read whether a few new files wait in
   * phase 1 or thousands (ordering them by `created_at` sorted them all at each look).
   */
  runsOfAssetsInPhaseOne(maxAssets: number, pausedWorkspaces: readonly string[] = []): QueuedRun[] {
    return this.sql(
      `WITH waiting AS (
           SELECT a.id FROM stage_runs p INDEXED BY stage_runs_pending_phase_one CROSS JOIN assets a ON a.id = p.asset_id
           WHERE p.${PENDING_PHASE_ONE}
             AND a.status = 'processing' AND a.deleted_at IS NULL
             AND a.workspace_id NOT IN (SELECT value FROM json_each(@paused))
           GROUP BY p.asset_id ORDER BY p.asset_id LIMIT @max)
         SELECT r.asset_id, r.stage, r.state, r.attempts FROM waiting w CROSS JOIN stage_runs r ON r.asset_id = w.id
         WHERE r.${PHASE_ONE_STAGE} ORDER BY w.id, r.rowid`,
    ).all({ paused: JSON.stringify(pausedWorkspaces), max: maxAssets }) as QueuedRun[];
  }

  /** How many assets (up to `limit`) have pending runs; with `phaseOne`, pending runs of phase 1. */
  pendingAssets(limit: number, phaseOne = false): number {
    const where = phaseOne ? PENDING_PHASE_ONE : "state = 'pending'";
    return (this.sql(`SELECT COUNT(*) AS n FROM (SELECT DISTINCT asset_id FROM stage_runs WHERE ${where} LIMIT ?)`).get(limit) as { n: number }).n;
  }

  markRunning(assetId: string, stage: string, at: number): void {
    this.sql("UPDATE stage_runs SET state = 'running', started_at = ?, attempts = attempts + 1 WHERE asset_id = ? AND stage = ? AND state = 'pending'").run(
      at,
      assetId,
      stage,
    );
  }

  finish(assetId: string, stage: string, f: RunFinish): void {
    this.sql(
      `UPDATE stage_runs SET state = @state, code = @code, reason = @reason, counts = @counts, details = @details,
           finished_at = @finishedAt, duration_ms = CASE WHEN started_at IS NULL THEN 0 ELSE @finishedAt - started_at END
         WHERE asset_id = @assetId AND stage = @stage`,
    ).run({
      assetId,
      stage,
      state: f.state,
      code: f.code,
      reason: f.reason,
      counts: JSON.stringify(f.counts),
      details: f.details ? JSON.stringify(f.details) : null,
      finishedAt: f.finishedAt,
    });
  }

  /** Replaces the rows of some stages (a re-index of those stages). */
  replace(rows: StageRunRow[]): void {
    const del = this.sql('DELETE FROM stage_runs WHERE asset_id = ? AND stage = ?');
    for (const r of rows) del.run(r.asset_id, r.stage);
    insertRuns(this.sql, rows);
  }

  requeue(assetId: string, stage: string): void {
    this.sql("UPDATE stage_runs SET state = 'pending', started_at = NULL WHERE asset_id = ? AND stage = ?").run(assetId, stage);
  }

  /** Runs of live assets that failed with this code (`no_space`: the disk was full). */
  failedWith(code: string): Array<{ asset_id: string; stage: string }> {
    return this.sql(
      `SELECT r.asset_id, r.stage FROM stage_runs r JOIN assets a ON a.id = r.asset_id AND a.deleted_at IS NULL
         WHERE r.state = 'failed' AND r.code = ?`,
    ).all(code) as Array<{ asset_id: string; stage: string }>;
  }

  /** Assets (not deleted) with runs of these stages that failed for want of a model. */
  waitingForModels(stages: readonly string[]): Array<{ asset_id: string; stage: string }> {
    if (stages.length === 0) return [];
    return this.sql(
      `SELECT r.asset_id, r.stage FROM stage_runs r JOIN assets a ON a.id = r.asset_id AND a.deleted_at IS NULL
         WHERE r.state = 'failed' AND r.code = 'model_not_installed' AND r.stage IN (${stages.map(() => '?').join(',')})`,
    ).all(...stages) as Array<{ asset_id: string; stage: string }>;
  }

  /**
   * Finished runs of a stage whose details do not name `model` as a value or key of their own (a
   * JSON string starting with it: "model_not_installed: NAME" does not count) — it was not
   * installed then.
   */
  okWithout(stage: string, model: string, kinds?: readonly string[]): Array<{ asset_id: string; stage: string }> {
    return this.sql(
      `SELECT r.asset_id, r.stage FROM stage_runs r JOIN assets a ON a.id = r.asset_id AND a.deleted_at IS NULL
         WHERE r.state = 'ok' AND r.stage = ? AND instr(coalesce(r.details, ''), '"' || ?) = 0
           AND (? IS NULL OR a.kind IN (SELECT value FROM json_each(?)))`,
    ).all(stage, model, kinds ? 1 : null, JSON.stringify(kinds ?? [])) as Array<{ asset_id: string; stage: string }>;
  }

  /** Live assets of a library with a run that failed because the file was not there (its drive was away). */
  failedForMissingFile(libraryId: string): string[] {
    return (
      this.sql(
        `SELECT DISTINCT r.asset_id FROM stage_runs r JOIN assets a ON a.id = r.asset_id AND a.deleted_at IS NULL
           WHERE a.library_id = ? AND r.state = 'failed' AND r.code = 'file_missing'`,
      ).all(libraryId) as Array<{ asset_id: string }>
    ).map((r) => r.asset_id);
  }

  /** After a crash or restart: every run left `running` goes back to the queue. */
  requeueAllRunning(): number {
    return this.sql("UPDATE stage_runs SET state = 'pending', started_at = NULL WHERE state = 'running'").run().changes;
  }

  /**
   * Per stage, its last run that did its work (state ok, by a process): when, and the execution
   * provider and model its details name (null where the stage does not run ONNX models).
   */
  lastRunsByStage(): Array<{ stage: string; finished_at: number; provider: string | null; model: string | null }> {
    return this.sql(
      `SELECT stage, MAX(finished_at) AS finished_at, json_extract(details, '$.provider') AS provider, json_extract(details, '$.model') AS model
         FROM stage_runs WHERE state = 'ok' AND attempts > 0 AND finished_at IS NOT NULL GROUP BY stage ORDER BY stage`,
    ).all() as Array<{ stage: string; finished_at: number; provider: string | null; model: string | null }>;
  }

  /** An asset's runs pending or running: all of them, and those of phase 1 (one look, as a run is recorded). */
  unfinished(assetId: string): { all: number; phaseOne: number } {
    const r = this.sql(
      `SELECT COUNT(*) AS all_runs, COUNT(*) FILTER (WHERE ${PHASE_ONE_STAGE}) AS phase_one FROM stage_runs
         WHERE asset_id = ? AND state IN ('pending', 'running')`,
    ).get(assetId) as { all_runs: number; phase_one: number };
    return { all: r.all_runs, phaseOne: r.phase_one };
  }

  /** How many of an asset's runs of these stages are still to run or running. */
  unfinishedOf(assetId: string, stages: readonly string[]): number {
    const r = this.sql(
      `SELECT COUNT(*) AS n FROM stage_runs WHERE asset_id = ? AND state IN ('pending', 'running') AND stage IN (${stages.map(() => '?').join(', ')})`,
    ).get(assetId, ...stages) as { n: number };
    return r.n;
  }

  /** Videos none of whose runs of `stages` is left to run (neither pending nor running). */
  videosWithNoneUnfinished(stages: readonly string[]): string[] {
    return (
      this.sql(
        `SELECT a.id FROM assets a WHERE a.kind = 'video'
           AND NOT EXISTS (SELECT 1 FROM stage_runs r WHERE r.asset_id = a.id AND r.state IN ('pending', 'running') AND r.stage IN (${stages.map(() => '?').join(', ')}))`,
      ).all(...stages) as Array<{ id: string }>
    ).map((r) => r.id);
  }

  /** Assets left `processing` although every run is finished (a crash between the two writes). */
  assetsToComplete(): string[] {
    return (
      this.sql(
        `SELECT a.id FROM assets a WHERE a.status = 'processing' AND a.deleted_at IS NULL AND a.runs_planned = 1
             AND NOT EXISTS (SELECT 1 FROM stage_runs r WHERE r.asset_id = a.id AND r.state IN ('pending', 'running'))`,
      ).all() as Array<{ id: string }>
    ).map((r) => r.id);
  }

  /** A workspace's indexing at a glance: its assets done of all, runs to come by stage, failed runs (newest first). */
  activity(workspaceId: string, maxFailed: number) {
    // Counted from indexes alone: all of the workspace's, and those processing (an asset is
    // processing or completed).
    const { total } = this.sql('SELECT COUNT(*) AS total FROM assets WHERE workspace_id = ? AND deleted_at IS NULL').get(workspaceId) as {
      total: number;
    };
    // (`+workspace_id`: from the index of processing assets, not by reading all of the workspace's.)
    const { processing } = this.sql("SELECT COUNT(*) AS processing FROM assets WHERE status = 'processing' AND deleted_at IS NULL AND +workspace_id = ?").get(
      workspaceId,
    ) as { processing: number };
    const assets = { total, done: total - processing, processing };
    // Each count starts from the few runs it counts (pending, running and failed runs are indexed
    // apart), then looks up their assets: CROSS JOIN keeps that order.
    const of = (state: 'pending' | 'running') =>
      this.sql(
        `SELECT r.stage, COUNT(*) AS n FROM stage_runs r CROSS JOIN assets a ON a.id = r.asset_id
           WHERE r.state = '${state}' AND a.workspace_id = ? AND a.deleted_at IS NULL AND a.status = 'processing' GROUP BY r.stage`,
      ).all(workspaceId) as Array<{ stage: string; n: number }>;
    const byStage = new Map<string, { stage: string; pending: number; running: number }>();
    for (const state of ['pending', 'running'] as const)
      for (const { stage, n } of of(state)) {
        const s = byStage.get(stage) ?? { stage, pending: 0, running: 0 };
        s[state] = n;
        byStage.set(stage, s);
      }
    const stages = [...byStage.values()].sort((a, b) => a.stage.localeCompare(b.stage));
    // A stage whose optional model is not installed did not fail: it waits for `models pull` (counted apart).
    const failedWhere = `FROM stage_runs r CROSS JOIN assets a ON a.id = r.asset_id WHERE r.state = 'failed' AND a.workspace_id = ? AND a.deleted_at IS NULL AND ${REAL_FAILURE}`;
    const { count } = this.sql(`SELECT COUNT(*) AS count ${failedWhere}`).get(workspaceId) as { count: number };
    const { waiting } = this.sql(
      `SELECT COUNT(DISTINCT r.asset_id) AS waiting FROM stage_runs r CROSS JOIN assets a ON a.id = r.asset_id
         WHERE r.state = 'failed' AND r.code = 'model_not_installed' AND a.workspace_id = ? AND a.deleted_at IS NULL`,
    ).get(workspaceId) as { waiting: number };
    const items = this.sql(
      `SELECT a.id AS video_id, a.file_name, r.stage, r.reason, r.finished_at ${failedWhere} ORDER BY r.finished_at DESC, a.id, r.stage LIMIT ?`,
    ).all(workspaceId, maxFailed) as Array<{ video_id: string; file_name: string; stage: string; reason: string | null; finished_at: number | null }>;
    // By asset: the newest assets with a failed run, each with its runs that failed of themselves and
    // those left unrun by an earlier failure.
    const { failedAssets } = this.sql(`SELECT COUNT(DISTINCT r.asset_id) AS failedAssets ${failedWhere}`).get(workspaceId) as { failedAssets: number };
    const { retryable } = this.sql(`SELECT COUNT(DISTINCT r.asset_id) AS retryable ${failedWhere} AND ${MAY_CLEAR}`).get(workspaceId) as { retryable: number };
    const newest = this.sql(
      `SELECT a.id AS video_id, a.file_name, MAX(r.finished_at) AS finished_at ${failedWhere} GROUP BY a.id ORDER BY MAX(r.finished_at) DESC, a.id LIMIT ?`,
    ).all(workspaceId, maxFailed) as Array<{ video_id: string; file_name: string; finished_at: number | null }>;
    const failures = this.failures(newest.map((f) => f.video_id));
    const files = newest.map((f) => ({ ...f, ...failures.get(f.video_id)! }));
    return { assets, stages, failed: { count, items, assets: failedAssets, retryable, files }, waiting_for_models: waiting };
  }

  /**
   * Each asset's failed runs (not those waiting for a model), read together: those that failed of
   * themselves, with why, and the stages that did not run because one of those failed.
   */
  failures(assetIds: string[]): Map<string, { causes: FailureCause[]; not_run: string[] }> {
    const out = new Map(assetIds.map((id) => [id, { causes: [] as FailureCause[], not_run: [] as string[] }]));
    if (assetIds.length === 0) return out;
    const runs = this.db
      .prepare(
        `SELECT r.asset_id, r.stage, r.code, r.reason FROM stage_runs r WHERE r.asset_id IN (${assetIds.map(() => '?').join(',')}) AND ${REAL_FAILURE} ORDER BY r.finished_at, r.stage`,
      )
      .all(...assetIds) as Array<{ asset_id: string; stage: string; code: string | null; reason: string | null }>;
    for (const { asset_id, ...run } of runs) {
      const f = out.get(asset_id)!;
      if (run.code === DEPENDENCY_FAILED) f.not_run.push(run.stage);
      else f.causes.push({ ...run, retryable: mayClearOnRetry(run.code) });
    }
    return out;
  }

  /** Of these assets, those read only in part (a copy cut short): why, as their extraction (a video's `shots`) said it (`details.damaged`). */
  readInPart(assetIds: string[]): Map<string, string> {
    const out = new Map<string, string>();
    for (let i = 0; i < assetIds.length; i += 500) {
      const ids = assetIds.slice(i, i + 500);
      const rows = this.db
        .prepare(
          `SELECT asset_id, json_extract(details, '$.damaged') AS damaged FROM stage_runs
             WHERE stage IN ('extract', 'shots') AND state = 'ok' AND asset_id IN (${ids.map(() => '?').join(',')}) AND json_extract(details, '$.damaged') IS NOT NULL`,
        )
        .all(...ids) as Array<{ asset_id: string; damaged: string }>;
      for (const r of rows) out.set(r.asset_id, r.damaged);
    }
    return out;
  }

  /** How many runs of these assets wait for a model (failed with `model_not_installed`). */
  waitingForModelsOf(assetIds: string[]): number {
    let n = 0;
    for (let i = 0; i < assetIds.length; i += 500) {
      const ids = assetIds.slice(i, i + 500);
      n += (
        this.db
          .prepare(
            `SELECT count(*) AS n FROM stage_runs WHERE state = 'failed' AND code = 'model_not_installed' AND asset_id IN (${ids.map(() => '?').join(',')})`,
          )
          .get(...ids) as { n: number }
      ).n;
    }
    return n;
  }

  /** The failed runs of a workspace's live assets (not those waiting for a model: they run once it is pulled). */
  failedOfWorkspace(workspaceId: string): Array<{ asset_id: string; stage: string; code: string | null }> {
    return this.sql(
      `SELECT r.asset_id, r.stage, r.code FROM stage_runs r CROSS JOIN assets a ON a.id = r.asset_id
         WHERE r.state = 'failed' AND a.workspace_id = ? AND a.deleted_at IS NULL AND ${REAL_FAILURE}`,
    ).all(workspaceId) as Array<{ asset_id: string; stage: string; code: string | null }>;
  }

  /** Workspaces whose owner paused their indexing (POST /index/pause): their assets' runs wait. */
  pausedWorkspaces(): string[] {
    return (this.sql('SELECT workspace_id FROM index_pauses').all() as Array<{ workspace_id: string }>).map((r) => r.workspace_id);
  }

  setPaused(workspaceId: string, paused: boolean): void {
    if (paused) this.sql('INSERT OR IGNORE INTO index_pauses (workspace_id, paused_at) VALUES (?, ?)').run(workspaceId, clock.now());
    else this.sql('DELETE FROM index_pauses WHERE workspace_id = ?').run(workspaceId);
  }
}
