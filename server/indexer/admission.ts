// The row an asset is admitted with (uploads, `index`, files found in libraries): what the file is,
// where it is kept, the options it is indexed with, the pipeline; its stage runs are the queue's.
import type { AssetKind } from '../contract/assets.ts';
import { CURRENT_PIPELINE } from '../contract/assets.ts';
import type { EffectiveOptions } from '../contract/stages.ts';
import type { NewAssetRow } from '../store/assets.repo.ts';

/** `legacyTier`: a deprecated pipeline asked for (a video indexed by the classic engine, no options). */
export function newAssetRow(
  id: string,
  workspaceId: string,
  /** `mtimeMs`: a linked file's modification time when its checksum was taken. */
  f: { path: string; fileName: string; ext: string; kind: AssetKind; sizeBytes: number; sha256: string; mime: string; linked: boolean; mtimeMs?: number },
  effective: EffectiveOptions | null,
  now: number,
  legacyTier: string | null = null,
): NewAssetRow {
  return {
    id,
    workspace_id: workspaceId,
    kind: f.kind,
    file_name: f.fileName,
    ext: f.ext,
    stored_path: f.path,
    linked: f.linked ? 1 : 0,
    mime_type: f.mime,
    size_bytes: f.sizeBytes,
    sha256: f.sha256,
    file_mtime_ms: f.linked ? (f.mtimeMs ?? null) : null,
    pipeline: legacyTier ?? CURRENT_PIPELINE,
    engine: legacyTier ? 'classic' : 'arrow',
    gen1_tier: legacyTier,
    index_options: effective,
    status: 'processing',
    page_count: null,
    duration_s: null,
    width: null,
    height: null,
    created_at: now,
    completed_at: null,
    deleted_at: null,
  };
}
