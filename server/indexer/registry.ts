// Every stage, by name. A stage missing here is a compile error.
import type { AssetKind } from '../contract/assets.ts';
import { failed, modelBackedStage, type IndexStageName, type StageDefinition, type StageOutcome } from './stage.ts';
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

const MEDIA: readonly AssetKind[] = ['video', 'image', 'document'];

/** Inference for a model this build cannot install yet: never reached while the model is missing. */
const notYet = (stage: string) => async (): Promise<StageOutcome> => failed(`not_implemented: ${stage} inference is not in this build`);

export const STAGES: Record<IndexStageName, StageDefinition> = {
  extract: extractStage,
  speech: speechStage,
  transcript: transcriptStage,
  // Their models have no pinned files in this build: they report model_not_installed.
  captions: modelBackedStage('captions', MEDIA, ['extract'], ['vit-gpt2-image-captioning'], notYet('captions')),
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
