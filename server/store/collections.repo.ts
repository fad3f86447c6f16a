// Collections (albums) of a workspace, the assets in them, and the workspace's own favourites and
// ratings of assets (marks).
import { inTransaction, statementCache, type DB } from './db.ts';
import { clock } from './ids.ts';

export interface CollectionRow {
  id: string;
  workspace_id: string;
  name: string;
  description: string | null;
  created_at: number;
  updated_at: number;
  /** Live assets in it. */
  asset_count: number;
  /** The asset added last (live), its cover. */
  cover_asset_id: string | null;
}

const LIVE = 'JOIN assets a ON a.id = ca.asset_id AND a.deleted_at IS NULL';
const WITH_COUNTS = `c.*,
  (SELECT COUNT(*) FROM collection_assets ca ${LIVE} WHERE ca.collection_id = c.id) AS asset_count,
  (SELECT ca.asset_id FROM collection_assets ca ${LIVE} WHERE ca.collection_id = c.id ORDER BY ca.added_at DESC, ca.asset_id DESC LIMIT 1) AS cover_asset_id`;

export class CollectionsRepo {
  private readonly sql: ReturnType<typeof statementCache>;

  constructor(private readonly db: DB) {
    this.sql = statementCache(db);
  }

  list(workspaceId: string): CollectionRow[] {
    return this.sql(`SELECT ${WITH_COUNTS} FROM collections c WHERE c.workspace_id = ? ORDER BY c.name COLLATE NOCASE, c.id`).all(
      workspaceId,
    ) as CollectionRow[];
  }

  get(id: string): CollectionRow | undefined {
    return this.sql(`SELECT ${WITH_COUNTS} FROM collections c WHERE c.id = ?`).get(id) as CollectionRow | undefined;
  }

  create(row: { id: string; workspace_id: string; name: string; description: string | null }): void {
    const now = clock.now();
    this.sql(
      'INSERT INTO collections (id, workspace_id, name, description, created_at, updated_at) VALUES (@id, @workspace_id, @name, @description, @now, @now)',
    ).run({ ...row, now });
  }

  update(id: string, patch: { name?: string; description?: string | null }): void {
    this.sql(
      `UPDATE collections SET name = coalesce(@name, name), description = CASE WHEN @set_description THEN @description ELSE description END,
         updated_at = @now WHERE id = @id`,
    ).run({ id, name: patch.name ?? null, set_description: patch.description !== undefined ? 1 : 0, description: patch.description ?? null, now: clock.now() });
  }

  delete(id: string): void {
    this.sql('DELETE FROM collections WHERE id = ?').run(id);
  }

  /** Adds and removes assets in one transaction; how many were added (not in it before) and removed. */
  change(id: string, add: string[], remove: string[]): { added: number; removed: number } {
    const now = clock.now();
    const insert = this.sql('INSERT OR IGNORE INTO collection_assets (collection_id, asset_id, added_at) VALUES (?, ?, ?)');
    const del = this.sql('DELETE FROM collection_assets WHERE collection_id = ? AND asset_id = ?');
    return inTransaction(this.db, () => {
      let added = 0;
      let removed = 0;
      // The first id given counts as the newest: the cover is the first of the last batch.
      add.forEach((a, i) => (added += insert.run(id, a, now - i).changes));
      for (const a of remove) removed += del.run(id, a).changes;
      if (added || removed) this.sql('UPDATE collections SET updated_at = ? WHERE id = ?').run(now, id);
      return { added, removed };
    });
  }

  /** Sets the workspace's favourite and/or rating (null clears the rating) of the assets, in one transaction. */
  mark(workspaceId: string, assetIds: string[], m: { favorite?: boolean; rating?: number | null }): void {
    const upsert = this.sql(
      `INSERT INTO asset_marks (workspace_id, asset_id, favorite, rating, updated_at) VALUES (@ws, @asset, coalesce(@favorite, 0), @rating, @now)
       ON CONFLICT (asset_id, workspace_id) DO UPDATE SET
         favorite = coalesce(@favorite, favorite),
         rating = CASE WHEN @set_rating THEN @rating ELSE rating END,
         updated_at = @now`,
    );
    const now = clock.now();
    inTransaction(this.db, () => {
      for (const asset of assetIds)
        upsert.run({
          ws: workspaceId,
          asset,
          favorite: m.favorite === undefined ? null : m.favorite ? 1 : 0,
          set_rating: m.rating !== undefined ? 1 : 0,
          rating: m.rating ?? null,
          now,
        });
    });
  }
}
