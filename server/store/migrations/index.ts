// Ordered list of migrations. A shipped migration is never edited: add a new one instead.
// The schema version is PRAGMA user_version = number of migrations applied.
import { migration as m0001 } from './0001-workspaces-and-keys.ts';
import { migration as m0002 } from './0002-assets.ts';
import { migration as m0003 } from './0003-stage-runs.ts';
import { migration as m0004 } from './0004-pages-and-passages.ts';
import { migration as m0005 } from './0005-video-media.ts';
import { migration as m0006 } from './0006-regions.ts';
import { migration as m0007 } from './0007-search-entries.ts';
import { migration as m0008 } from './0008-faces.ts';
import { migration as m0009 } from './0009-page-picture-area.ts';
import { migration as m0010 } from './0010-speech-segments.ts';
import { migration as m0011 } from './0011-transcript-segments.ts';
import { migration as m0012 } from './0012-people.ts';
import { migration as m0013 } from './0013-search-vocabulary.ts';
import { migration as m0014 } from './0014-vectors.ts';
import { migration as m0015 } from './0015-speaker-turns.ts';
import { migration as m0016 } from './0016-stage-failure-codes.ts';
import { migration as m0017 } from './0017-libraries.ts';
import { migration as m0018 } from './0018-queue-at-scale.ts';
import { migration as m0019 } from './0019-asset-metadata.ts';
import { migration as m0020 } from './0020-face-attributes.ts';
import { migration as m0021 } from './0021-read-only-workspaces.ts';
import { migration as m0022 } from './0022-orientation-detected.ts';
import { migration as m0023 } from './0023-face-ignores.ts';
import { migration as m0024 } from './0024-collections-and-marks.ts';
import { migration as m0025 } from './0025-failed-runs.ts';
import { migration as m0026 } from './0026-orientation-set.ts';
import { migration as m0027 } from './0027-library-stack-raw.ts';
import { migration as m0028 } from './0028-speaker-names.ts';
import { migration as m0029 } from './0029-phase-one-queue.ts';
import { migration as m0030 } from './0030-search-entries-written-to-fts.ts';
import { migration as m0031 } from './0031-not-a-face.ts';
import { migration as m0032 } from './0032-linked-file-mtime.ts';
import { migration as m0033 } from './0033-video-shots-stage.ts';

export interface Migration {
  name: string;
  up: string;
}

export const MIGRATIONS: readonly Migration[] = [
  m0001,
  m0002,
  m0003,
  m0004,
  m0005,
  m0006,
  m0007,
  m0008,
  m0009,
  m0010,
  m0011,
  m0012,
  m0013,
  m0014,
  m0015,
  m0016,
  m0017,
  m0018,
  m0019,
  m0020,
  m0021,
  m0022,
  m0023,
  m0024,
  m0025,
  m0026,
  m0027,
  m0028,
  m0029,
  m0030,
  m0031,
  m0032,
  m0033,
];
