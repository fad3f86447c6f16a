import type { Migration } from './index.ts';

// Who a face looks like (the faces stage's age and gender estimates), for search by description.
export const migration: Migration = {
  name: '0020-face-attributes',
  up: `
    ALTER TABLE faces ADD COLUMN age REAL;
    ALTER TABLE faces ADD COLUMN gender TEXT CHECK (gender IN ('female', 'male'));
    ALTER TABLE faces ADD COLUMN gender_score REAL;
  `,
};
