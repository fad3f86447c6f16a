import { statementCache, type DB } from './db.ts';
import { clock, newId } from './ids.ts';

export interface WorkspaceRow {
  id: string;
  name: string;
  index_options: string;
  created_at: number;
  /** 1: a demo workspace, read and searched through the API, never written (SPEC 5.7). */
  read_only: 0 | 1;
}

export class WorkspacesRepo {
  /** A workspace is read for every file admitted (its index options): prepared once. */
  private readonly sql: ReturnType<typeof statementCache>;

  constructor(private readonly db: DB) {
    this.sql = statementCache(db);
  }

  byId(id: string): WorkspaceRow | undefined {
    return this.sql('SELECT * FROM workspaces WHERE id = ?').get(id) as WorkspaceRow | undefined;
  }

  byName(name: string): WorkspaceRow | undefined {
    return this.db.prepare('SELECT * FROM workspaces WHERE name = ?').get(name) as WorkspaceRow | undefined;
  }

  /** Returns the workspace of that name, creating it when new. */
  ensure(name: string): { row: WorkspaceRow; created: boolean } {
    const existing = this.byName(name);
    if (existing) return { row: existing, created: false };
    const row: WorkspaceRow = { id: newId('ws'), name, index_options: '{}', created_at: clock.now(), read_only: 0 };
    this.db
      .prepare('INSERT INTO workspaces (id, name, index_options, created_at, read_only) VALUES (@id, @name, @index_options, @created_at, @read_only)')
      .run(row);
    return { row, created: true };
  }

  list(): Array<WorkspaceRow & { asset_count: number; key_count: number }> {
    return this.db
      .prepare(
        `SELECT w.*,
           (SELECT COUNT(*) FROM assets a WHERE a.workspace_id = w.id AND a.deleted_at IS NULL) AS asset_count,
           (SELECT COUNT(*) FROM api_keys k WHERE k.workspace_id = w.id AND k.revoked_at IS NULL) AS key_count
         FROM workspaces w ORDER BY w.created_at`,
      )
      .all() as Array<WorkspaceRow & { asset_count: number; key_count: number }>;
  }

  setReadOnly(id: string, readOnly: boolean): void {
    this.db.prepare('UPDATE workspaces SET read_only = ? WHERE id = ?').run(readOnly ? 1 : 0, id);
  }

  setIndexOptions(id: string, json: string): void {
    this.db.prepare('UPDATE workspaces SET index_options = ? WHERE id = ?').run(json, id);
  }

  /** `classic` for libraries that were started on a legacy tier (SPEC 4.4), else `arrow`. */
  defaultEngine(id: string): 'arrow' | 'classic' {
    const first = this.db.prepare('SELECT engine FROM assets WHERE workspace_id = ? AND deleted_at IS NULL ORDER BY created_at, id LIMIT 1').get(id) as
      { engine: 'arrow' | 'classic' } | undefined;
    return first?.engine ?? 'arrow';
  }
}
