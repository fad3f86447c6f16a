import type { Migration } from './index.ts';

// Faces the owner said to leave out ("Ignore" in Not grouped yet): kept out of every grouping and
// suggestion until un-ignored. A re-detected face inherits it (people/decisions.ts).
// Two covering indexes for reviewing faces: a face's row holds its 4 KB embedding before its
// quality, so reading the quality from the row reads the blob's overflow pages; the People list
// (by face id) and the faces no person holds (by asset, best first) read these instead.
export const migration: Migration = {
  name: '0023-face-ignores',
  up: `
    CREATE TABLE face_ignores (
      face_id TEXT PRIMARY KEY REFERENCES faces(id) ON DELETE CASCADE,
      created_at INTEGER NOT NULL
    ) STRICT;
    CREATE INDEX faces_review_by_id ON faces(id, asset_id, timestamp, good, quality, size_px, sharpness);
    CREATE INDEX faces_review_by_asset ON faces(asset_id, quality, size_px, id, good, sharpness, timestamp);
  `,
};
