// Every stage's run, by name: imported by the indexer worker only (the runs load the model
// libraries). Each entry must be the run its manifest calls for: input from `prepare`, output for
// `save`.
import type { STAGE_MANIFESTS } from './registry.ts';
import type { IndexStageName, RunOf, StageContext, StageOutcome } from './stage.ts';

type Loaders = { [K in IndexStageName]: () => Promise<RunOf<(typeof STAGE_MANIFESTS)[K]>> };

/**
 * Each stage's run is loaded the first time it is asked for: an indexer process is ready as soon
 * as it starts, and holds the libraries of the stages it has run only (a process that reads text
 * documents loads no picture or sound library, one that reads photos no office or PDF library).
 */
const RUNNERS: Loaders = {
  extract: async () => (await import('./stages/extract.run.ts')).runExtract,
  metadata: async () => (await import('./stages/metadata.run.ts')).runMetadata,
  shots: async () => (await import('./stages/shots.run.ts')).runShots,
  speech: async () => (await import('./stages/speech.run.ts')).runSpeech,
  transcript: async () => (await import('./stages/transcript.run.ts')).runTranscript,
  captions: async () => (await import('./stages/captions.run.ts')).runCaptions,
  speakers: async () => (await import('./stages/speakers.run.ts')).runSpeakers,
  sounds: async () => (await import('./stages/sounds.run.ts')).runSounds,
  labels: async () => (await import('./stages/labels.run.ts')).runLabels,
  ocr: async () => (await import('./stages/ocr.run.ts')).runOcr,
  faces: async () => (await import('./stages/faces.run.ts')).runFaces,
  objects: async () => (await import('./stages/objects.run.ts')).runObjects,
  people: async () => (await import('./stages/people.run.ts')).runPeople,
  embeddings: async () => (await import('./stages/embeddings.run.ts')).runEmbeddings,
  music: async () => (await import('./stages/music.run.ts')).runMusic,
};

/** What loading a stage ahead holds beyond its run's code. */
const WARM_UPS: Partial<Record<IndexStageName, () => Promise<void>>> = {
  extract: async () => (await import('./stages/extract.run.ts')).warmExtract(),
};

/** Loads a stage's run (and what it holds, see WARM_UPS) before it is asked for; a failure here waits for the run to report it. */
export async function warmStage(name: IndexStageName): Promise<void> {
  try {
    await RUNNERS[name]();
    await WARM_UPS[name]?.();
  } catch {
    // The run itself loads it again and answers with the reason.
  }
}

/** Whether the host asked for a stage this process has a run for. */
export const isStageName = (name: string): name is IndexStageName => Object.hasOwn(RUNNERS, name);

/**
 * Runs a stage on what the host sent. The request crossed a process boundary, so its input and
 * options are trusted to be what the stage's `prepare` and the effective options made of them.
 */
export async function runStage(name: IndexStageName, ctx: StageContext<unknown, IndexStageName>): Promise<StageOutcome> {
  // A method signature is compared bivariantly: the one place where a stage's typed run is called
  // with the untyped request.
  const erased: { run(ctx: StageContext<unknown, IndexStageName>): Promise<StageOutcome> } = { run: await RUNNERS[name]() };
  return erased.run(ctx);
}
