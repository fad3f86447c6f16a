import { inTransaction, statementCache, type DB } from './db.ts';
import { INSERT_RUN, type StageRunRow } from './stage-runs.repo.ts';
import type { AssetKind } from '../contract/assets.ts';

export interface AssetRow {
  id: string;
  workspace_id: string;
  kind: AssetKind;
  file_name: string;
  ext: string;
  /** Relative to the data folder, or absolute for a linked file (indexed in place, never deleted). */
  stored_path: string;
  linked: 0 | 1;
  mime_type: string | null;
  size_bytes: number;
  sha256: string;
  pipeline: string;
  engine: 'arrow' | 'classic';
  gen1_tier: string | null;
  index_options: string | null;
  status: 'processing' | 'completed';
  page_count: number | null;
  duration_s: number | null;
  width: number | null;
  height: number | null;
  created_at: number;
  completed_at: number | null;
  deleted_at: number | null;
  /** The library the file was found in (indexed in place and kept in sync); null for uploads and `index`. */
  library_id: string | null;
  /** 0 while its stage runs are not written yet (the queue writes them when it reaches the asset). */
  runs_planned: 0 | 1;
}

/** A new asset's row (library and planning may be left out: none, and planned). */
export type NewAssetRow = Omit<AssetRow, 'library_id' | 'runs_planned'> & { library_id?: string | null; runs_planned?: 0 | 1 };

/** An asset as a workspace sees it: whether it owns it, and whether its library's folder is away. */
export type VisibleAsset = AssetRow & { owned: 0 | 1; offline: 0 | 1 };

export interface AssetFacts {
  mime_type?: string | null;
  page_count?: number | null;
  duration_s?: number | null;
  width?: number | null;
  height?: number | null;
}

// Visible to a workspace = owned by it or shared into it, and not deleted.
const VISIBLE = `a.deleted_at IS NULL AND (a.workspace_id = @ws OR EXISTS
  (SELECT 1 FROM asset_shares s WHERE s.asset_id = a.id AND s.workspace_id = @ws))`;

const SEEN_AS = `a.*, (a.workspace_id = @ws) AS owned,
  coalesce((SELECT l.status = 'offline' FROM libraries l WHERE l.id = a.library_id), 0) AS offline`;

export class AssetsRepo {
  private readonly sql: ReturnType<typeof statementCache>;

  constructor(private readonly db: DB) {
    this.sql = statementCache(db);
  }

  insertWithRuns(asset: NewAssetRow, runs: StageRunRow[]): void {
    const insertAsset = this.sql(
      `INSERT INTO assets (id, workspace_id, kind, file_name, ext, stored_path, linked, mime_type, size_bytes, sha256, pipeline,
         engine, gen1_tier, index_options, status, page_count, duration_s, width, height, created_at, completed_at, deleted_at, library_id, runs_planned)
       VALUES (@id, @workspace_id, @kind, @file_name, @ext, @stored_path, @linked, @mime_type, @size_bytes, @sha256, @pipeline,
         @engine, @gen1_tier, @index_options, @status, @page_count, @duration_s, @width, @height, @created_at, @completed_at, @deleted_at, @library_id, @runs_planned)`,
    );
    const insertRun = this.sql(INSERT_RUN);
    inTransaction(this.db, () => {
      insertAsset.run({ library_id: null, runs_planned: 1, ...asset });
      for (const r of runs) insertRun.run(r);
    });
  }

  /** The oldest live assets whose stage runs are not written yet. */
  unplanned(limit: number): AssetRow[] {
    return this.sql('SELECT * FROM assets WHERE runs_planned = 0 AND deleted_at IS NULL ORDER BY created_at, id LIMIT ?').all(limit) as AssetRow[];
  }

  markPlanned(id: string): void {
    this.sql('UPDATE assets SET runs_planned = 1 WHERE id = ?').run(id);
  }

  /** The file of an asset indexed in place moved: it follows (same id, same index). */
  relocate(id: string, storedPath: string, fileName: string, libraryId: string | null): void {
    this.db.prepare('UPDATE assets SET stored_path = ?, file_name = ?, library_id = ? WHERE id = ?').run(storedPath, fileName, libraryId, id);
  }

  /** The file of an asset indexed in place was rewritten: its new size and checksum. */
  replaceContent(id: string, sizeBytes: number, sha256: string, mimeType: string): void {
    this.db.prepare('UPDATE assets SET size_bytes = ?, sha256 = ?, mime_type = ? WHERE id = ?').run(sizeBytes, sha256, mimeType, id);
  }

  /** Live assets that came from a library. */
  idsOfLibrary(libraryId: string): string[] {
    return (this.db.prepare('SELECT id FROM assets WHERE library_id = ? AND deleted_at IS NULL').all(libraryId) as Array<{ id: string }>).map((r) => r.id);
  }

  byId(id: string): AssetRow | undefined {
    return this.sql('SELECT * FROM assets WHERE id = ?').get(id) as AssetRow | undefined;
  }

  findVisible(id: string, workspaceId: string): VisibleAsset | undefined {
    return this.db.prepare(`SELECT ${SEEN_AS} FROM assets a WHERE a.id = @id AND ${VISIBLE}`).get({ id, ws: workspaceId }) as VisibleAsset | undefined;
  }

  listVisible(workspaceId: string, limit: number, offset: number): { rows: VisibleAsset[]; total: number } {
    const rows = this.db
      .prepare(
        `SELECT ${SEEN_AS} FROM assets a WHERE ${VISIBLE}
         ORDER BY a.created_at DESC, a.id DESC LIMIT @limit OFFSET @offset`,
      )
      .all({ ws: workspaceId, limit, offset }) as VisibleAsset[];
    const { n } = this.db.prepare(`SELECT COUNT(*) AS n FROM assets a WHERE ${VISIBLE}`).get({ ws: workspaceId }) as {
      n: number;
    };
    return { rows, total: n };
  }

  markDeleted(id: string, at: number): boolean {
    return this.db.prepare('UPDATE assets SET deleted_at = ? WHERE id = ? AND deleted_at IS NULL').run(at, id).changes > 0;
  }

  share(assetId: string, workspaceId: string, at: number): boolean {
    return (
      this.db.prepare('INSERT OR IGNORE INTO asset_shares (asset_id, workspace_id, created_at) VALUES (?, ?, ?)').run(assetId, workspaceId, at).changes > 0
    );
  }

  setFacts(id: string, facts: AssetFacts): void {
    const keys = Object.keys(facts).filter((k) => (facts as Record<string, unknown>)[k] !== undefined);
    if (keys.length === 0) return;
    this.db.prepare(`UPDATE assets SET ${keys.map((k) => `${k} = @${k}`).join(', ')} WHERE id = @id`).run({ ...facts, id });
  }

  setProcessing(id: string): void {
    this.db.prepare("UPDATE assets SET status = 'processing', completed_at = NULL WHERE id = ?").run(id);
  }

  setCompleted(id: string, at: number): void {
    this.db.prepare("UPDATE assets SET status = 'completed', completed_at = ? WHERE id = ?").run(at, id);
  }

  /** Deleted assets with no stage run in flight, oldest first: the purge queue. */
  purgeCandidates(limit: number): AssetRow[] {
    return this.db
      .prepare(
        `SELECT a.* FROM assets a WHERE a.deleted_at IS NOT NULL
           AND NOT EXISTS (SELECT 1 FROM stage_runs r WHERE r.asset_id = a.id AND r.state = 'running')
         ORDER BY a.deleted_at LIMIT ?`,
      )
      .all(limit) as AssetRow[];
  }

  deleteRow(id: string): void {
    this.db.prepare('DELETE FROM assets WHERE id = ?').run(id);
  }

  allIds(): Set<string> {
    const rows = this.db.prepare('SELECT id FROM assets').all() as Array<{ id: string }>;
    return new Set(rows.map((r) => r.id));
  }
}
