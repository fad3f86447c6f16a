import type { Migration } from './index.ts';

// Read-only (demo) workspaces (SPEC 5.7): their keys read and search; every write is refused.
export const migration: Migration = {
  name: '0021-read-only-workspaces',
  up: `
    ALTER TABLE workspaces ADD COLUMN read_only INTEGER NOT NULL DEFAULT 0 CHECK (read_only IN (0, 1));
  `,
};
