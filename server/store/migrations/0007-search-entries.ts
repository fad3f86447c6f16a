import type { Migration } from './index.ts';

// Lexical search: one entry per searchable piece of text (file name, passage, OCR line, transcript
// segment, label...), with where it sits; an FTS5 index over it kept in step by triggers. Entries
// go with their asset (ON DELETE CASCADE fires the triggers too).
export const migration: Migration = {
  name: '0007-search-entries',
  up: `
    CREATE TABLE search_entries (
      id INTEGER PRIMARY KEY,
      asset_id TEXT NOT NULL REFERENCES assets(id) ON DELETE CASCADE,
      stage TEXT NOT NULL,
      modality TEXT NOT NULL,
      timestamp REAL NOT NULL,
      page INTEGER,
      ref INTEGER,
      region_id TEXT,
      text TEXT NOT NULL
    ) STRICT;
    CREATE INDEX search_entries_asset ON search_entries(asset_id, stage);

    CREATE VIRTUAL TABLE search_fts USING fts5(
      text,
      content = 'search_entries',
      content_rowid = 'id',
      tokenize = "unicode61 remove_diacritics 2 categories 'L* N* Co M*'"
    );
    CREATE TRIGGER search_entries_ai AFTER INSERT ON search_entries BEGIN
      INSERT INTO search_fts(rowid, text) VALUES (new.id, new.text);
    END;
    CREATE TRIGGER search_entries_ad AFTER DELETE ON search_entries BEGIN
      INSERT INTO search_fts(search_fts, rowid, text) VALUES ('delete', old.id, old.text);
    END;
  `,
};
