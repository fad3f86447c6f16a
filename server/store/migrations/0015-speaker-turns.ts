import type { Migration } from './index.ts';

// Who spoke when in a video (the speakers stage): turns of anonymous speakers numbered from 1.
export const migration: Migration = {
  name: '0015-speaker-turns',
  up: `
    CREATE TABLE speaker_turns (
      asset_id TEXT NOT NULL REFERENCES assets(id) ON DELETE CASCADE,
      idx INTEGER NOT NULL,
      speaker INTEGER NOT NULL,
      start_s REAL NOT NULL,
      end_s REAL NOT NULL,
      PRIMARY KEY (asset_id, idx)
    ) STRICT;
  `,
};
