// Libraries and the files they know (migration 0017). Paths of files are kept relative to the
// library's root; the root is absolute.
import { statementCache, type DB } from './db.ts';
import { PENDING_PHASE_ONE, PHASE_ONE_STAGE } from './stage-runs.repo.ts';

export const LIBRARY_STATUSES = ['scanning', 'watching', 'offline', 'error'] as const;
export type LibraryStatus = (typeof LIBRARY_STATUSES)[number];

export interface LibraryRow {
  id: string;
  workspace_id: string;
  path: string;
  /** JSON array of glob patterns, relative to the root. */
  exclude: string;
  /** 1: a RAW file and the JPEG of the same name in its folder are one asset (the JPEG shown). */
  stack_raw: 0 | 1;
  status: LibraryStatus;
  error: string | null;
  created_at: number;
  last_scan_at: number | null;
}

export type LibraryFileState = 'indexed' | 'refused' | 'unreadable';

export interface LibraryFileRow {
  library_id: string;
  rel_path: string;
  size: number;
  mtime_ms: number;
  sha256: string | null;
  asset_id: string | null;
  state: LibraryFileState;
  reason: string | null;
}

export interface LibraryCounts {
  /** Files the library knows: indexed, refused or unreadable. */
  files_seen: number;
  assets: number;
  /** Assets of the library still being indexed. */
  processing: number;
  /** Of those, the ones whose text and metadata are not read yet (phase 1 of indexing). */
  reading: number;
  refused: number;
  unreadable: number;
}

export class LibrariesRepo {
  private readonly sql: ReturnType<typeof statementCache>;

  constructor(private readonly db: DB) {
    this.sql = statementCache(db);
  }

  insert(row: LibraryRow): void {
    this.sql(
      `INSERT INTO libraries (id, workspace_id, path, exclude, stack_raw, status, error, created_at, last_scan_at)
         VALUES (@id, @workspace_id, @path, @exclude, @stack_raw, @status, @error, @created_at, @last_scan_at)`,
    ).run(row);
  }

  byId(id: string): LibraryRow | undefined {
    return this.sql('SELECT * FROM libraries WHERE id = ?').get(id) as LibraryRow | undefined;
  }

  list(workspaceId: string): LibraryRow[] {
    return this.sql('SELECT * FROM libraries WHERE workspace_id = ? ORDER BY created_at, id').all(workspaceId) as LibraryRow[];
  }

  all(): LibraryRow[] {
    return this.sql('SELECT * FROM libraries ORDER BY created_at, id').all() as LibraryRow[];
  }

  setStatus(id: string, status: LibraryStatus, error: string | null = null): void {
    this.sql('UPDATE libraries SET status = ?, error = ? WHERE id = ?').run(status, error, id);
  }

  scanned(id: string, at: number): void {
    this.sql('UPDATE libraries SET last_scan_at = ? WHERE id = ?').run(at, id);
  }

  remove(id: string): void {
    this.sql('DELETE FROM libraries WHERE id = ?').run(id);
  }

  /** Each count reads one index only (a library may hold 100,000 files and is polled). */
  counts(id: string): LibraryCounts {
    const one = (sql: string) => (this.sql(sql).get(id) as { n: number }).n;
    const problems = this.sql("SELECT state, COUNT(*) AS n FROM library_files WHERE library_id = ? AND state != 'indexed' GROUP BY state").all(id) as Array<{
      state: string;
      n: number;
    }>;
    return {
      files_seen: one('SELECT COUNT(*) AS n FROM library_files WHERE library_id = ?'),
      refused: problems.find((p) => p.state === 'refused')?.n ?? 0,
      unreadable: problems.find((p) => p.state === 'unreadable')?.n ?? 0,
      assets: one('SELECT COUNT(*) AS n FROM assets WHERE library_id = ? AND deleted_at IS NULL'),
      processing: one("SELECT COUNT(*) AS n FROM assets WHERE library_id = ? AND deleted_at IS NULL AND status = 'processing'"),
      // Driven from the few runs of phase 1 pending or running (migration 0029's index), not from every
      // asset the library has in phase 2.
      reading:
        one('SELECT COUNT(*) AS n FROM assets INDEXED BY assets_unplanned WHERE runs_planned = 0 AND deleted_at IS NULL AND library_id = ?') +
        one(
          `SELECT COUNT(*) AS n FROM (SELECT asset_id FROM stage_runs WHERE ${PENDING_PHASE_ONE}
                                      UNION SELECT asset_id FROM stage_runs WHERE state = 'running' AND ${PHASE_ONE_STAGE}) p
           CROSS JOIN assets a ON a.id = p.asset_id
           WHERE a.library_id = ? AND a.runs_planned = 1 AND a.deleted_at IS NULL AND a.status = 'processing'`,
        ),
    };
  }

  file(libraryId: string, relPath: string): LibraryFileRow | undefined {
    return this.sql('SELECT * FROM library_files WHERE library_id = ? AND rel_path = ?').get(libraryId, relPath) as LibraryFileRow | undefined;
  }

  /**
   * The indexed files an XMP sidecar belongs to: `dir/IMG_1.jpg.xmp` to `dir/IMG_1.jpg`, `dir/IMG_1.xmp`
   * to every `dir/IMG_1.<ext>`, in any case; their assets.
   */
  assetsOfSidecar(libraryId: string, sidecarRel: string): string[] {
    const slash = sidecarRel.lastIndexOf('/');
    const dir = sidecarRel.slice(0, slash + 1);
    const name = sidecarRel.slice(slash + 1).replace(/\.xmp$/i, '');
    const like = `${dir}${name}`.replace(/[\\%_]/g, (c) => `\\${c}`);
    const rows = this.sql(
      `SELECT rel_path, asset_id FROM library_files WHERE library_id = ? AND state = 'indexed' AND asset_id IS NOT NULL AND rel_path LIKE ? ESCAPE '\\'`,
    ).all(libraryId, `${like}%`) as Array<{ rel_path: string; asset_id: string }>;
    const base = name.toLowerCase();
    return [
      ...new Set(
        rows
          .filter((r) => r.rel_path.lastIndexOf('/') === slash)
          .filter((r) => {
            const file = r.rel_path.slice(slash + 1).toLowerCase();
            return file === base || file.replace(/\.[^.]+$/, '') === base;
          })
          .map((r) => r.asset_id),
      ),
    ];
  }

  /** Indexed files of the library in the same folder with the same name but the extension (any case), other than `rel`. */
  sameShot(libraryId: string, rel: string): Array<LibraryFileRow & { root: string }> {
    const slash = rel.lastIndexOf('/');
    const dot = rel.lastIndexOf('.');
    const stem = dot > slash ? rel.slice(0, dot) : rel;
    const like = `${stem}.`.replace(/[\\%_]/g, (c) => `\\${c}`);
    const rows = this.sql(
      `SELECT f.*, l.path AS root FROM library_files f JOIN libraries l ON l.id = f.library_id
         WHERE f.library_id = ? AND f.state = 'indexed' AND f.rel_path LIKE ? ESCAPE '\\' AND f.rel_path <> ?`,
    ).all(libraryId, `${like}%`, rel) as Array<LibraryFileRow & { root: string }>;
    const base = stem.toLowerCase();
    return rows.filter((r) => r.rel_path.lastIndexOf('/') === slash && r.rel_path.slice(0, r.rel_path.lastIndexOf('.')).toLowerCase() === base);
  }

  putFile(row: LibraryFileRow): void {
    this.sql(
      `INSERT INTO library_files (library_id, rel_path, size, mtime_ms, sha256, asset_id, state, reason)
         VALUES (@library_id, @rel_path, @size, @mtime_ms, @sha256, @asset_id, @state, @reason)
         ON CONFLICT (library_id, rel_path) DO UPDATE SET size = excluded.size, mtime_ms = excluded.mtime_ms,
           sha256 = excluded.sha256, asset_id = excluded.asset_id, state = excluded.state, reason = excluded.reason`,
    ).run(row);
  }

  deleteFile(libraryId: string, relPath: string): void {
    this.sql('DELETE FROM library_files WHERE library_id = ? AND rel_path = ?').run(libraryId, relPath);
  }

  /** Every path the library knows under a folder ('' = all), in order. */
  paths(libraryId: string, under = ''): string[] {
    const rows = under
      ? this.sql('SELECT rel_path FROM library_files WHERE library_id = ? AND (rel_path = ? OR substr(rel_path, 1, ?) = ?) ORDER BY rel_path').all(
          libraryId,
          under,
          under.length + 1,
          `${under}/`,
        )
      : this.sql('SELECT rel_path FROM library_files WHERE library_id = ? ORDER BY rel_path').all(libraryId);
    return (rows as Array<{ rel_path: string }>).map((r) => r.rel_path);
  }

  /** The files (of any library of the workspace) holding this content, with their library's root. */
  withContent(workspaceId: string, sha256: string): Array<LibraryFileRow & { root: string }> {
    return this.sql(
      `SELECT f.*, l.path AS root FROM library_files f JOIN libraries l ON l.id = f.library_id
         JOIN assets a ON a.id = f.asset_id AND a.deleted_at IS NULL
         WHERE f.sha256 = ? AND l.workspace_id = ? AND f.state = 'indexed'`,
    ).all(sha256, workspaceId) as Array<LibraryFileRow & { root: string }>;
  }

  /** The files that answer for an asset (more than one when the same content sits at several paths). */
  filesOfAsset(assetId: string): Array<LibraryFileRow & { root: string }> {
    return this.sql(
      'SELECT f.*, l.path AS root FROM library_files f JOIN libraries l ON l.id = f.library_id WHERE f.asset_id = ? ORDER BY l.created_at, f.rel_path',
    ).all(assetId) as Array<LibraryFileRow & { root: string }>;
  }

  /** Live assets answered for by a file of this library. */
  assetsOf(libraryId: string): string[] {
    return (
      this.db
        .prepare(
          `SELECT DISTINCT f.asset_id FROM library_files f JOIN assets a ON a.id = f.asset_id AND a.deleted_at IS NULL
           WHERE f.library_id = ? UNION SELECT id FROM assets WHERE library_id = ? AND deleted_at IS NULL`,
        )
        .all(libraryId, libraryId) as Array<{ asset_id: string }>
    ).map((r) => r.asset_id);
  }

  /** Refused and unreadable paths, for the owner to see why. */
  problems(libraryId: string, limit: number, offset: number): { rows: LibraryFileRow[]; total: number } {
    const rows = this.sql("SELECT * FROM library_files WHERE library_id = ? AND state != 'indexed' ORDER BY rel_path LIMIT ? OFFSET ?").all(
      libraryId,
      limit,
      offset,
    ) as LibraryFileRow[];
    const { n } = this.sql("SELECT COUNT(*) AS n FROM library_files WHERE library_id = ? AND state != 'indexed'").get(libraryId) as { n: number };
    return { rows, total: n };
  }
}
