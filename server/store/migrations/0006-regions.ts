import type { Migration } from './index.ts';

// Boxes held for a frame or page (SPEC 2.5): objects, faces and text lines, keyed by timestamp
// (a document page k at k - 1). The stage that wrote a region owns it and replaces it on re-run.
export const migration: Migration = {
  name: '0006-regions',
  up: `
    CREATE TABLE regions (
      id TEXT PRIMARY KEY,
      asset_id TEXT NOT NULL REFERENCES assets(id) ON DELETE CASCADE,
      timestamp REAL NOT NULL,
      kind TEXT NOT NULL CHECK (kind IN ('object', 'face', 'text')),
      x REAL NOT NULL,
      y REAL NOT NULL,
      w REAL NOT NULL,
      h REAL NOT NULL,
      label TEXT,
      text TEXT,
      confidence REAL,
      quality REAL,
      person_id TEXT,
      source TEXT NOT NULL,
      stage TEXT NOT NULL
    ) STRICT;
    CREATE INDEX regions_asset_time ON regions(asset_id, timestamp);
    CREATE INDEX regions_asset_stage ON regions(asset_id, stage);
  `,
};
