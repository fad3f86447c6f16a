import type { Migration } from './index.ts';

// Document pages (page k sits at timestamp k - 1) and their passages in reading order.
export const migration: Migration = {
  name: '0004-pages-and-passages',
  up: `
    CREATE TABLE pages (
      asset_id TEXT NOT NULL REFERENCES assets(id) ON DELETE CASCADE,
      page INTEGER NOT NULL CHECK (page >= 1),
      width REAL NOT NULL,
      height REAL NOT NULL,
      text TEXT NOT NULL,
      text_source TEXT NOT NULL CHECK (text_source IN ('text_layer', 'text', 'ocr', 'none')),
      needs_ocr INTEGER NOT NULL CHECK (needs_ocr IN (0, 1)),
      render_path TEXT,
      PRIMARY KEY (asset_id, page)
    ) STRICT;

    CREATE TABLE passages (
      asset_id TEXT NOT NULL,
      page INTEGER NOT NULL,
      idx INTEGER NOT NULL,
      text TEXT NOT NULL,
      x REAL NOT NULL,
      y REAL NOT NULL,
      w REAL NOT NULL,
      h REAL NOT NULL,
      source TEXT NOT NULL,
      PRIMARY KEY (asset_id, page, idx),
      FOREIGN KEY (asset_id, page) REFERENCES pages(asset_id, page) ON DELETE CASCADE
    ) STRICT;
  `,
};
