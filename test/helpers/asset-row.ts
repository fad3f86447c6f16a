// An asset straight into the store, with its stage runs planned (tests that need a row, not a file).
import type { Store } from '../../server/store/index.ts';
import type { NewAssetRow } from '../../server/store/assets.repo.ts';
import type { StageRunRow } from '../../server/store/stage-runs.repo.ts';
import { planRuns } from '../../server/indexer/plan.ts';
import { newAssetRow } from '../../server/indexer/admission.ts';
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
      ...newAssetRow(
        opts.id,
        ws.id,
        { path: `assets/x/original${ext}`, fileName: `x${ext}`, ext, kind: opts.kind, sizeBytes: 1, sha256: '0'.repeat(64), mime, linked: false },
        effective,
        1,
      ),
      ...opts.row,
    },
    planRuns(opts.id, opts.kind, effective, 1).map(opts.runs ?? ((r) => r)),
  );
  return ws.id;
}
