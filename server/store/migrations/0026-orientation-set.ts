import type { Migration } from './index.ts';

// The owner's own turn of a photo (set in the viewer, kept in the index, never written to the file):
// 0, 90, 180 or 270 degrees clockwise, shown instead of the detected one; null when the owner has
// not turned it. Re-indexing writes orientation_detected only, so the owner's turn survives it.
export const migration: Migration = {
  name: '0026-orientation-set',
  up: `
    ALTER TABLE assets ADD COLUMN orientation_set INTEGER CHECK (orientation_set IN (0, 90, 180, 270));
  `,
};
