import type { Migration } from './index.ts';

// People of a workspace, which face is whose (and who decided), and the owner's "not them" and
// "split out" decisions, which every later grouping honours.
export const migration: Migration = {
  name: '0012-people',
  up: `
    CREATE TABLE people (
      id TEXT PRIMARY KEY,
      workspace_id TEXT NOT NULL REFERENCES workspaces(id),
      name TEXT NOT NULL DEFAULT '',
      hidden INTEGER NOT NULL DEFAULT 0 CHECK (hidden IN (0, 1)),
      cover_face_id TEXT REFERENCES faces(id) ON DELETE SET NULL,
      merged_into TEXT REFERENCES people(id),
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL
    ) STRICT;
    CREATE INDEX people_workspace ON people(workspace_id, merged_into);

    CREATE TABLE face_people (
      face_id TEXT PRIMARY KEY REFERENCES faces(id) ON DELETE CASCADE,
      person_id TEXT NOT NULL REFERENCES people(id),
      assigned_by TEXT NOT NULL CHECK (assigned_by IN ('cluster', 'match', 'owner')),
      created_at INTEGER NOT NULL
    ) STRICT;
    CREATE INDEX face_people_person ON face_people(person_id);

    CREATE TABLE face_exclusions (
      face_id TEXT NOT NULL REFERENCES faces(id) ON DELETE CASCADE,
      person_id TEXT NOT NULL REFERENCES people(id) ON DELETE CASCADE,
      kind TEXT NOT NULL CHECK (kind IN ('rejected', 'split')),
      created_at INTEGER NOT NULL,
      PRIMARY KEY (face_id, person_id)
    ) STRICT;
  `,
};
