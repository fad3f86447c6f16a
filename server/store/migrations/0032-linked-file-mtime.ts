import type { Migration } from './index.ts';

// A file indexed in place: its modification time (ms) when its checksum was taken. Extraction takes
// the file as the one indexed where its size and this time are unchanged, as a library's rescan does,
// and reads it through again for its checksum only where either differs or the time is not known
// (assets admitted before this column, a file that moved).
export const migration: Migration = {
  name: '0032-linked-file-mtime',
  up: `
    ALTER TABLE assets ADD COLUMN file_mtime_ms INTEGER;
  `,
};
