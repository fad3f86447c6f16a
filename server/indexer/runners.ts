// Every stage's run, by name: imported by the indexer worker only (the runs load the model
// libraries). Each entry must be the run its manifest calls for: input from `prepare`, output for
// `save`.
import type { STAGE_MANIFESTS } from './registry.ts';
import type { IndexStageName, RunOf, StageContext, StageOutcome } from './stage.ts';
import { runExtract } from './stages/extract.run.ts';
import { runMetadata } from './stages/metadata.run.ts';
import { runSpeech } from './stages/speech.run.ts';
import { runTranscript } from './stages/transcript.run.ts';
import { runCaptions } from './stages/captions.run.ts';
import { runSpeakers } from './stages/speakers.run.ts';
import { runSounds } from './stages/sounds.run.ts';
import { runLabels } from './stages/labels.run.ts';
import { runOcr } from './stages/ocr.run.ts';
import { runFaces } from './stages/faces.run.ts';
import { runObjects } from './stages/objects.run.ts';
import { runPeople } from './stages/people.run.ts';
import { runEmbeddings } from './stages/embeddings.run.ts';
import { runMusic } from './stages/music.run.ts';

const RUNNERS: { [K in IndexStageName]: RunOf<(typeof STAGE_MANIFESTS)[K]> } = {
  extract: runExtract,
  metadata: runMetadata,
  speech: runSpeech,
  transcript: runTranscript,
  captions: runCaptions,
  speakers: runSpeakers,
  sounds: runSounds,
  labels: runLabels,
  ocr: runOcr,
  faces: runFaces,
  objects: runObjects,
  people: runPeople,
  embeddings: runEmbeddings,
  music: runMusic,
};

/**
 * Runs a stage on what the host sent. The request crossed a process boundary, so its input and
 * options are trusted to be what the stage's `prepare` and the effective options made of them.
 */
export function runStage(name: IndexStageName, ctx: StageContext<unknown, IndexStageName>): Promise<StageOutcome> {
  // A method signature is compared bivariantly: the one place where a stage's typed run is called
  // with the untyped request.
  const erased: { run(ctx: StageContext<unknown, IndexStageName>): Promise<StageOutcome> } = { run: RUNNERS[name] };
  return erased.run(ctx);
}
