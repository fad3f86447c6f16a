// Which stage runs an asset gets at upload: every stage has a row, so the report is complete from
// the first poll. Off and not-applicable stages are settled at once; the rest wait in the queue.
import type { AssetKind } from '../contract/assets.ts';
import { isTextOnlyDocument } from '../contract/extensions.ts';
import type { EffectiveOptions, StageName } from '../contract/stages.ts';
import type { StageRunRow } from '../store/stage-runs.repo.ts';
import { STAGES, STAGE_ORDER } from './registry.ts';
import { INTERNAL_STAGES, type IndexStageName } from './stage.ts';

/** What the deprecated tiers index (SPEC 9: no pages, regions, People or index options). */
export const LEGACY_STAGES: readonly IndexStageName[] = ['extract', 'shots', 'speech', 'transcript', 'captions', 'speakers', 'sounds', 'labels'];

/** `ext`: the file's extension, where known (a text-only document's picture stages do not apply). */
export function planRuns(assetId: string, kind: AssetKind, effective: EffectiveOptions | null, now: number, ext?: string): StageRunRow[] {
  return STAGE_ORDER.map((name) => {
    const def = STAGES[name];
    const base: StageRunRow = {
      asset_id: assetId,
      stage: name,
      version: def.version,
      state: 'pending',
      code: null,
      reason: null,
      counts: '{}',
      details: null,
      attempts: 0,
      queued_at: now,
      started_at: null,
      finished_at: null,
      duration_ms: null,
    };
    const settle = (state: 'off' | 'not_applicable', reason: string): StageRunRow => ({
      ...base,
      state,
      reason,
      finished_at: now,
      duration_ms: 0,
    });
    if (effective === null && !LEGACY_STAGES.includes(name)) return settle('off', 'not part of the legacy pipeline');
    if (!INTERNAL_STAGES.includes(name) && effective !== null && !effective[name as StageName].enabled) {
      return settle('off', 'turned off in the index options');
    }
    if (!def.kinds.includes(kind)) return settle('not_applicable', `does not apply to ${kind === 'image' ? 'an image' : `a ${kind}`}`);
    if (def.picturesOnly && ext !== undefined && isTextOnlyDocument(ext))
      return settle('not_applicable', `a ${ext} document is read as text; its pictures are not indexed`);
    return base;
  });
}

/** The stage's values from the effective options, as the stage receives them. */
export function stageValues(effective: EffectiveOptions | null, stage: IndexStageName): Record<string, unknown> {
  if (INTERNAL_STAGES.includes(stage) || effective === null) return {};
  const { enabled: _enabled, ...values } = effective[stage as StageName];
  return values;
}

/** The stages asked for (every stage when none) and every stage that depends on them, in stage order. */
export function rerunClosure(stages: readonly string[] | undefined): IndexStageName[] {
  const chosen = new Set<string>(stages ?? STAGE_ORDER);
  for (let grew = true; grew;) {
    grew = false;
    for (const name of STAGE_ORDER) {
      if (!chosen.has(name) && STAGES[name].dependsOn.some((d) => chosen.has(d))) {
        chosen.add(name);
        grew = true;
      }
    }
  }
  return STAGE_ORDER.filter((name) => chosen.has(name));
}

/** The runs that re-running `stages` (with what depends on them) makes for an asset, planned as at upload. */
export function planRerun(
  assetId: string,
  kind: AssetKind,
  effective: EffectiveOptions | null,
  stages: readonly string[] | undefined,
  now: number,
  ext?: string,
): StageRunRow[] {
  const chosen = new Set<string>(rerunClosure(stages));
  return planRuns(assetId, kind, effective, now, ext).filter((r) => chosen.has(r.stage));
}

/** Runs to do again, one list of stages per asset (each stage once), in the order the assets came. */
export function stagesByAsset(runs: ReadonlyArray<{ asset_id: string; stage: string }>): Map<string, string[]> {
  const byAsset = new Map<string, string[]>();
  for (const r of runs) {
    const stages = byAsset.get(r.asset_id) ?? [];
    if (!stages.includes(r.stage)) stages.push(r.stage);
    byAsset.set(r.asset_id, stages);
  }
  return byAsset;
}
