import type { Migration } from './index.ts';

// Libraries: folders on the owner's drives indexed in place and kept in sync. One row per file or
// folder the library knows (indexed, waiting to settle, refused or unreadable) with the size,
// modification time and content hash last seen; an asset remembers the library it came from.
export const migration: Migration = {
  name: '0017-libraries',
  up: `
    CREATE TABLE libraries (
      id TEXT PRIMARY KEY,
      workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
      path TEXT NOT NULL,
      exclude TEXT NOT NULL DEFAULT '[]',
      status TEXT NOT NULL CHECK (status IN ('scanning', 'watching', 'offline', 'error')),
      error TEXT,
      created_at INTEGER NOT NULL,
      last_scan_at INTEGER,
      UNIQUE (workspace_id, path)
    ) STRICT;

    CREATE TABLE library_files (
      library_id TEXT NOT NULL REFERENCES libraries(id) ON DELETE CASCADE,
      rel_path TEXT NOT NULL,
      size INTEGER NOT NULL,
      mtime_ms INTEGER NOT NULL,
      sha256 TEXT,
      asset_id TEXT REFERENCES assets(id) ON DELETE SET NULL,
      state TEXT NOT NULL CHECK (state IN ('indexed', 'refused', 'unreadable')),
      reason TEXT,
      PRIMARY KEY (library_id, rel_path)
    ) STRICT;
    CREATE INDEX library_files_asset ON library_files(asset_id) WHERE asset_id IS NOT NULL;
    CREATE INDEX library_files_sha256 ON library_files(sha256) WHERE sha256 IS NOT NULL;
    CREATE INDEX library_files_problems ON library_files(library_id, state) WHERE state != 'indexed';

    ALTER TABLE assets ADD COLUMN library_id TEXT REFERENCES libraries(id) ON DELETE SET NULL;
    CREATE INDEX assets_library ON assets(library_id) WHERE library_id IS NOT NULL AND deleted_at IS NULL;
    CREATE INDEX assets_library_processing ON assets(library_id) WHERE library_id IS NOT NULL AND deleted_at IS NULL AND status = 'processing';
  `,
};
