import type { Migration } from './index.ts';

// Timed transcript of a video's speech; `speaker` is filled by the speakers stage.
export const migration: Migration = {
  name: '0011-transcript-segments',
  up: `
    CREATE TABLE transcript_segments (
      asset_id TEXT NOT NULL REFERENCES assets(id) ON DELETE CASCADE,
      idx INTEGER NOT NULL,
      start_s REAL NOT NULL,
      end_s REAL NOT NULL,
      text TEXT NOT NULL,
      speaker TEXT,
      PRIMARY KEY (asset_id, idx)
    ) STRICT;
  `,
};
