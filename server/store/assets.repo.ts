import path from 'node:path';
import { inTransaction, statementCache, type DB } from './db.ts';
import { filterCondition, type ResolvedFilters } from './filters.sql.ts';
import { insertRuns, PHASE_ONE_STAGE, REAL_FAILURE, type StageRunRow } from './stage-runs.repo.ts';
import { type AssetKind, type IndexPhase } from '../contract/assets.ts';
import type { EffectiveOptions } from '../contract/stages.ts';
import { effectiveOptions } from './codec.ts';

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
  /** The index options it was admitted with (stored as JSON); null for the legacy pipelines. */
  index_options: EffectiveOptions | null;
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
  /** Photos: the clockwise turn (degrees) the faces stage found shows it upright; null before it looked. */
  orientation_detected: 0 | 90 | 180 | 270 | null;
  /** The owner's own turn (the viewer's Rotate), shown instead of orientation_detected; null when not set. */
  orientation_set: 0 | 90 | 180 | 270 | null;
  /** A file indexed in place: its modification time (ms) when its checksum was taken; null when not known. */
  file_mtime_ms: number | null;
}

/** A new asset's row (library and planning may be left out: none, and planned). */
export type NewAssetRow = Omit<AssetRow, 'library_id' | 'runs_planned' | 'orientation_detected' | 'orientation_set' | 'file_mtime_ms'> & {
  library_id?: string | null;
  runs_planned?: 0 | 1;
  file_mtime_ms?: number | null;
};

/** An asset as a workspace sees it: whether it owns it, and whether its library's folder is away. */
export type VisibleAsset = AssetRow & { owned: 0 | 1; offline: 0 | 1; taken_at?: string | null };

/** A visible asset as lists and the detail show it. */
export type ListedAsset = VisibleAsset & {
  /** The workspace's own mark, and its rating (else the file's). */
  favorite: 0 | 1;
  rating: number | null;
  /** The stages that failed, as a JSON array. */
  failed_stages: string;
  index_phase: IndexPhase;
};

/** A row as SQLite gives it, its options decoded. */
function decoded<T extends { index_options: unknown }>(row: T): T & { index_options: EffectiveOptions | null } {
  return { ...row, index_options: effectiveOptions(row as { index_options: string | null }) };
}
function decodedOrNone<T extends { index_options: unknown }>(row: T | undefined) {
  return row && decoded(row);
}

export interface AssetFacts {
  mime_type?: string | null;
  page_count?: number | null;
  duration_s?: number | null;
  width?: number | null;
  height?: number | null;
}

// Visible to a workspace = owned by it or shared into it, and not deleted.
/** Width / height of a picture as shown (turned by the owner's turn, else orientation_detected), 3 decimals; 0 when not known. */
function shownRatio(w: number | null, h: number | null, turn: number | null): number {
  return w && h ? Math.round((turn === 90 || turn === 270 ? h / w : w / h) * 1000) / 1000 : 0;
}

const VISIBLE = `a.deleted_at IS NULL AND (a.workspace_id = @ws OR EXISTS
  (SELECT 1 FROM asset_shares s WHERE s.asset_id = a.id AND s.workspace_id = @ws))`;

const SEEN_AS = `a.*, (a.workspace_id = @ws) AS owned,
  coalesce((SELECT l.status = 'offline' FROM libraries l WHERE l.id = a.library_id), 0) AS offline`;

// As the list and the detail show it: also the workspace's own marks and the stages that failed.
const LISTED_AS = `${SEEN_AS},
  coalesce((SELECT k.favorite FROM asset_marks k WHERE k.asset_id = a.id AND k.workspace_id = @ws), 0) AS favorite,
  coalesce((SELECT k.rating FROM asset_marks k WHERE k.asset_id = a.id AND k.workspace_id = @ws),
    (SELECT md.rating FROM asset_metadata md WHERE md.asset_id = a.id)) AS rating,
  (SELECT json_group_array(r.stage) FROM stage_runs r WHERE r.asset_id = a.id AND ${REAL_FAILURE}) AS failed_stages,
  CASE WHEN a.status <> 'processing' THEN 'done'
    WHEN a.runs_planned = 0 OR EXISTS (SELECT 1 FROM stage_runs r WHERE r.asset_id = a.id AND r.state IN ('pending', 'running')
      AND r.${PHASE_ONE_STAGE}) THEN 'reading'
    ELSE 'enriching' END AS index_phase`;

export class AssetsRepo {
  private readonly sql: ReturnType<typeof statementCache>;

  constructor(private readonly db: DB) {
    this.sql = statementCache(db);
  }

  setOrientationDetected(id: string, turn: 0 | 90 | 180 | 270): void {
    this.sql('UPDATE assets SET orientation_detected = ? WHERE id = ?').run(turn, id);
  }

  /** The owner's own turn of a photo (null: back to the detected one). */
  setOrientationSet(id: string, turn: 0 | 90 | 180 | 270 | null): void {
    this.sql('UPDATE assets SET orientation_set = ? WHERE id = ?').run(turn, id);
  }

  insertWithRuns(asset: NewAssetRow, runs: StageRunRow[]): void {
    const insertAsset = this.sql(
      `INSERT INTO assets (id, workspace_id, kind, file_name, ext, stored_path, linked, mime_type, size_bytes, sha256, pipeline,
         engine, gen1_tier, index_options, status, page_count, duration_s, width, height, created_at, completed_at, deleted_at, library_id, runs_planned,
         file_mtime_ms)
       VALUES (@id, @workspace_id, @kind, @file_name, @ext, @stored_path, @linked, @mime_type, @size_bytes, @sha256, @pipeline,
         @engine, @gen1_tier, @index_options, @status, @page_count, @duration_s, @width, @height, @created_at, @completed_at, @deleted_at, @library_id, @runs_planned,
         @file_mtime_ms)`,
    );
    inTransaction(this.db, () => {
      insertAsset.run({
        library_id: null,
        runs_planned: 1,
        file_mtime_ms: null,
        ...asset,
        index_options: asset.index_options ? JSON.stringify(asset.index_options) : null,
      });
      insertRuns(this.sql, runs);
    });
  }

  /** The oldest live assets whose stage runs are not written yet. */
  unplanned(limit: number): AssetRow[] {
    return (this.sql('SELECT * FROM assets WHERE runs_planned = 0 AND deleted_at IS NULL ORDER BY created_at, id LIMIT ?').all(limit) as AssetRow[]).map(
      decoded,
    );
  }

  markPlanned(id: string): void {
    this.sql('UPDATE assets SET runs_planned = 1 WHERE id = ?').run(id);
  }

  /** The file of an asset indexed in place moved: it follows (same id, same index). */
  relocate(id: string, storedPath: string, fileName: string, libraryId: string | null): void {
    // Its extension follows the file (a stack's RAW and JPEG; IMG_1.JPG renamed img_1.jpeg).
    const ext = path.extname(storedPath).toLowerCase();
    // Another file (a copy, a stack's RAW): its modification time is not the one the checksum was taken at.
    this.sql('UPDATE assets SET stored_path = ?, file_name = ?, library_id = ?, ext = ?, file_mtime_ms = NULL WHERE id = ?').run(
      storedPath,
      fileName,
      libraryId,
      ext,
      id,
    );
  }

  /** The file of an asset indexed in place was rewritten: its new size, checksum and modification time (null: not known). */
  replaceContent(id: string, sizeBytes: number, sha256: string, mimeType: string, mtimeMs: number | null): void {
    this.sql('UPDATE assets SET size_bytes = ?, sha256 = ?, mime_type = ?, file_mtime_ms = ? WHERE id = ?').run(sizeBytes, sha256, mimeType, mtimeMs, id);
  }

  /** Live assets that came from a library. */
  idsOfLibrary(libraryId: string): string[] {
    return (this.sql('SELECT id FROM assets WHERE library_id = ? AND deleted_at IS NULL').all(libraryId) as Array<{ id: string }>).map((r) => r.id);
  }

  /** Where an asset is in its life (what recording a run needs of it): one look at two columns. */
  lifecycle(id: string): Pick<AssetRow, 'status' | 'deleted_at'> | undefined {
    return this.sql('SELECT status, deleted_at FROM assets WHERE id = ?').get(id) as Pick<AssetRow, 'status' | 'deleted_at'> | undefined;
  }

  /** An asset's file name and time of admission, its options not decoded (read for every file a stage saves). */
  brief(id: string): Pick<AssetRow, 'file_name' | 'created_at'> | undefined {
    return this.sql('SELECT file_name, created_at FROM assets WHERE id = ?').get(id) as Pick<AssetRow, 'file_name' | 'created_at'> | undefined;
  }

  byId(id: string): AssetRow | undefined {
    return decodedOrNone(this.sql('SELECT * FROM assets WHERE id = ?').get(id) as AssetRow | undefined);
  }

  findVisible(id: string, workspaceId: string): VisibleAsset | undefined {
    return decodedOrNone(this.sql(`SELECT ${SEEN_AS} FROM assets a WHERE a.id = @id AND ${VISIBLE}`).get({ id, ws: workspaceId }) as VisibleAsset | undefined);
  }
  /** A visible asset with what its detail shows besides (the workspace's marks, the stages that failed). */
  findListed(id: string, workspaceId: string): ListedAsset | undefined {
    return decodedOrNone(this.sql(`SELECT ${LISTED_AS} FROM assets a WHERE a.id = @id AND ${VISIBLE}`).get({ id, ws: workspaceId }) as ListedAsset | undefined);
  }

  /** A page of the assets a workspace sees, newest added (or taken: those not dated yet first, as the timeline shows them) first, under a condition. */
  listVisible(
    workspaceId: string,
    limit: number,
    offset: number,
    opts: { order?: 'created' | 'taken_at'; filters?: ResolvedFilters } = {},
  ): { rows: ListedAsset[]; total: number } {
    const where = filterCondition(opts.filters ?? {});
    const params = { ws: workspaceId, limit, offset, ...where.params };
    // The page's ids are found with a narrow sort (id and the order's keys), then its rows are read:
    // sorting whole rows is what made deep pages slow in a large library.
    const order = opts.order === 'taken_at' ? 't DESC NULLS FIRST, c DESC, id DESC' : 'c DESC, id DESC';
    const rows = this.db
      .prepare(
        `WITH page AS (
           SELECT a.id, m.taken_ms AS t, a.created_at AS c FROM assets a LEFT JOIN asset_metadata m ON m.asset_id = a.id
           WHERE ${VISIBLE} AND (${where.sql}) ORDER BY ${order} LIMIT @limit OFFSET @offset)
         SELECT ${LISTED_AS}, m.taken_at FROM page JOIN assets a ON a.id = page.id LEFT JOIN asset_metadata m ON m.asset_id = a.id
         ORDER BY ${order.replace(/\b(t|c|id)\b/g, 'page.$1')}`,
      )
      .all(params) as ListedAsset[];
    rows.forEach((r, i) => (rows[i] = decoded(r)));
    const { n } = this.db.prepare(`SELECT COUNT(*) AS n FROM assets a WHERE ${VISIBLE} AND (${where.sql})`).get({ ws: workspaceId, ...where.params }) as {
      n: number;
    };
    return { rows, total: n };
  }

  /** Of these assets, those not deleted. */
  liveAmong(ids: string[]): Set<string> {
    const rows = this.sql('SELECT id FROM assets WHERE deleted_at IS NULL AND id IN (SELECT value FROM json_each(?))').all(JSON.stringify(ids)) as Array<{
      id: string;
    }>;
    return new Set(rows.map((r) => r.id));
  }

  /** Width / height as shown (the owner's turn or orientation_detected applied; 0 when not known) and length of these assets. */
  shapesOf(ids: string[]): Map<string, { ratio: number; duration_s: number | null }> {
    if (ids.length === 0) return new Map();
    const rows = this.sql(
      'SELECT id, width, height, coalesce(orientation_set, orientation_detected), duration_s FROM assets WHERE id IN (SELECT value FROM json_each(?))',
    )
      .raw()
      .all(JSON.stringify(ids)) as Array<[string, number | null, number | null, number | null, number | null]>;
    return new Map(rows.map(([id, w, h, turn, duration_s]) => [id, { ratio: shownRatio(w, h, turn), duration_s }]));
  }

  /** The id and shape (width / height as shown, 0 when not known) of every asset the workspace sees under the filters, newest taken first (undated first). */
  layout(workspaceId: string, filters: ResolvedFilters = {}): { ids: string[]; ratios: number[] } {
    const where = filterCondition(filters);
    const rows = this.db
      .prepare(
        `SELECT a.id, a.width, a.height, coalesce(a.orientation_set, a.orientation_detected) FROM assets a LEFT JOIN asset_metadata m ON m.asset_id = a.id
         WHERE ${VISIBLE} AND (${where.sql}) ORDER BY m.taken_ms DESC NULLS FIRST, a.created_at DESC, a.id DESC`,
      )
      .raw()
      .all({ ws: workspaceId, ...where.params }) as Array<[string, number | null, number | null, number | null]>;
    const ids = new Array<string>(rows.length);
    const ratios = new Array<number>(rows.length);
    rows.forEach(([id, w, h, turn], i) => {
      ids[i] = id;
      ratios[i] = shownRatio(w, h, turn);
    });
    return { ids, ratios };
  }

  /** These assets, of those the workspace sees under the filters, in the order given (no sort: a page of a laid-out timeline). */
  listByIds(workspaceId: string, ids: string[], filters: ResolvedFilters = {}): ListedAsset[] {
    const where = filterCondition(filters);
    const rows = this.db
      .prepare(
        `SELECT ${LISTED_AS}, m.taken_at FROM json_each(@ids) j JOIN assets a ON a.id = j.value LEFT JOIN asset_metadata m ON m.asset_id = a.id
         WHERE ${VISIBLE} AND (${where.sql}) ORDER BY j.key`,
      )
      .all({ ws: workspaceId, ids: JSON.stringify(ids), ...where.params }) as ListedAsset[];
    return rows.map((r) => decoded(r));
  }

  /** How many assets the workspace sees per month taken (UTC), newest first; and how many have no date. */
  months(workspaceId: string, filters: ResolvedFilters = {}): { months: Array<{ month: string; count: number }>; undated: number } {
    const where = filterCondition(filters);
    const rows = this.db
      .prepare(
        `SELECT strftime('%Y-%m', m.taken_ms / 1000, 'unixepoch') AS month, COUNT(*) AS count
         FROM assets a LEFT JOIN asset_metadata m ON m.asset_id = a.id WHERE ${VISIBLE} AND (${where.sql})
         GROUP BY month ORDER BY month IS NULL, month DESC`,
      )
      .all({ ws: workspaceId, ...where.params }) as Array<{ month: string | null; count: number }>;
    return { months: rows.filter((r) => r.month !== null) as Array<{ month: string; count: number }>, undated: rows.find((r) => r.month === null)?.count ?? 0 };
  }

  /** What the workspace's assets can be narrowed by, with counts. */
  facets(workspaceId: string) {
    const all = <T>(sql: string) => this.db.prepare(sql).all({ ws: workspaceId }) as T[];
    // Kinds, years, places and cameras counted in one pass over the rows (four GROUP BYs over
    // 100,000 assets took ≈ 600 ms; one pass, counted here, a fraction of that).
    const rows = this.sql(
      `SELECT a.kind, m.taken_ms, coalesce(m.city, m.country), m.country_code, m.camera
       FROM assets a LEFT JOIN asset_metadata m ON m.asset_id = a.id WHERE ${VISIBLE}`,
    )
      .raw()
      .all({ ws: workspaceId }) as Array<['video' | 'image' | 'document', number | null, string | null, string | null, string | null]>;
    const kinds = new Map<'video' | 'image' | 'document', number>();
    const years = new Map<number, number>();
    const places = new Map<string, { value: string; country_code: string | null; count: number }>();
    const cameras = new Map<string, number>();
    for (const [kind, takenMs, place, code, camera] of rows) {
      kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
      if (takenMs !== null) {
        const year = new Date(takenMs).getUTCFullYear();
        years.set(year, (years.get(year) ?? 0) + 1);
      }
      if (place !== null) {
        const k = `${place}\u0000${code ?? ''}`;
        const p = places.get(k);
        if (p) p.count++;
        else places.set(k, { value: place, country_code: code, count: 1 });
      }
      if (camera !== null) cameras.set(camera, (cameras.get(camera) ?? 0) + 1);
    }
    const byCount = <T extends { count: number }>(a: T, b: T) => b.count - a.count;
    return {
      kinds: [...kinds].map(([value, count]) => ({ value, count })).sort(byCount),
      years: [...years].map(([value, count]) => ({ value, count })).sort((a, b) => b.value - a.value),
      places: [...places.values()].sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0)).slice(0, 50),
      cameras: [...cameras]
        .map(([value, count]) => ({ value, count }))
        .sort(byCount)
        .slice(0, 30),
      people: all<{ value: string; name: string; count: number }>(
        `SELECT p.id AS value, p.name, COUNT(DISTINCT f.asset_id) AS count FROM people p JOIN face_people fp ON fp.person_id = p.id JOIN faces f ON f.id = fp.face_id
         JOIN assets a ON a.id = f.asset_id AND a.deleted_at IS NULL
         WHERE p.workspace_id = @ws AND p.merged_into IS NULL AND p.name != '' AND p.hidden = 0 GROUP BY p.id ORDER BY count DESC LIMIT 50`,
      ),
      libraries: all<{ value: string; path: string; count: number }>(
        `SELECT l.id AS value, l.path, COUNT(a.id) AS count FROM libraries l LEFT JOIN assets a ON a.library_id = l.id AND a.deleted_at IS NULL
         WHERE l.workspace_id = @ws GROUP BY l.id ORDER BY l.created_at`,
      ),
    };
  }

  /**
   * What a set of assets (a search's result) holds, counted in assets: kinds, years, places, cameras,
   * the workspace's named people and its collections. The ids were already checked as visible.
   */
  facetsOf(workspaceId: string, ids: string[]) {
    const list = JSON.stringify(ids);
    // Kinds, years, places and cameras in one pass over the assets' rows.
    const rows = this.sql(
      `SELECT a.kind, CAST(strftime('%Y', m.taken_ms / 1000, 'unixepoch') AS INTEGER) AS year, coalesce(m.city, m.country) AS place, m.country_code, m.camera
       FROM assets a LEFT JOIN asset_metadata m ON m.asset_id = a.id WHERE a.id IN (SELECT value FROM json_each(?))`,
    )
      .raw()
      .all(list) as Array<['video' | 'image' | 'document', number | null, string | null, string | null, string | null]>;
    const count = <K>(keys: Array<K | null>) => {
      const m = new Map<K, number>();
      for (const k of keys) if (k !== null) m.set(k, (m.get(k) ?? 0) + 1);
      return [...m];
    };
    const byCount = <T extends { count: number; value: string | number }>(a: T, b: T) => b.count - a.count || String(a.value).localeCompare(String(b.value));
    const codes = new Map(rows.filter((r) => r[2] !== null).map((r) => [r[2], r[3]]));
    return {
      kinds: count(rows.map((r) => r[0]))
        .map(([value, n]) => ({ value, count: n }))
        .sort(byCount),
      years: count(rows.map((r) => r[1]))
        .map(([value, n]) => ({ value, count: n }))
        .sort((a, b) => b.value - a.value),
      places: count(rows.map((r) => r[2]))
        .map(([value, n]) => ({ value, country_code: codes.get(value) ?? null, count: n }))
        .sort(byCount)
        .slice(0, 30),
      cameras: count(rows.map((r) => r[4]))
        .map(([value, n]) => ({ value, count: n }))
        .sort(byCount)
        .slice(0, 20),
      people: this.sql(
        `SELECT p.id AS value, p.name, COUNT(DISTINCT f.asset_id) AS count FROM people p JOIN face_people fp ON fp.person_id = p.id JOIN faces f ON f.id = fp.face_id
         WHERE f.asset_id IN (SELECT value FROM json_each(@ids)) AND p.workspace_id = @ws AND p.merged_into IS NULL AND p.name != '' AND p.hidden = 0
         GROUP BY p.id ORDER BY count DESC, p.name LIMIT 30`,
      ).all({ ws: workspaceId, ids: list }) as Array<{ value: string; name: string; count: number }>,
      collections: this.sql(
        `SELECT c.id AS value, c.name, COUNT(*) AS count FROM collections c JOIN collection_assets ca ON ca.collection_id = c.id
         WHERE c.workspace_id = @ws AND ca.asset_id IN (SELECT value FROM json_each(@ids)) GROUP BY c.id ORDER BY count DESC, c.name LIMIT 30`,
      ).all({ ws: workspaceId, ids: list }) as Array<{ value: string; name: string; count: number }>,
    };
  }

  markDeleted(id: string, at: number): boolean {
    return this.sql('UPDATE assets SET deleted_at = ? WHERE id = ? AND deleted_at IS NULL').run(at, id).changes > 0;
  }

  share(assetId: string, workspaceId: string, at: number): boolean {
    return this.sql('INSERT OR IGNORE INTO asset_shares (asset_id, workspace_id, created_at) VALUES (?, ?, ?)').run(assetId, workspaceId, at).changes > 0;
  }

  setFacts(id: string, facts: AssetFacts): void {
    const keys = Object.keys(facts).filter((k) => (facts as Record<string, unknown>)[k] !== undefined);
    if (keys.length === 0) return;
    this.sql(`UPDATE assets SET ${keys.map((k) => `${k} = @${k}`).join(', ')} WHERE id = @id`).run({ ...facts, id });
  }

  setProcessing(id: string): void {
    this.sql("UPDATE assets SET status = 'processing', completed_at = NULL WHERE id = ?").run(id);
  }

  setCompleted(id: string, at: number): void {
    this.sql("UPDATE assets SET status = 'completed', completed_at = ? WHERE id = ?").run(at, id);
  }

  /** Deleted assets with no stage run in flight, oldest first: the purge queue. */
  purgeCandidates(limit: number): AssetRow[] {
    return (
      this.sql(
        `SELECT a.* FROM assets a WHERE a.deleted_at IS NOT NULL
           AND NOT EXISTS (SELECT 1 FROM stage_runs r WHERE r.asset_id = a.id AND r.state = 'running')
         ORDER BY a.deleted_at LIMIT ?`,
      ).all(limit) as AssetRow[]
    ).map(decoded);
  }

  deleteRow(id: string): void {
    this.sql('DELETE FROM assets WHERE id = ?').run(id);
  }

  allIds(): Set<string> {
    const rows = this.sql('SELECT id FROM assets').all() as Array<{ id: string }>;
    return new Set(rows.map((r) => r.id));
  }
}
