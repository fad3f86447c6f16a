import type { Migration } from './index.ts';

// Failed runs found without reading every run: what indexing is doing (GET /index/activity, asked
// by the app on every start) counted a workspace's failures by reading each of its assets' runs
// (1.3–1.7 s at 100,000 assets); failures are few, and now indexed apart.
export const migration: Migration = {
  name: '0025-failed-runs',
  up: `
    CREATE INDEX stage_runs_failed ON stage_runs(asset_id, stage) WHERE state = 'failed';
  `,
};
