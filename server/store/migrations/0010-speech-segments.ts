import type { Migration } from './index.ts';

// Where people speak in a video's audio (voice activity); seeds transcript and speakers.
export const migration: Migration = {
  name: '0010-speech-segments',
  up: `
    CREATE TABLE speech_segments (
      asset_id TEXT NOT NULL REFERENCES assets(id) ON DELETE CASCADE,
      idx INTEGER NOT NULL,
      start_s REAL NOT NULL,
      end_s REAL NOT NULL,
      PRIMARY KEY (asset_id, idx)
    ) STRICT;
  `,
};
