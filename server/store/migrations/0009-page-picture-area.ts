import type { Migration } from './index.ts';

// Share of a page covered by drawn images (0..1): a page that is mostly picture is looked at by
// the faces and objects stages (SPEC 2.7).
export const migration: Migration = {
  name: '0009-page-picture-area',
  up: `ALTER TABLE pages ADD COLUMN picture_area REAL NOT NULL DEFAULT 0;`,
};
