// What a stage is. Each stage is declared in two halves that the compiler holds together:
//   - its manifest, `stages/<name>.stage.ts`: name, version, kinds, dependencies, models, and the
//     host-side `prepare` (reads what the run needs from the store) and `save` (writes what the run
//     found, inside the transaction that records the outcome). The HTTP process and the indexer
//     host import manifests; a manifest imports no model library (sharp, tesseract, Human,
//     transformers, ffmpeg, the VAD).
//   - its runner, `stages/<name>.run.ts`: `run`, the work itself, imported only by the indexer
//     worker (runners.ts). `defineRunner(manifest, run)` types `run`'s input by what `prepare`
//     returns and its output by what `save` takes, so a mismatch is a compile error.
import type { AssetKind } from '../contract/assets.ts';
import type { StageFailureCode, StageName, StageValues } from '../contract/stages.ts';
import type { ExtractError } from '../media/types.ts';
import type { Store } from '../store/index.ts';
import { isInstalled } from '../ml/models.ts';

/**
 * `extract` (the internal first stage every other stage depends on), `metadata` (what the file
 * says about itself), `shots` (a video read through: its shots, keyframes and sound), `speech`
 * (voice activity, which seeds the audio stages) and `embeddings` (vectors for search by meaning)
 * are internal; the rest are SPEC 2.7's.
 */
export type IndexStageName = 'extract' | 'metadata' | 'shots' | 'speech' | 'embeddings' | StageName;
export const INTERNAL_STAGES: readonly IndexStageName[] = ['extract', 'metadata', 'shots', 'speech', 'embeddings'];

/** The values a stage receives: its SPEC 2.7 values (any may be absent: legacy runs have none). */
export type StageOptions<N extends IndexStageName> = N extends StageName ? StageValues<N> : Record<string, never>;

export interface StageAsset {
  id: string;
  kind: AssetKind;
  ext: string;
  filePath: string;
  sizeBytes: number;
  sha256: string;
  /** Indexed in place: the file is the user's and may change under us. */
  linked: boolean;
  /** A linked file's modification time (whole ms) when its checksum was taken; null when not known. */
  fileMtimeMs: number | null;
  mimeType: string | null;
  /** A video's length in seconds, where known (how far a run through it has got is told in it). */
  durationS?: number | null;
}

/**
 * How far a long run has got: pages of a document read, seconds of a video decoded, looked at or
 * heard, shots whose keyframe is drawn, passages encoded.
 */
export interface RunProgress {
  done: number;
  total: number;
  unit: 'pages' | 'seconds' | 'passages' | 'shots';
}

export interface StageContext<I, N extends IndexStageName = IndexStageName> {
  asset: StageAsset;
  /** The stage's effective values (SPEC 2.7), without `enabled`. */
  options: StageOptions<N>;
  dataDir: string;
  /** Folder the stage may write derived files into (renders, frames, audio). */
  assetDir: string;
  /** What the stage's `prepare` read from the store for this run. */
  input: I;
  /**
   * Tells the host how far the run has got (a long run: a document's pages, a video's frames); the
   * process passes on at most one report a second of each run. Absent where nobody listens.
   */
  progress?: (p: RunProgress) => void;
}

export type StageOutcome<O = unknown> =
  | { state: 'ok'; counts: Record<string, number>; details?: Record<string, unknown>; output: O }
  | { state: 'not_applicable'; reason: string }
  /** `code` is stable and machine-readable (kept in its own column); `reason` is for people. */
  | { state: 'failed'; code?: StageFailureCode; reason: string; details?: Record<string, unknown> };

/** A failed outcome (it holds no output). */
export type FailedOutcome = Extract<StageOutcome<never>, { state: 'failed' }>;

export interface Availability {
  available: boolean;
  reason: string | null;
}

export const ALWAYS_AVAILABLE = (): Availability => ({ available: true, reason: null });

/**
 * A stage's manifest: what the host and the HTTP process know of it. `I` is what `prepare` reads
 * for a run, `O` what the run returns and `save` writes.
 */
export interface StageManifest<I, O, N extends IndexStageName = IndexStageName> {
  name: N;
  /** Bumped when the stage's output changes; older rows are re-run. */
  version: number;
  kinds: readonly AssetKind[];
  /**
   * Looks only at pictures (photos, frames, the picture pages of a PDF): planned as not applicable
   * to a text-only document (`isTextOnlyDocument`), never handed out or settled one by one.
   */
  picturesOnly?: boolean;
  /** Stages that must have finished (any state) before this one runs. */
  dependsOn: readonly IndexStageName[];
  /**
   * Of those, the ones whose output this stage cannot do without (default: all of dependsOn).
   * One that failed fails this stage; one that was off or not applicable makes it not applicable.
   */
  requires?: readonly IndexStageName[];
  /** What the stage runs on, for people (the catalogue entry, or the optional models joined by "or"). */
  model: string | null;
  /** Optional models of which the stage needs one installed (models/manifest.json); none for bundled stages. */
  models?: readonly string[];
  /**
   * Optional models the stage uses whenever they are installed (besides what it runs without): a
   * finished run whose details do not name one installed since is run again.
   */
  combines?: readonly string[];
  /** The kinds of asset whose runs a combined model changes (every kind the stage runs on when not given). */
  combinesKinds?: readonly AssetKind[];
  /** Whether the stage can run here (a model it needs may be missing from the data folder). */
  availability(env: { dataDir: string }): Availability;
  /** Runs in the host before dispatch: reads what `run` needs (indexer processes hold no database). */
  prepare(store: Store, assetId: string): I;
  /**
   * The reason a run has nothing to do, read from what `prepare` returned (a document without
   * picture pages, for the picture stages), or null. The host then records the run not applicable
   * itself (`outcomeWithoutRun`) instead of handing it to a process, which would load the stage's
   * libraries to say so; the runner is not asked.
   */
  nothingToDo?(input: I, asset: Pick<StageAsset, 'kind' | 'ext'>): string | null;
  /** Runs in the one writer, inside the transaction that records the outcome. */
  save?(store: Store, assetId: string, output: O): void;
  /**
   * `save` changes more than the database (the vector index in memory): its outcome is recorded
   * apart from others, so that no rollback of theirs undoes its rows but not its other changes.
   */
  savesBeyondDatabase?: true;
}

/** A manifest with its types erased: what the host holds for every stage alike. */
export type AnyStageManifest = StageManifest<unknown, unknown>;

export type StageRun<I, O, N extends IndexStageName = IndexStageName> = (ctx: StageContext<I, N>) => Promise<StageOutcome<O>>;

/** The run a manifest calls for. */
export type RunOf<S> = S extends StageManifest<infer I, infer O, infer N> ? StageRun<I, O, N> : never;

/** Declares a stage's manifest with its input and output types. */
export function defineStage<I, O, N extends IndexStageName = IndexStageName>(manifest: StageManifest<I, O, N>): StageManifest<I, O, N> {
  return manifest;
}

/** Declares a stage's run against its manifest (worker side). */
export function defineRunner<I, O, N extends IndexStageName>(_manifest: StageManifest<I, O, N>, run: NoInfer<StageRun<I, O, N>>): StageRun<I, O, N> {
  return run;
}

/** A stage that reads nothing from the store before it runs. */
export const NO_INPUT = (): undefined => undefined;

export const ok = <O>(counts: Record<string, number>, output: O, details?: Record<string, unknown>): StageOutcome<O> => ({
  state: 'ok',
  counts,
  output,
  details,
});
export const failed = (code: StageFailureCode, message: string, details?: Record<string, unknown>): FailedOutcome => ({
  state: 'failed',
  code,
  reason: `${code}: ${message}`,
  details,
});
export const notApplicable = (reason: string): StageOutcome<never> => ({ state: 'not_applicable', reason });

/** The original not found where a run reads it: a linked file's drive unplugged (or the file moved or deleted), an upload's copy gone. */
export const fileMissing = (asset: Pick<StageAsset, 'linked'>): FailedOutcome =>
  failed('file_missing', asset.linked ? 'the file is not where it was (its drive unplugged, or moved or deleted)' : 'the stored original is gone');

/** A file that could not be read (an extraction error) as a failed outcome. */
export const failedBecause = (err: ExtractError): StageOutcome<never> => failed(err.code, err.detail);

/** The code of a reason written as "code: message" (every reason the stages give); `error` otherwise. */
export function codeOf(reason: string): string {
  return /^([a-z][a-z0-9_]*):/.exec(reason)?.[1] ?? 'error';
}

/** The first of a stage's optional models installed here, if any. */
export function installedModel(stage: Pick<AnyStageManifest, 'models'>, dataDir: string): string | undefined {
  return stage.models?.find((m) => isInstalled(dataDir, m));
}

/**
 * The parts of a manifest for a stage whose inference needs an optional model (models/manifest.json):
 * without one of them installed it is unavailable, and its runner (`withModel`) reports
 * `failed: model_not_installed: NAME`.
 */
export function needsModels(models: readonly string[]): Pick<AnyStageManifest, 'model' | 'models' | 'availability'> {
  return {
    model: models.join(' or '),
    models,
    availability: ({ dataDir }) =>
      models.some((m) => isInstalled(dataDir, m)) ? { available: true, reason: null } : { available: false, reason: `model_not_installed: ${models[0]}` },
  };
}

/** The outcome of a run whose stage needs one of its optional models and has none installed. */
function modelMissing(stage: Pick<AnyStageManifest, 'name' | 'models'>): FailedOutcome {
  const first = stage.models?.[0] ?? stage.name;
  return failed('model_not_installed', `${first} (media-index models pull ${first})`);
}

/**
 * `modelMissing` for a stage that needs one of its optional models and has none installed (`installed`
 * says which is); null for one that has one, or needs none. What a look at the queue settles a run
 * by (`outcomeWithoutRun`), and a run is written as when its file is admitted (queue.ts).
 */
export function missingModel(stage: AnyStageManifest, installed: (stage: AnyStageManifest) => string | undefined): FailedOutcome | null {
  return stage.models?.length && !installed(stage) ? modelMissing(stage) : null;
}

/** A runner that runs only with one of the stage's models installed, and says which is missing otherwise. */
export function withModel<I, O, N extends IndexStageName>(
  manifest: StageManifest<I, O, N>,
  run: NoInfer<(ctx: StageContext<I, N>, model: string) => Promise<StageOutcome<O>>>,
): StageRun<I, O, N> {
  return async (ctx) => {
    const model = installedModel(manifest, ctx.dataDir);
    return model ? run(ctx, model) : modelMissing(manifest);
  };
}

/**
 * What a run would answer before any work, decided by the host from the manifest and the run's
 * input, without a process: failed when the stage needs an optional model and none is installed
 * (as `withModel` would answer), not applicable when the manifest reads that there is nothing to do
 * (`nothingToDo`); null when the run goes to an indexer process, with the input `prepare` read
 * (read only once the model is known to be there).
 */
export function outcomeWithoutRun<I>(
  stage: AnyStageManifest,
  prepare: () => I,
  asset: Pick<StageAsset, 'kind' | 'ext'>,
  dataDir: string,
  /** Which of the stage's models is installed (a caller looking at many runs at once may remember it). */
  installed: (stage: AnyStageManifest) => string | undefined = (st) => installedModel(st, dataDir),
): { settled: StageOutcome<never> | null; input?: I } {
  const missing = missingModel(stage, installed);
  if (missing) return { settled: missing };
  const input = prepare();
  const reason = stage.nothingToDo?.(input, asset) ?? null;
  return { settled: reason === null ? null : notApplicable(reason), input };
}
