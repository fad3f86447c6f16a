// What keeping libraries in step does to assets: a file found becomes an asset indexed in place, a
// file rewritten is indexed again, a file moved is followed, a file gone leaves the index (the file
// is never touched), and a drive back runs again what failed while it was away.
import path from 'node:path';
import type { Store } from '../store/index.ts';
import { clock, newId } from '../store/ids.ts';
import { EXTENSION_KINDS } from '../contract/assets.ts';
import type { EffectiveOptions } from '../contract/stages.ts';
import type { StageQueue } from '../indexer/queue.ts';
import { newAssetRow } from '../indexer/admission.ts';
import { displayName } from '../media/names.ts';
import { fileNameWords } from '../search/tokenizer.ts';
import type { LibraryAssets, LibraryFileIn } from './apply.ts';

export class LibraryAssetsOps implements LibraryAssets {
  private readonly removedFrom = new Set<string>();

  constructor(
    private readonly store: Store,
    private readonly queue: StageQueue,
    private readonly deps: {
      /** The options new files of a workspace are indexed with. */
      optionsFor(workspaceId: string): EffectiveOptions;
      /** Assets of the workspace left the index (People and the purge are told). */
      deleted(workspaceId: string): void;
    },
  ) {}

  /**
   * Files found in a library, already read, hashed and checked by its file-system thread: one asset
   * each, indexed in place and queued. Synchronous, so the caller records the files in the same
   * transaction (a crash leaves both or neither).
   */
  admitLibraryFiles(workspaceId: string, libraryId: string, files: LibraryFileIn[]): string[] {
    const effective = this.deps.optionsFor(workspaceId);
    const now = clock.now();
    return files.map((f) => {
      const id = newId('vid');
      const kind = EXTENSION_KINDS[f.ext];
      this.queue.admitUnplanned({
        ...newAssetRow(
          id,
          workspaceId,
          {
            path: f.path,
            fileName: displayName(path.basename(f.path)),
            ext: f.ext,
            kind,
            sizeBytes: f.size,
            sha256: f.sha256,
            mime: f.mime,
            linked: true,
            mtimeMs: f.mtimeMs,
          },
          effective,
          now,
        ),
        library_id: libraryId,
      });
      return id;
    });
  }

  /** A library file was rewritten: same asset, new content, every stage again (the owner's People decisions carry over). */
  contentChanged(assetId: string, f: { size: number; sha256: string; mime: string; mtimeMs?: number }): void {
    const a = this.store.assets.byId(assetId);
    if (!a || a.deleted_at !== null) return;
    this.store.assets.replaceContent(assetId, f.size, f.sha256, f.mime, f.mtimeMs ?? null);
    this.queue.rerun(a);
  }

  /** The XMP sidecar of a library file was written: its metadata stage runs again, nothing else. */
  sidecarChanged(assetId: string): void {
    const a = this.store.assets.byId(assetId);
    if (a && a.deleted_at === null) this.queue.rerun(a, ['metadata']);
  }

  /** A library file moved or was renamed: the asset follows, its index and People decisions untouched. */
  relocate(assetId: string, absPath: string, libraryId: string): void {
    const fileName = displayName(path.basename(absPath));
    this.store.assets.relocate(assetId, absPath, fileName, libraryId);
    this.store.search.replaceName(assetId, fileNameWords(fileName));
  }

  /** A library's drive is back: assets whose extraction failed while their file was away are indexed again. */
  retryMissingFiles(libraryId: string): number {
    const ids = this.store.runs.failedForMissingFile(libraryId);
    for (const id of ids) {
      const a = this.store.assets.byId(id);
      if (a) this.queue.rerun(a);
    }
    return ids.length;
  }

  /** A library file is gone (or its library removed): the asset leaves the index as on delete; the file is never touched. */
  removeFromIndex(assetId: string): void {
    const a = this.store.assets.byId(assetId);
    if (!a || !this.store.assets.markDeleted(assetId, clock.now())) return;
    // Many at once (a folder deleted, a library removed): People and the purge are told once.
    if (this.removedFrom.size === 0) {
      setImmediate(() => {
        for (const ws of this.removedFrom) this.deps.deleted(ws);
        this.removedFrom.clear();
      });
    }
    this.removedFrom.add(a.workspace_id);
  }
}
