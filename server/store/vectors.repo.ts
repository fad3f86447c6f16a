// Dense vectors of indexed evidence, per model. The rows are the truth; the index file of each model
// (vector-index.ts) is rebuilt from them when it is missing or behind, and the similarity of what it
// proposes is computed again from them.
import type { DB } from './db.ts';
import { filterCondition, type ResolvedFilters } from './filters.sql.ts';
import type { EntryHit, NewEntry } from './search.repo.ts';
import { floats } from './codec.ts';

/** A piece of evidence (as the lexical index holds it) with its vector. */
export interface NewVector extends NewEntry {
  vector: Float32Array;
}

export interface StoredVector {
  id: number;
  vector: Float32Array;
}

/** A vector's evidence in an asset the caller may see, shaped like a lexical entry. */
export type VectorHit = Omit<EntryHit, 'rank'> & { similarity: number };

const asBlob = (v: Float32Array) => Buffer.from(v.buffer, v.byteOffset, v.byteLength);

export class VectorsRepo {
  constructor(private readonly db: DB) {}

  /** Replaces an asset's vectors of one model (call inside a transaction); returns the ids gone and the rows added. */
  replaceForAsset(assetId: string, model: string, rows: NewVector[]): { removed: number[]; added: StoredVector[] } {
    const removed = (this.db.prepare('SELECT id FROM vectors WHERE asset_id = ? AND model = ?').all(assetId, model) as Array<{ id: number }>).map((r) => r.id);
    this.db.prepare('DELETE FROM vectors WHERE asset_id = ? AND model = ?').run(assetId, model);
    const insert = this.db.prepare(
      `INSERT INTO vectors (asset_id, model, modality, timestamp, page, ref, region_id, text, vector)
       VALUES (@asset_id, @model, @modality, @timestamp, @page, @ref, @region_id, @text, @vector)`,
    );
    const added = rows.map((r) => ({
      id: Number(insert.run({ ...r, asset_id: assetId, model, vector: asBlob(r.vector) }).lastInsertRowid),
      vector: r.vector,
    }));
    return { removed, added };
  }

  idsOfAsset(assetId: string): Array<{ id: number; model: string }> {
    return this.db.prepare('SELECT id, model FROM vectors WHERE asset_id = ?').all(assetId) as Array<{ id: number; model: string }>;
  }

  /** Rows of a model with an id above `afterId`, in id order, a batch at a time. */
  *after(model: string, afterId: number, batch = 5000): Generator<StoredVector[]> {
    const q = this.db.prepare('SELECT id, vector FROM vectors WHERE model = ? AND id > ? ORDER BY id LIMIT ?');
    for (let last = afterId; ;) {
      const rows = q.all(model, last, batch) as Array<{ id: number; vector: Buffer }>;
      if (rows.length === 0) return;
      yield rows.map((r) => ({ id: r.id, vector: floats(r.vector) }));
      last = rows[rows.length - 1].id;
    }
  }

  /** Rows of a model with an id up to `lastId`. */
  countUpTo(model: string, lastId: number): number {
    return (this.db.prepare('SELECT count(*) AS n FROM vectors WHERE model = ? AND id <= ?').get(model, lastId) as { n: number }).n;
  }

  count(model: string): number {
    return (this.db.prepare('SELECT count(*) AS n FROM vectors WHERE model = ?').get(model) as { n: number }).n;
  }

  /** Every vector of one asset (an exact scan within one asset beats the graph). */
  ofAsset(assetId: string, model: string): StoredVector[] {
    return (
      this.db.prepare('SELECT id, vector FROM vectors WHERE asset_id = ? AND model = ?').all(assetId, model) as Array<{ id: number; vector: Buffer }>
    ).map((r) => ({ id: r.id, vector: floats(r.vector) }));
  }

  /** An asset's picture vectors of one model with their moments, in time order. */
  picturesOf(assetId: string, model: string): Array<{ timestamp: number; vector: Float32Array }> {
    return (
      this.db
        .prepare("SELECT timestamp, vector FROM vectors WHERE asset_id = ? AND model = ? AND modality = 'picture' ORDER BY timestamp")
        .all(assetId, model) as Array<{ timestamp: number; vector: Buffer }>
    ).map((r) => ({ timestamp: r.timestamp, vector: floats(r.vector) }));
  }

  /**
   * The rows behind these ids that sit in assets visible to any of the workspaces (owned or shared,
   * not deleted) of one engine, optionally one asset. Ids whose rows are gone are left out.
   */
  visible(
    ids: number[],
    opts: { workspaceIds: string[]; assetId?: string; engine: string; filters?: ResolvedFilters },
  ): Array<Omit<VectorHit, 'similarity'> & { vector: Float32Array }> {
    if (ids.length === 0) return [];
    const ws = opts.workspaceIds.map((_, i) => `@ws${i}`).join(', ');
    const where = filterCondition(opts.filters ?? {});
    const params: Record<string, unknown> = { engine: opts.engine, asset: opts.assetId ?? null, ids: JSON.stringify(ids), ...where.params };
    opts.workspaceIds.forEach((w, i) => (params[`ws${i}`] = w));
    return this.db
      .prepare(
        `SELECT v.id, v.asset_id, v.modality, v.timestamp, v.page, v.ref, v.region_id, v.text, v.vector, a.kind, a.file_name,
                CASE WHEN a.workspace_id IN (${ws}) THEN a.workspace_id
                     ELSE (SELECT s.workspace_id FROM asset_shares s WHERE s.asset_id = a.id AND s.workspace_id IN (${ws}) LIMIT 1) END AS workspace_id
         FROM vectors v JOIN assets a ON a.id = v.asset_id
         WHERE v.id IN (SELECT value FROM json_each(@ids)) AND a.deleted_at IS NULL AND a.engine = @engine
           AND (@asset IS NULL OR a.id = @asset) AND (${where.sql})
           AND (a.workspace_id IN (${ws}) OR EXISTS (SELECT 1 FROM asset_shares s WHERE s.asset_id = a.id AND s.workspace_id IN (${ws})))`,
      )
      .all(params)
      .map((r) => {
        const row = r as Omit<VectorHit, 'similarity'> & { vector: Buffer };
        return { ...row, vector: floats(row.vector) };
      });
  }
}
