import type { Migration } from './index.ts';

// One row per (asset, stage): the stage's version, state and report. The indexing queue is the
// query "pending rows whose dependencies are finished"; re-running a stage is a row reset.
export const migration: Migration = {
  name: '0003-stage-runs',
  up: `
    CREATE TABLE stage_runs (
      asset_id TEXT NOT NULL REFERENCES assets(id) ON DELETE CASCADE,
      stage TEXT NOT NULL,
      version INTEGER NOT NULL,
      state TEXT NOT NULL CHECK (state IN ('pending', 'running', 'ok', 'off', 'not_applicable', 'failed')),
      reason TEXT,
      counts TEXT NOT NULL DEFAULT '{}',
      details TEXT,
      attempts INTEGER NOT NULL DEFAULT 0,
      queued_at INTEGER NOT NULL,
      started_at INTEGER,
      finished_at INTEGER,
      duration_ms INTEGER,
      PRIMARY KEY (asset_id, stage)
    ) STRICT;
    CREATE INDEX stage_runs_state ON stage_runs(state);
  `,
};
