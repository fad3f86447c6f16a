import type { Migration } from './index.ts';

// The full-text index is written by the search repository beside each entry (SearchRepo), not by a
// trigger: an FTS5 write made by a trigger runs inside the statement's savepoint, where FTS5 writes
// out what it holds in memory each time, so a book's 4,500 passages made 4,500 small segments to
// merge (about 160 ms against 30 ms for the same rows, measured in memory). Entries already
// stored stay indexed as they were. Deletions keep their trigger: an asset's entries go with it by
// ON DELETE CASCADE, which only a trigger hears.
export const migration: Migration = {
  name: '0030-search-entries-written-to-fts',
  up: `
    DROP TRIGGER search_entries_ai;
  `,
};
