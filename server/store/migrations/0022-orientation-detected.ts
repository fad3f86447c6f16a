import type { Migration } from './index.ts';

// A photo stored sideways or upside down (its album program kept the turn in its own database):
// the clockwise turn the faces stage found shows it upright, 0 when it is, null before it looked.
export const migration: Migration = {
  name: '0022-orientation-detected',
  up: `
    ALTER TABLE assets ADD COLUMN orientation_detected INTEGER CHECK (orientation_detected IN (0, 90, 180, 270));
  `,
};
