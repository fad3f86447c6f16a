// Every stage, by name. A stage missing here is a compile error.
import type { AssetKind } from '../contract/assets.ts';
import { notImplementedStage, type IndexStageName, type StageDefinition } from './stage.ts';
import { extractStage } from './stages/extract.stage.ts';
import { musicStage } from './stages/music.stage.ts';
import { ocrStage } from './stages/ocr.stage.ts';
import { facesStage } from './stages/faces.stage.ts';
import { objectsStage } from './stages/objects.stage.ts';
import { labelsStage } from './stages/labels.stage.ts';
import { speechStage } from './stages/speech.stage.ts';

const MEDIA: readonly AssetKind[] = ['video', 'image', 'document'];

export const STAGES: Record<IndexStageName, StageDefinition> = {
  extract: extractStage,
  speech: speechStage,
  transcript: notImplementedStage('transcript', ['video'], ['extract'], 'whisper'),
  captions: notImplementedStage('captions', MEDIA, ['extract'], 'captioner'),
  speakers: notImplementedStage('speakers', ['video'], ['extract'], 'speaker-embedding'),
  sounds: notImplementedStage('sounds', ['video'], ['extract'], 'audioset-tagger'),
  labels: labelsStage,
  ocr: ocrStage,
  faces: facesStage,
  objects: objectsStage,
  people: notImplementedStage('people', MEDIA, ['faces']),
  music: musicStage,
};

/** Order in which stages are created and reported. */
export const STAGE_ORDER: readonly IndexStageName[] = Object.keys(STAGES) as IndexStageName[];
