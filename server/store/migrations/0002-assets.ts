import type { Migration } from './index.ts';

export const migration: Migration = {
  name: '0002-assets',
  up: `
    CREATE TABLE assets (
      id TEXT PRIMARY KEY,
      workspace_id TEXT NOT NULL REFERENCES workspaces(id),
      kind TEXT NOT NULL CHECK (kind IN ('video', 'image', 'document')),
      file_name TEXT NOT NULL,
      ext TEXT NOT NULL,
      stored_path TEXT NOT NULL,
      linked INTEGER NOT NULL DEFAULT 0 CHECK (linked IN (0, 1)),
      mime_type TEXT,
      size_bytes INTEGER NOT NULL,
      sha256 TEXT NOT NULL,
      pipeline TEXT NOT NULL,
      engine TEXT NOT NULL CHECK (engine IN ('arrow', 'classic')),
      gen1_tier TEXT,
      index_options TEXT,
      status TEXT NOT NULL CHECK (status IN ('processing', 'completed')),
      page_count INTEGER,
      duration_s REAL,
      width INTEGER,
      height INTEGER,
      created_at INTEGER NOT NULL,
      completed_at INTEGER,
      deleted_at INTEGER
    ) STRICT;
    CREATE INDEX assets_workspace ON assets(workspace_id, deleted_at, created_at);
    CREATE INDEX assets_deleted ON assets(deleted_at) WHERE deleted_at IS NOT NULL;

    CREATE TABLE asset_shares (
      asset_id TEXT NOT NULL REFERENCES assets(id) ON DELETE CASCADE,
      workspace_id TEXT NOT NULL REFERENCES workspaces(id),
      created_at INTEGER NOT NULL,
      PRIMARY KEY (asset_id, workspace_id)
    ) STRICT;
    CREATE INDEX asset_shares_workspace ON asset_shares(workspace_id);
  `,
};
