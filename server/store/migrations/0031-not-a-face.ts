import type { Migration } from './index.ts';

// "Not a face" in Not grouped yet: an ignored face the owner says is no face at all (a mandrill, a
// cartoon fish, a pattern). Beyond an ignore (out of every grouping), it is no longer shown on its
// picture, found by search as a person or counted as people in its labels. Carried over a
// re-detection like every other decision (people/decisions.ts). Ignores made before stay plain.
export const migration: Migration = {
  name: '0031-not-a-face',
  up: `
    ALTER TABLE face_ignores ADD COLUMN not_a_face INTEGER NOT NULL DEFAULT 0 CHECK (not_a_face IN (0, 1));
  `,
};
