import type { Migration } from './index.ts';

// What extraction leaves for videos and photos: shots, frames on disk, thumbnail and audio track.
export const migration: Migration = {
  name: '0005-video-media',
  up: `
    CREATE TABLE shots (
      asset_id TEXT NOT NULL REFERENCES assets(id) ON DELETE CASCADE,
      idx INTEGER NOT NULL,
      start_s REAL NOT NULL,
      end_s REAL NOT NULL,
      keyframe_s REAL NOT NULL,
      PRIMARY KEY (asset_id, idx)
    ) STRICT;

    CREATE TABLE frames (
      asset_id TEXT NOT NULL REFERENCES assets(id) ON DELETE CASCADE,
      kind TEXT NOT NULL CHECK (kind IN ('keyframe', 'frame')),
      timestamp REAL NOT NULL,
      path TEXT NOT NULL,
      width INTEGER NOT NULL,
      height INTEGER NOT NULL,
      shot INTEGER,
      PRIMARY KEY (asset_id, kind, timestamp)
    ) STRICT;

    CREATE TABLE asset_media (
      asset_id TEXT PRIMARY KEY REFERENCES assets(id) ON DELETE CASCADE,
      thumbnail_path TEXT,
      audio_path TEXT,
      audio_duration_s REAL,
      audio_sample_rate INTEGER
    ) STRICT;
  `,
};
