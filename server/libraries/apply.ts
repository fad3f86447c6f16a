// Carries out the rules of reconcile.ts against the database: one transaction per batch of the
// file-system thread's reports, each decision taken on the rows the ones before it left. No disk I/O
// here: whether a path is gone was decided by the file-system thread.
import path from 'node:path';
import type { Store } from '../store/index.ts';
import type { LibraryRow } from '../store/libraries.repo.ts';
import type { FileReport } from './protocol.ts';
import { dropPath, isRaw, isStackTop, placeFile, shotOf, type Known, type LibraryAt, type Relocation } from './reconcile.ts';
import { RAW_MIME } from '../contract/assets.ts';

/** A file of a library as its file-system thread reports it, to become an asset. */
export interface LibraryFileIn {
  path: string;
  ext: string;
  size: number;
  sha256: string;
  mime: string;
  /** Its modification time when its checksum was taken. */
  mtimeMs: number;
}

/** What keeping libraries in step asks of the assets (AssetsService gives it). */
export interface LibraryAssets {
  /** New assets for these files, indexed in place and queued, in the caller's transaction; their ids. */
  admitLibraryFiles(workspaceId: string, libraryId: string, files: LibraryFileIn[]): string[];
  /** New content at an asset's path: every stage again (`mtimeMs` where the file at that path was read for it). */
  contentChanged(assetId: string, f: { size: number; sha256: string; mime: string; mtimeMs?: number }): void;
  /** The asset's file is now `absPath`. */
  relocate(assetId: string, absPath: string, libraryId: string): void;
  /** Out of the index, as on delete (the file is never touched). */
  removeFromIndex(assetId: string): void;
  /** A drive is back: what failed for want of its files runs again. */
  retryMissingFiles(libraryId: string): number;
  /** The XMP sidecar of an asset's file was written: its metadata is read again (the picture stages are not run). */
  sidecarChanged(assetId: string): void;
}

type Seen = { rel: string; size: number; mtimeMs: number; sha256: string };
/** A new asset's file, and the paths that answer for it too (copies of its content, a stack's RAW). */
type Fresh = LibraryFileIn & Seen & { twins: Seen[] };

/**
 * The new assets' files of a batch, found by content and by shot without a walk over the batch
 * for each file (a batch holds hundreds: each walk made taking in a folder grow with its square).
 */
class FreshFiles {
  readonly list: Fresh[] = [];
  private readonly byContent = new Map<string, Fresh>();
  /** Positions in `list` of each shot's files, in order. */
  private readonly byShot = new Map<string, number[]>();

  withContent(sha256: string): Fresh | undefined {
    return this.byContent.get(sha256);
  }

  /** The position of the first file of `rel`'s shot that `accept` takes, or -1. */
  ofShot(rel: string, accept: (x: Fresh) => boolean): number {
    return this.byShot.get(shotOf(rel))?.find((i) => accept(this.list[i])) ?? -1;
  }

  add(f: Fresh): void {
    if (!this.byContent.has(f.sha256)) this.byContent.set(f.sha256, f);
    const shot = shotOf(f.rel);
    const at = this.byShot.get(shot);
    if (at) at.push(this.list.length);
    else this.byShot.set(shot, [this.list.length]);
    this.list.push(f);
  }

  /** Puts `f` in place of the file at `i` (of the same shot). */
  replace(i: number, f: Fresh): void {
    if (this.byContent.get(this.list[i].sha256) === this.list[i]) this.byContent.delete(this.list[i].sha256);
    if (!this.byContent.has(f.sha256)) this.byContent.set(f.sha256, f);
    this.list[i] = f;
  }
}

/** Paths of gone files taken out per transaction. */
const DROP_BATCH = 500;

export class LibraryApply {
  private readonly known: Known;

  constructor(
    private readonly store: Store,
    private readonly assets: LibraryAssets,
  ) {
    const libraries = store.libraries;
    this.known = {
      file: (libraryId, rel) => libraries.file(libraryId, rel),
      asset: (id) => {
        const a = store.assets.byId(id);
        return a && { stored_path: a.stored_path, live: a.deleted_at === null };
      },
      filesOfAsset: (id) => libraries.filesOfAsset(id),
      withContent: (workspaceId, sha256) => libraries.withContent(workspaceId, sha256),
      sameShot: (libraryId, rel) => libraries.sameShot(libraryId, rel),
    };
  }

  /** Records one batch of reports; `waiting` hears of each path whether it is still being written. */
  batch(lib: LibraryRow, files: FileReport[], waiting: (rel: string, stillWritten: boolean) => void): void {
    const at = atOf(lib);
    const fresh = new FreshFiles();
    this.store.transaction(() => {
      for (const f of files) {
        waiting(f.rel, f.kind === 'unsettled');
        if (f.kind === 'unsettled') continue;
        if (f.kind === 'refused' || f.kind === 'unreadable') {
          this.drop(at, f.rel);
          const sizes = f.kind === 'refused' ? { size: f.size, mtime_ms: f.mtimeMs } : { size: 0, mtime_ms: 0 };
          this.store.libraries.putFile({ library_id: lib.id, rel_path: f.rel, ...sizes, sha256: null, asset_id: null, state: f.kind, reason: f.reason });
        } else {
          this.place(at, f, fresh);
        }
      }
      if (fresh.list.length === 0) return;
      const ids = this.assets.admitLibraryFiles(lib.workspace_id, lib.id, fresh.list);
      fresh.list.forEach((f, i) => {
        for (const seen of [f, ...f.twins]) this.put(lib.id, seen, ids[i]);
      });
    });
  }

  /** Takes paths confirmed gone out of the library, a few hundred per transaction. */
  gone(lib: LibraryRow, rels: string[]): void {
    const at = atOf(lib);
    for (let i = 0; i < rels.length; i += DROP_BATCH) {
      this.store.transaction(() => {
        for (const rel of rels.slice(i, i + DROP_BATCH)) this.drop(at, rel);
      });
    }
  }

  /**
   * The library is removed: its rows go, and each of its assets leaves the index unless another
   * library answers for it (the asset then reads that copy). Returns how many left.
   */
  removeLibrary(lib: LibraryRow): number {
    let removed = 0;
    const ids = this.store.libraries.assetsOf(lib.id);
    this.store.transaction(() => {
      for (const assetId of ids) {
        const elsewhere = this.store.libraries.filesOfAsset(assetId).filter((f) => f.library_id !== lib.id);
        if (elsewhere.length) this.relocate({ assetId, to: path.join(elsewhere[0].root, elsewhere[0].rel_path), libraryId: elsewhere[0].library_id });
        else {
          this.assets.removeFromIndex(assetId);
          removed++;
        }
      }
      this.store.libraries.remove(lib.id);
    });
    return removed;
  }

  private place(lib: LibraryAt, f: Extract<FileReport, { kind: 'file' }>, fresh: FreshFiles): void {
    const d = placeFile(lib, f, this.known);
    if (d.kind === 'changed') this.assets.contentChanged(d.assetId, f);
    if ('leaving' in d) this.relocate(d.leaving ?? null);
    if (d.kind === 'moved') {
      this.store.libraries.deleteFile(d.from.library_id, d.from.rel_path);
      this.relocate(d.relocate);
    }
    if (d.kind === 'stack-top') {
      this.relocate(d.relocate);
      this.assets.contentChanged(d.assetId, f);
    }
    if (d.kind !== 'new') return this.put(lib.id, f, d.assetId);
    const seen: Seen = { rel: f.rel, size: f.size, mtimeMs: f.mtimeMs, sha256: f.sha256 };
    const twin = fresh.withContent(f.sha256);
    if (twin) return void twin.twins.push(seen);
    const asFresh: Fresh = { path: path.join(lib.path, f.rel), ext: f.ext, mime: f.mime, ...seen, twins: [] };
    // A stack new in this batch: the JPEG is the asset's file, its RAW a path answering for it.
    const partner = (x: Fresh) => (isRaw(f.rel) ? isStackTop(x.rel) : isStackTop(f.rel) && isRaw(x.rel));
    const shot = lib.stackRaw ? fresh.ofShot(f.rel, partner) : -1;
    const other = shot >= 0 ? fresh.list[shot] : undefined;
    if (other && isRaw(f.rel)) return void other.twins.push(seen);
    if (other) {
      fresh.replace(shot, { ...asFresh, twins: [{ rel: other.rel, size: other.size, mtimeMs: other.mtimeMs, sha256: other.sha256 }, ...other.twins] });
      return;
    }
    fresh.add(asFresh);
  }

  /** Takes a path out of the library; its asset leaves the index unless another copy answers for it. */
  private drop(lib: LibraryAt, rel: string): void {
    const d = dropPath(lib, rel, this.known);
    if (d.kind === 'unknown') return;
    this.store.libraries.deleteFile(lib.id, rel);
    if (d.kind === 'remove') this.assets.removeFromIndex(d.assetId);
    else if (d.kind === 'kept') {
      this.relocate(d.relocate);
      // The stack's JPEG gone: the asset is its RAW's now, pictured from the RAW's preview.
      if (d.relocate && d.content) this.assets.contentChanged(d.relocate.assetId, { ...d.content, mime: mimeOf(d.relocate.to) });
    }
  }

  private relocate(r: Relocation | null): void {
    if (r) this.assets.relocate(r.assetId, r.to, r.libraryId);
  }

  private put(libraryId: string, f: { rel: string; size: number; mtimeMs: number; sha256: string }, assetId: string): void {
    this.store.libraries.putFile({
      library_id: libraryId,
      rel_path: f.rel,
      size: f.size,
      mtime_ms: f.mtimeMs,
      sha256: f.sha256,
      asset_id: assetId,
      state: 'indexed',
      reason: null,
    });
  }
}

function atOf(lib: LibraryRow): LibraryAt {
  return { id: lib.id, workspace_id: lib.workspace_id, path: lib.path, stackRaw: lib.stack_raw === 1 };
}

/** The type of a stack's file an asset falls back to (its RAW: the one content a stack moves to). */
function mimeOf(file: string): string {
  return RAW_MIME[path.extname(file).toLowerCase()] ?? 'image/jpeg';
}
