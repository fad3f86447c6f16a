import type { Migration } from './index.ts';

// Indexing in two phases (decision 0032): the queue looks for the assets with a pending run of phase
// 1 (extract, metadata) before any other work, and a library counts the assets still in it. The
// runs of phase 1 still pending are few (new files) while a large folder is enriched; their own
// index keeps that look from walking every asset in phase 2.
export const migration: Migration = {
  name: '0029-phase-one-queue',
  up: `
    CREATE INDEX stage_runs_pending_phase_one ON stage_runs(asset_id) WHERE state = 'pending' AND stage IN ('extract', 'metadata');
  `,
};
