import type { Migration } from './index.ts';

// What files say about themselves (the metadata stage): the whole reading as JSON, and apart the
// values search filters and orders by; the face regions other tools named (XMP), for People.
export const migration: Migration = {
  name: '0019-asset-metadata',
  up: `
    CREATE TABLE asset_metadata (
      asset_id TEXT PRIMARY KEY REFERENCES assets(id) ON DELETE CASCADE,
      data TEXT NOT NULL,
      taken_at TEXT,
      taken_ms INTEGER,
      taken_source TEXT,
      lat REAL,
      lon REAL,
      city TEXT,
      region TEXT,
      country TEXT,
      country_code TEXT,
      camera TEXT,
      rating INTEGER
    ) STRICT;
    CREATE INDEX asset_metadata_taken ON asset_metadata(taken_ms);
    CREATE INDEX asset_metadata_country ON asset_metadata(country_code);

    CREATE TABLE named_regions (
      asset_id TEXT NOT NULL REFERENCES assets(id) ON DELETE CASCADE,
      idx INTEGER NOT NULL,
      name TEXT NOT NULL,
      x REAL NOT NULL,
      y REAL NOT NULL,
      w REAL NOT NULL,
      h REAL NOT NULL,
      source TEXT NOT NULL,
      PRIMARY KEY (asset_id, idx)
    ) STRICT;
  `,
};
