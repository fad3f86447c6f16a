import type { Migration } from './index.ts';

// The full-text index is written by the search repository beside each entry (SearchRepo), not by a
// trigger: FTS5 flushes what it holds in memory at the end of each insert a trigger makes, so a
// book's 4,500 passages were written as a small segment each, merged again and again as they piled
// up (2,000 passages with merging off: 20 segments left against 1; about 160 ms against 30 ms for
// a book's passages, measured in memory). Entries already stored stay indexed as they were.
// Deletions keep their trigger (as fast either way): an asset's entries go with it by ON DELETE
// CASCADE, which only a trigger hears.
export const migration: Migration = {
  name: '0030-search-entries-written-to-fts',
  up: `
    DROP TRIGGER search_entries_ai;
  `,
};
