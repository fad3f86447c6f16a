// The rules that keep a library's rows in step with its folder, as pure decisions: what a file
// the file-system thread reports (or a path it found gone) means for the index. They read the rows
// through `Known` and touch neither the disk nor the database; `apply.ts` carries them out, one
// report at a time inside the batch's transaction, so each decision sees the ones before it.
//   - a new file becomes an asset; a second file of the same new content in the batch is its twin;
//   - a changed file keeps its asset (new content, every stage again, People decisions carried over);
//     when it was one of several copies, the others keep the asset and this one is new content;
//   - a file whose content the workspace holds at a path now gone was moved: the asset follows it
//     (same id, nothing re-run); at a path still there it is a duplicate, answered by that asset;
//   - a path gone leaves the library; its asset leaves the index unless another copy answers for it;
//   - with stacking on, a camera RAW file and the JPEG of the same name in its folder are one asset,
//     the JPEG its file (the RAW answers for it too); a RAW alone is its own asset until its JPEG
//     comes, which then takes the asset over (same id, every stage again on the JPEG); the JPEG
//     gone, the asset falls back to the RAW.
import path from 'node:path';
import { RAW_EXTENSIONS } from '../contract/assets.ts';
import type { FileReport } from './protocol.ts';

/** What a camera's RAW file stacks under: the JPEG the camera wrote of the same shot. */
const TOPS = ['.jpg', '.jpeg'];
const extOf = (rel: string) => path.extname(rel).toLowerCase();
export const isRaw = (rel: string) => RAW_EXTENSIONS.includes(extOf(rel));
export const isStackTop = (rel: string) => TOPS.includes(extOf(rel));
/** The shot a file is of: its folder and name without the extension, in any case (`dcim/img_1`). */
export const shotOf = (rel: string) => rel.slice(0, rel.length - path.extname(rel).length).toLowerCase();

/** A known path of a library's file, with its library's root. */
export interface KnownPath {
  library_id: string;
  rel_path: string;
  root: string;
  asset_id: string | null;
  sha256: string | null;
  size: number;
}

/** The rows the rules read (the library repository's, as the batch so far has left them). */
export interface Known {
  /** The asset a path of this library answers for, and the content it had. */
  file(libraryId: string, rel: string): { asset_id: string | null; sha256: string | null } | undefined;
  /** An asset's file path, and whether it is in the index (not deleted). */
  asset(assetId: string): { stored_path: string; live: boolean } | undefined;
  /** Every path that answers for an asset. */
  filesOfAsset(assetId: string): KnownPath[];
  /** Indexed paths of live assets in the workspace with this content. */
  withContent(workspaceId: string, sha256: string): KnownPath[];
  /** Indexed paths of the library of the same shot (folder and name but the extension, any case), other than `rel`. */
  sameShot(libraryId: string, rel: string): KnownPath[];
}

export interface LibraryAt {
  id: string;
  workspace_id: string;
  /** The library's root folder. */
  path: string;
  /** A RAW file and the JPEG of the same shot are one asset. */
  stackRaw: boolean;
}

/** An asset's file moves to another path (it answers for the asset from now on). */
export interface Relocation {
  assetId: string;
  to: string;
  libraryId: string;
}

export type FileDecision =
  /** Touched, not changed: the path's size and time are recorded. */
  | { kind: 'unchanged'; assetId: string }
  /** New content for the asset the path answers for: every stage again. */
  | { kind: 'changed'; assetId: string }
  /** The content was at a path now gone: that path leaves, the asset follows (relocate) when it was its file. */
  | { kind: 'moved'; assetId: string; from: { library_id: string; rel_path: string }; relocate: Relocation | null }
  /** The content is already indexed at a path still there: this path answers for the same asset. */
  | { kind: 'duplicate'; assetId: string }
  /** A RAW file of the same shot as an indexed JPEG: it answers for the JPEG's asset. */
  | { kind: 'stacked'; assetId: string }
  /** The JPEG of a RAW indexed alone: the asset becomes the JPEG's (relocate), every stage again. */
  | { kind: 'stack-top'; assetId: string; relocate: Relocation }
  /** New content: a new asset. */
  | { kind: 'new' };

/** What a settled, read file means. `leaving`: the path's old asset first moves to another of its copies. */
export function placeFile(lib: LibraryAt, f: Extract<FileReport, { kind: 'file' }>, known: Known): FileDecision & { leaving?: Relocation | null } {
  const abs = path.join(lib.path, f.rel);
  const row = known.file(lib.id, f.rel);
  let leaving: Relocation | null | undefined;
  if (row?.asset_id && known.asset(row.asset_id)?.live) {
    if (row.sha256 === f.sha256) return { kind: 'unchanged', assetId: row.asset_id };
    // A stacked RAW rewritten (a DNG whose tags an editor wrote) is still the stack's: its JPEG stays the picture.
    const stored = known.asset(row.asset_id)?.stored_path ?? '';
    if (isRaw(f.rel) && isStackTop(stored) && shotOf(stored) === shotOf(abs)) return { kind: 'unchanged', assetId: row.asset_id };
    // Copies are paths of the same content; a stack's other file is not one.
    const others = known.filesOfAsset(row.asset_id).filter((o) => (o.library_id !== lib.id || o.rel_path !== f.rel) && o.sha256 === row.sha256);
    if (others.length === 0) return { kind: 'changed', assetId: row.asset_id };
    // One of several copies changed: the others keep the asset; this one is new content.
    leaving = follow(row.asset_id, abs, others, known);
  }
  const same = known.withContent(lib.workspace_id, f.sha256).filter((o) => o.library_id !== lib.id || o.rel_path !== f.rel);
  const moved = same.find((o) => f.gone.some((g) => g.library === o.library_id && g.rel === o.rel_path));
  if (moved?.asset_id) {
    const from = path.join(moved.root, moved.rel_path);
    const relocate = known.asset(moved.asset_id)?.stored_path === from ? { assetId: moved.asset_id, to: abs, libraryId: lib.id } : null;
    return { kind: 'moved', assetId: moved.asset_id, from: { library_id: moved.library_id, rel_path: moved.rel_path }, relocate, leaving };
  }
  if (same[0]?.asset_id) return { kind: 'duplicate', assetId: same[0].asset_id, leaving };
  if (lib.stackRaw && (isRaw(f.rel) || isStackTop(f.rel))) {
    const shot = known.sameShot(lib.id, f.rel).filter((o) => o.asset_id && known.asset(o.asset_id)?.live);
    const top = isRaw(f.rel) ? shot.find((o) => isStackTop(o.rel_path)) : undefined;
    if (top?.asset_id) return { kind: 'stacked', assetId: top.asset_id, leaving };
    // A RAW indexed alone: its asset's file is the RAW itself.
    const raw = isStackTop(f.rel) ? shot.find((o) => isRaw(o.rel_path) && known.asset(o.asset_id!)?.stored_path === path.join(o.root, o.rel_path)) : undefined;
    if (raw?.asset_id) return { kind: 'stack-top', assetId: raw.asset_id, relocate: { assetId: raw.asset_id, to: abs, libraryId: lib.id }, leaving };
  }
  return { kind: 'new', leaving };
}

/** What a path that is gone (or refused, or unreadable) means for the asset it answered for. */
export type DropDecision =
  | { kind: 'unknown' }
  | { kind: 'forget' }
  | { kind: 'remove'; assetId: string }
  /** `content`: the file the asset moves to holds other content (a stack's RAW once its JPEG is gone): every stage again. */
  | { kind: 'kept'; relocate: Relocation | null; content?: { size: number; sha256: string } };

export function dropPath(lib: LibraryAt, rel: string, known: Known): DropDecision {
  const row = known.file(lib.id, rel);
  if (!row) return { kind: 'unknown' };
  if (!row.asset_id) return { kind: 'forget' };
  const others = known.filesOfAsset(row.asset_id).filter((o) => o.library_id !== lib.id || o.rel_path !== rel);
  if (others.length === 0) return { kind: 'remove', assetId: row.asset_id };
  // A copy of the same content first; else the stack's other file.
  const ordered = [...others.filter((o) => o.sha256 === row.sha256), ...others.filter((o) => o.sha256 !== row.sha256)];
  const relocate = follow(row.asset_id, path.join(lib.path, rel), ordered, known);
  const to = ordered[0];
  return relocate && to.sha256 && to.sha256 !== row.sha256
    ? { kind: 'kept', relocate, content: { size: to.size, sha256: to.sha256 } }
    : { kind: 'kept', relocate };
}

/** An asset whose file at `abs` no longer answers for it moves to the first of its other copies. */
function follow(assetId: string, abs: string, others: KnownPath[], known: Known): Relocation | null {
  const first = others[0];
  if (!first || known.asset(assetId)?.stored_path !== abs) return null;
  return { assetId, to: path.join(first.root, first.rel_path), libraryId: first.library_id };
}

/** After a full scan: whether the library is there, and what its files' absence means. */
export type ScanOutcome = { kind: 'online' } | { kind: 'offline'; reason: string };

export function scanOutcome(done: { rootMissing: boolean; rootEmpty: boolean }, assetsKnown: number): ScanOutcome {
  if (done.rootMissing) return { kind: 'offline', reason: 'the folder is not there (is its drive connected?)' };
  // An empty mount point looks like a folder whose files were all deleted: keep them.
  if (done.rootEmpty && assetsKnown > 0) return { kind: 'offline', reason: 'the folder is empty (is its drive mounted?); its assets are kept' };
  return { kind: 'online' };
}
