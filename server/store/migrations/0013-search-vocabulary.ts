import type { Migration } from './index.ts';

// The words the lexical index holds, so query expansion only adds words that can match.
export const migration: Migration = {
  name: '0013-search-vocabulary',
  up: `CREATE VIRTUAL TABLE search_vocab USING fts5vocab(search_fts, 'row');`,
};
