import type { Migration } from './index.ts';

export const migration: Migration = {
  name: '0001-workspaces-and-keys',
  up: `
    CREATE TABLE workspaces (
      id TEXT PRIMARY KEY,
      name TEXT NOT NULL UNIQUE,
      index_options TEXT NOT NULL DEFAULT '{}',
      created_at INTEGER NOT NULL
    ) STRICT;

    CREATE TABLE api_keys (
      id TEXT PRIMARY KEY,
      workspace_id TEXT NOT NULL REFERENCES workspaces(id),
      secret_hash TEXT NOT NULL,
      scopes TEXT NOT NULL,
      access TEXT NOT NULL DEFAULT '[]',
      label TEXT,
      created_at INTEGER NOT NULL,
      expires_at INTEGER,
      revoked_at INTEGER,
      last_used_at INTEGER
    ) STRICT;
    CREATE INDEX api_keys_workspace ON api_keys(workspace_id);
  `,
};
