// Every stage, by name. A stage missing here is a compile error.
import type { IndexStageName, StageDefinition } from './stage.ts';
import { extractStage } from './stages/extract.stage.ts';
import { musicStage } from './stages/music.stage.ts';
import { ocrStage } from './stages/ocr.stage.ts';
import { facesStage } from './stages/faces.stage.ts';
import { objectsStage } from './stages/objects.stage.ts';
import { labelsStage } from './stages/labels.stage.ts';
import { speechStage } from './stages/speech.stage.ts';
import { transcriptStage } from './stages/transcript.stage.ts';
import { peopleStage } from './stages/people.stage.ts';
import { embeddingsStage } from './stages/embeddings.stage.ts';
import { soundsStage } from './stages/sounds.stage.ts';
import { speakersStage } from './stages/speakers.stage.ts';
import { captionsStage } from './stages/captions.stage.ts';

export const STAGES: Record<IndexStageName, StageDefinition> = {
  extract: extractStage,
  speech: speechStage,
  transcript: transcriptStage,
  captions: captionsStage,
  speakers: speakersStage,
  sounds: soundsStage,
  labels: labelsStage,
  ocr: ocrStage,
  faces: facesStage,
  objects: objectsStage,
  people: peopleStage,
  embeddings: embeddingsStage,
  music: musicStage,
};

/** Order in which stages are created and reported. */
export const STAGE_ORDER: readonly IndexStageName[] = Object.keys(STAGES) as IndexStageName[];
