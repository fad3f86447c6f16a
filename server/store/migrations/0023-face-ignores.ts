import type { Migration } from './index.ts';

// Faces the owner said to leave out ("Ignore" in Not grouped yet): kept out of every grouping and
// suggestion until un-ignored. A re-detected face inherits it (people/decisions.ts).
export const migration: Migration = {
  name: '0023-face-ignores',
  up: `
    CREATE TABLE face_ignores (
      face_id TEXT PRIMARY KEY REFERENCES faces(id) ON DELETE CASCADE,
      created_at INTEGER NOT NULL
    ) STRICT;
  `,
};
