// What a stage is: a definition the registry holds, run in the indexer process, saved by the writer.
import type { AssetKind } from '../contract/assets.ts';
import type { StageName } from '../contract/stages.ts';
import type { Store } from '../store/index.ts';
import { isInstalled } from '../ml/models.ts';

/**
 * `extract` (the internal first stage every other stage depends on), `speech` (voice activity,
 * which seeds the audio stages) and `embeddings` (vectors for search by meaning) are internal; the
 * rest are SPEC 2.7's.
 */
export type IndexStageName = 'extract' | 'speech' | 'embeddings' | StageName;
export const INTERNAL_STAGES: readonly IndexStageName[] = ['extract', 'speech', 'embeddings'];

export interface StageAsset {
  id: string;
  kind: AssetKind;
  ext: string;
  filePath: string;
  sizeBytes: number;
  sha256: string;
  /** Indexed in place: the file is the user's and may change under us. */
  linked: boolean;
  mimeType: string | null;
}

export interface StageContext {
  asset: StageAsset;
  /** The stage's effective values (SPEC 2.7), without `enabled`. */
  options: Record<string, unknown>;
  dataDir: string;
  /** Folder the stage may write derived files into (renders, frames, audio). */
  assetDir: string;
  /** What the stage's `prepare` read from the store for this run (undefined without one). */
  input?: unknown;
}

export type StageOutcome =
  | { state: 'ok'; counts?: Record<string, number>; details?: Record<string, unknown>; output?: unknown }
  | { state: 'not_applicable'; reason: string }
  | { state: 'failed'; reason: string; details?: Record<string, unknown> };

export interface Availability {
  available: boolean;
  reason: string | null;
}

export const ALWAYS_AVAILABLE = (): Availability => ({ available: true, reason: null });

export interface StageDefinition {
  name: IndexStageName;
  /** Bumped when the stage's output changes; older rows are re-run. */
  version: number;
  kinds: readonly AssetKind[];
  /** Stages that must have finished (any state) before this one runs. */
  dependsOn: readonly IndexStageName[];
  /**
   * Of those, the ones whose output this stage cannot do without (default: all of dependsOn).
   * One that failed fails this stage; one that was off or not applicable makes it not applicable.
   */
  requires?: readonly IndexStageName[];
  /** The model the stage needs, or null. */
  model: string | null;
  /**
   * Optional models the stage uses whenever they are installed (besides what it runs without): a
   * finished run whose details do not name one installed since is run again.
   */
  combines?: readonly string[];
  /** Whether the stage can run here (a model it needs may be missing from the data folder). */
  availability(env: { dataDir: string }): Availability;
  /** Runs in the host before dispatch: reads what `run` needs from the store (indexer processes hold no database). */
  prepare?(store: Store, assetId: string): unknown;
  /** Runs in an indexer process. Expected conditions are returned as outcomes, never thrown. */
  run(ctx: StageContext): Promise<StageOutcome>;
  /** Runs in the one writer, inside the transaction that records the outcome. */
  save?(store: Store, assetId: string, output: unknown): void;
}

export const ok = (counts: Record<string, number> = {}, output?: unknown, details?: Record<string, unknown>): StageOutcome => ({
  state: 'ok',
  counts,
  output,
  details,
});
export const failed = (reason: string, details?: Record<string, unknown>): StageOutcome => ({ state: 'failed', reason, details });
export const notApplicable = (reason: string): StageOutcome => ({ state: 'not_applicable', reason });

/**
 * A stage whose inference needs an optional model (models/manifest.json). Without any of its models
 * installed it is unavailable and reports `failed: model_not_installed: NAME`. Models listed without
 * pinned files cannot be installed in this build.
 */
export function modelBackedStage(
  name: IndexStageName,
  kinds: readonly AssetKind[],
  dependsOn: readonly IndexStageName[],
  models: readonly string[],
  run: (ctx: StageContext, model: string) => Promise<StageOutcome>,
  extra: Partial<Pick<StageDefinition, 'requires' | 'prepare' | 'save' | 'version' | 'combines'>> = {},
): StageDefinition {
  const installed = (dataDir: string) => models.find((m) => isInstalled(dataDir, m));
  return {
    name,
    version: extra.version ?? 1,
    kinds,
    dependsOn,
    requires: extra.requires,
    model: models.join(' or '),
    combines: extra.combines,
    availability: ({ dataDir }) =>
      installed(dataDir) ? { available: true, reason: null } : { available: false, reason: `model_not_installed: ${models[0]}` },
    prepare: extra.prepare,
    save: extra.save,
    run: async (ctx) => {
      const model = installed(ctx.dataDir);
      return model ? run(ctx, model) : failed(`model_not_installed: ${models[0]} (media-index models pull ${models[0]})`);
    },
  };
}
