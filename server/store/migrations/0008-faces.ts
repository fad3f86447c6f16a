import type { Migration } from './index.ts';

// What the faces stage knows of each face region: embedding (1024 float32), quality and its parts,
// pose, landmarks and expression. People (a later concern) group these.
export const migration: Migration = {
  name: '0008-faces',
  up: `
    CREATE TABLE faces (
      id TEXT PRIMARY KEY REFERENCES regions(id) ON DELETE CASCADE,
      asset_id TEXT NOT NULL REFERENCES assets(id) ON DELETE CASCADE,
      timestamp REAL NOT NULL,
      embedding BLOB NOT NULL,
      quality REAL NOT NULL,
      good INTEGER NOT NULL CHECK (good IN (0, 1)),
      size_px INTEGER NOT NULL,
      sharpness REAL NOT NULL,
      pose TEXT NOT NULL,
      landmarks TEXT NOT NULL,
      emotion TEXT,
      emotion_score REAL,
      emotions TEXT NOT NULL
    ) STRICT;
    CREATE INDEX faces_asset ON faces(asset_id, timestamp);
    CREATE INDEX faces_good ON faces(good);
  `,
};
