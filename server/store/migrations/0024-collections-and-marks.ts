import type { Migration } from './index.ts';

// Collections (albums): a workspace's named sets of the assets it sees; an asset may be in many.
// Marks: a workspace's own favourite and rating of an asset, kept in the index (the user's files
// are never written). Index pauses: workspaces whose indexing the owner paused (kept across restarts).
export const migration: Migration = {
  name: '0024-collections-and-marks',
  up: `
    CREATE TABLE collections (
      id TEXT PRIMARY KEY,
      workspace_id TEXT NOT NULL REFERENCES workspaces(id),
      name TEXT NOT NULL,
      description TEXT,
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL
    ) STRICT;
    CREATE INDEX collections_workspace ON collections(workspace_id, name);

    CREATE TABLE collection_assets (
      collection_id TEXT NOT NULL REFERENCES collections(id) ON DELETE CASCADE,
      asset_id TEXT NOT NULL REFERENCES assets(id) ON DELETE CASCADE,
      added_at INTEGER NOT NULL,
      PRIMARY KEY (collection_id, asset_id)
    ) STRICT, WITHOUT ROWID;
    CREATE INDEX collection_assets_asset ON collection_assets(asset_id, collection_id);

    CREATE TABLE asset_marks (
      workspace_id TEXT NOT NULL REFERENCES workspaces(id),
      asset_id TEXT NOT NULL REFERENCES assets(id) ON DELETE CASCADE,
      favorite INTEGER NOT NULL DEFAULT 0 CHECK (favorite IN (0, 1)),
      rating INTEGER CHECK (rating BETWEEN 0 AND 5),
      updated_at INTEGER NOT NULL,
      PRIMARY KEY (asset_id, workspace_id)
    ) STRICT, WITHOUT ROWID;

    CREATE TABLE index_pauses (
      workspace_id TEXT PRIMARY KEY REFERENCES workspaces(id),
      paused_at INTEGER NOT NULL
    ) STRICT;
  `,
};
