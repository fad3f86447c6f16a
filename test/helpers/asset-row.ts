// An asset straight into the store, with its stage runs planned (tests that need a row, not a file).
import type { Store } from '../../server/store/index.ts';
import type { NewAssetRow } from '../../server/store/assets.repo.ts';
import type { StageRunRow } from '../../server/store/stage-runs.repo.ts';
import { planRuns } from '../../server/indexer/plan.ts';
import { deploymentDefaults } from '../../server/contract/stages.ts';

const MIME = { image: ['.png', 'image/png'], video: ['.mp4', 'video/mp4'], document: ['.txt', 'text/plain'] } as const;

/**
 * Inserts an asset of `kind` in the workspace (made if missing), its runs planned with the deployment
 * defaults; `runs` says how they stand (left out: as planned). Returns the workspace's id.
 */
export function insertAsset(
  store: Store,
  opts: { id: string; workspace: string; kind: NewAssetRow['kind']; row?: Partial<NewAssetRow>; runs?: (r: StageRunRow) => StageRunRow },
): string {
  const ws = store.workspaces.ensure(opts.workspace).row;
  const effective = deploymentDefaults();
  const [ext, mime] = MIME[opts.kind];
  store.assets.insertWithRuns(
    {
      id: opts.id,
      workspace_id: ws.id,
      kind: opts.kind,
      file_name: `x${ext}`,
      ext,
      stored_path: `assets/x/original${ext}`,
      linked: 0,
      mime_type: mime,
      size_bytes: 1,
      sha256: '0'.repeat(64),
      pipeline: 'arrow',
      engine: 'arrow',
      gen1_tier: null,
      index_options: effective,
      status: 'processing',
      page_count: null,
      duration_s: null,
      width: null,
      height: null,
      created_at: 1,
      completed_at: null,
      deleted_at: null,
      ...opts.row,
    },
    planRuns(opts.id, opts.kind, effective, 1).map(opts.runs ?? ((r) => r)),
  );
  return ws.id;
}
