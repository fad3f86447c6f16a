import type { DB } from './db.ts';

export interface KeyRow {
  id: string;
  workspace_id: string;
  secret_hash: string;
  scopes: string;
  access: string;
  label: string | null;
  created_at: number;
  expires_at: number | null;
  revoked_at: number | null;
  last_used_at: number | null;
}

export class KeysRepo {
  constructor(private readonly db: DB) {}

  insert(row: KeyRow): void {
    this.db
      .prepare(
        `INSERT INTO api_keys (id, workspace_id, secret_hash, scopes, access, label, created_at, expires_at, revoked_at, last_used_at)
         VALUES (@id, @workspace_id, @secret_hash, @scopes, @access, @label, @created_at, @expires_at, @revoked_at, @last_used_at)`,
      )
      .run(row);
  }

  byId(id: string): KeyRow | undefined {
    return this.db.prepare('SELECT * FROM api_keys WHERE id = ?').get(id) as KeyRow | undefined;
  }

  list(): Array<KeyRow & { workspace_name: string }> {
    return this.db
      .prepare('SELECT k.*, w.name AS workspace_name FROM api_keys k JOIN workspaces w ON w.id = k.workspace_id ORDER BY k.created_at')
      .all() as Array<KeyRow & { workspace_name: string }>;
  }

  ofWorkspace(workspaceId: string): KeyRow[] {
    return this.db.prepare('SELECT * FROM api_keys WHERE workspace_id = ? ORDER BY created_at, id').all(workspaceId) as KeyRow[];
  }

  count(): number {
    return (this.db.prepare('SELECT COUNT(*) AS n FROM api_keys').get() as { n: number }).n;
  }

  revoke(id: string, at: number): boolean {
    return this.db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL').run(at, id).changes > 0;
  }

  touch(id: string, at: number): void {
    this.db.prepare('UPDATE api_keys SET last_used_at = ? WHERE id = ?').run(at, id);
  }
}
