import type { Migration } from './index.ts';

// The queue at the scale of a library of 100,000 files:
//   - only unfinished runs are indexed (most rows are settled, and indexing them slowed every insert);
//   - the assets still processing are indexed in the order the queue takes them;
//   - an asset found in a library is admitted with its runs not yet written (`runs_planned` 0):
//     the queue writes them when it reaches the asset, so a folder is taken in at the speed of one
//     row per file, not fourteen.
export const migration: Migration = {
  name: '0018-queue-at-scale',
  up: `
    DROP INDEX stage_runs_state;
    CREATE INDEX stage_runs_pending ON stage_runs(asset_id) WHERE state = 'pending';
    CREATE INDEX stage_runs_running ON stage_runs(asset_id) WHERE state = 'running';
    CREATE INDEX assets_processing ON assets(created_at, id) WHERE status = 'processing' AND deleted_at IS NULL;
    ALTER TABLE assets ADD COLUMN runs_planned INTEGER NOT NULL DEFAULT 1 CHECK (runs_planned IN (0, 1));
    CREATE INDEX assets_unplanned ON assets(created_at, id) WHERE runs_planned = 0 AND deleted_at IS NULL;
  `,
};
