// Libraries (docs/guide.md, "Libraries"): who may add which folder, and what a library looks like to the
// API. Keeping them in sync is libraries/sync.ts; the policy on folders is libraries/policy.ts.
// Reads and writes libraries and their files; removing one removes its assets from the index
// (never a file).
import path from 'node:path';
import type { Store } from '../store/index.ts';
import type { LibraryCounts, LibraryRow } from '../store/libraries.repo.ts';
import { clock, iso, newId } from '../store/ids.ts';
import { AppError, Errors } from '../errors.ts';
import type { Library } from '../contract/libraries.ts';
import { checkLibraryPath } from '../libraries/policy.ts';
import { excluder } from '../libraries/exclude.ts';
import type { LibrarySync } from '../libraries/sync.ts';

const COUNTS_TTL_MS = 250;

const inside = (child: string, parent: string) => {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
};

export class LibrariesService {
  constructor(
    private readonly store: Store,
    private readonly sync: LibrarySync,
    private readonly opts: { roots: string[]; dataDir: string },
  ) {}

  add(workspaceId: string, body: { path: string; exclude: string[]; stack_raw: boolean }): Library {
    const outside = body.exclude.findIndex((g) => path.isAbsolute(g) || g.split(/[\\/]/).includes('..'));
    if (outside >= 0)
      throw Errors.invalidRequest([{ path: `exclude.${outside}`, message: 'a pattern is relative to the library folder (no leading /, no ..)' }]);
    try {
      excluder(body.exclude);
    } catch (err) {
      throw Errors.invalidRequest([{ path: 'exclude', message: (err as Error).message }]);
    }
    const real = checkLibraryPath(body.path, this.opts);
    for (const other of this.store.libraries.list(workspaceId)) {
      if (inside(real, other.path) || inside(other.path, real)) {
        throw new AppError('library_overlaps', 409, `${body.path} overlaps the library ${other.id} (${other.path}); a file belongs to one library.`);
      }
    }
    const row: LibraryRow = {
      id: newId('lib'),
      workspace_id: workspaceId,
      path: real,
      exclude: JSON.stringify(body.exclude),
      stack_raw: body.stack_raw ? 1 : 0,
      status: 'scanning',
      error: null,
      created_at: clock.now(),
      last_scan_at: null,
    };
    this.store.libraries.insert(row);
    this.sync.scan(row.id);
    return this.view(row);
  }

  list(workspaceId: string, limit: number, offset: number): { items: Library[]; total: number } {
    const all = this.store.libraries.list(workspaceId);
    return { items: all.slice(offset, offset + limit).map((l) => this.view(l)), total: all.length };
  }

  get(workspaceId: string, id: string): Library {
    return this.view(this.owned(workspaceId, id));
  }

  scan(workspaceId: string, id: string) {
    const lib = this.owned(workspaceId, id);
    this.sync.scan(lib.id);
    const view = this.view(this.store.libraries.byId(lib.id) ?? lib);
    return { library_id: lib.id, status: view.status, scan: view.scan };
  }

  /** Its assets leave the index (those no other library answers for); the files are never touched. */
  async remove(workspaceId: string, id: string): Promise<{ library_id: string; removed: true; assets_removed: number }> {
    const lib = this.owned(workspaceId, id);
    return { library_id: lib.id, removed: true, assets_removed: await this.sync.remove(lib) };
  }

  problems(workspaceId: string, id: string, limit: number, offset: number) {
    const lib = this.owned(workspaceId, id);
    const { rows, total } = this.store.libraries.problems(lib.id, limit, offset);
    return {
      items: rows.map((r) => ({ path: path.join(lib.path, r.rel_path), state: r.state as 'refused' | 'unreadable', reason: r.reason ?? '' })),
      total,
    };
  }

  /** Another workspace's library is simply not found. */
  private owned(workspaceId: string, id: string): LibraryRow {
    const lib = this.store.libraries.byId(id);
    if (!lib || lib.workspace_id !== workspaceId) throw Errors.notFound('Library');
    return lib;
  }

  /**
   * Counting a library of 100,000 files takes milliseconds: polled views share one count for a
   * moment, or until an asset is done or the library's files are recorded (so that a scan's files and
   * a library's last asset show as soon as they are: a view that said the scan was over with the
   * counts of before would tell a client polling it that there is nothing more to see).
   */
  private readonly counted = new Map<string, { at: number; recorded: number; counts: LibraryCounts }>();

  /** An asset was completed, or became searchable: the next view counts again. */
  assetProgressed(): void {
    this.counted.clear();
  }

  /** `recorded`: the sync's count of the library's recordings; counts taken before the last one are out of date. */
  private counts(id: string, recorded: number): LibraryCounts {
    const hit = this.counted.get(id);
    if (hit && hit.recorded === recorded && Date.now() - hit.at < COUNTS_TTL_MS) return hit.counts;
    const counts = this.store.libraries.counts(id);
    this.counted.set(id, { at: Date.now(), recorded, counts });
    return counts;
  }

  private view(lib: LibraryRow): Library {
    const p = this.sync.progress(lib.id);
    const c = this.counts(lib.id, p.recorded);
    return {
      library_id: lib.id,
      path: lib.path,
      exclude: JSON.parse(lib.exclude) as string[],
      stack_raw: lib.stack_raw === 1,
      status: lib.status,
      error: lib.error,
      files_seen: c.files_seen,
      assets: c.assets,
      pending: p.waiting + c.processing,
      reading: p.waiting + c.reading,
      offline_assets: lib.status === 'offline' ? c.assets : 0,
      refused: c.refused,
      unreadable: c.unreadable,
      last_scan_at: iso(lib.last_scan_at),
      created_at: iso(lib.created_at) as string,
      scan: { running: p.running, queued: p.queued, started_at: iso(p.started_at), files_walked: p.files_walked },
    };
  }
}
