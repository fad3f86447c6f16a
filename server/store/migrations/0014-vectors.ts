import type { Migration } from './index.ts';

// Dense search: one vector per embedded piece of evidence (a passage, a transcript window, the text
// seen in a frame, a caption), with where it sits. The id is the label in the model's HNSW file,
// never reused (AUTOINCREMENT), so the file can be brought up to date from the rows after a crash.
export const migration: Migration = {
  name: '0014-vectors',
  up: `
    CREATE TABLE vectors (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      asset_id TEXT NOT NULL REFERENCES assets(id) ON DELETE CASCADE,
      model TEXT NOT NULL,
      modality TEXT NOT NULL,
      timestamp REAL NOT NULL,
      page INTEGER,
      ref INTEGER,
      region_id TEXT,
      text TEXT NOT NULL,
      vector BLOB NOT NULL
    ) STRICT;
    CREATE INDEX vectors_asset ON vectors(asset_id, model);
    CREATE INDEX vectors_model ON vectors(model, id);
  `,
};
