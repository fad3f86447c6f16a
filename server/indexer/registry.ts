// Every stage's manifest, by name (host and HTTP side). A stage missing here is a compile error;
// runners.ts holds their runs, typed against these manifests.
import type { AnyStageManifest, IndexStageName } from './stage.ts';
import { PHASE_ONE_STAGES } from '../contract/assets.ts';
import { extractStage } from './stages/extract.stage.ts';
import { metadataStage } from './stages/metadata.stage.ts';
import { shotsStage } from './stages/shots.stage.ts';
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

export const STAGE_MANIFESTS = {
  extract: extractStage,
  metadata: metadataStage,
  shots: shotsStage,
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
} as const satisfies { [K in IndexStageName]: { name: K } & AnyStageManifest };

/** The manifests with their types erased, for code that treats every stage alike. */
export const STAGES: Record<IndexStageName, AnyStageManifest> = STAGE_MANIFESTS;

/** Order in which stages are created and reported. */
export const STAGE_ORDER: readonly IndexStageName[] = Object.keys(STAGES) as IndexStageName[];

/**
 * Phase 1 of indexing ("searchable"): the stages that read a file's own text and metadata — a PDF's
 * text layer, office and e-book text, EXIF/XMP, the file name — and draw a document's first page.
 * Every other stage (pictures of pages, OCR, faces, objects, speech, embeddings…) is phase 2
 * ("enriching"): the queue hands out phase 1 of every waiting asset, newest included, before any
 * phase 2 work (docs/stages.md, "Two phases").
 */
export const PHASE_ONE: readonly IndexStageName[] = PHASE_ONE_STAGES;
export const isPhaseOne = (stage: string): boolean => (PHASE_ONE as readonly string[]).includes(stage);
