import type { Migration } from './index.ts';

// A library's camera RAW files stacked with the JPEG of the same name in the same folder (one asset,
// the JPEG shown), as the owner chose when adding it; on for the libraries added before.
export const migration: Migration = {
  name: '0027-library-stack-raw',
  up: `
    ALTER TABLE libraries ADD COLUMN stack_raw INTEGER NOT NULL DEFAULT 1 CHECK (stack_raw IN (0, 1));
  `,
};
