import type { Migration } from './index.ts';

// The owner's names for the speakers of a video (speaker numbers as the speakers stage gives them,
// numbered by first appearance): a name applies to every turn and transcript segment of that voice,
// and makes the voice findable by name. Kept when the stages run again.
export const migration: Migration = {
  name: '0028-speaker-names',
  up: `
    CREATE TABLE speaker_names (
      asset_id TEXT NOT NULL REFERENCES assets(id) ON DELETE CASCADE,
      speaker INTEGER NOT NULL CHECK (speaker >= 1),
      name TEXT NOT NULL,
      PRIMARY KEY (asset_id, speaker)
    ) STRICT;
  `,
};
