// The workspaces a key reaches: its own, and those it may search (federated search,
// `workspace_ids`). Named by id or by name; anything else is refused with the list of what it may.
import type { Store } from '../store/index.ts';
import { Errors } from '../errors.ts';
import type { AuthContext } from '../contract/auth.ts';

export class WorkspacesService {
  constructor(private readonly store: Store) {}

  /** Every workspace with its counts (the command line's list). */
  list() {
    return this.store.workspaces.list();
  }

  /** A workspace by name, made when new (read-only when asked: a demo workspace). */
  ensure(name: string, opts: { readOnly?: boolean } = {}) {
    const made = this.store.workspaces.ensure(name);
    if (opts.readOnly) this.store.workspaces.setReadOnly(made.row.id, true);
    return made;
  }

  exists(name: string): boolean {
    return this.store.workspaces.byName(name) !== undefined;
  }

  /** Makes a workspace read-only or writable again; false when there is none of that name. */
  setReadOnly(name: string, readOnly: boolean): boolean {
    const row = this.store.workspaces.byName(name);
    if (!row) return false;
    this.store.workspaces.setReadOnly(row.id, readOnly);
    return true;
  }

  /** What the command line reads a workspace as (on this machine, no key): read access to it alone; null when there is none of that name. */
  localReader(name: string): AuthContext | null {
    const ws = this.store.workspaces.byName(name);
    return ws ? { keyId: 'cli', workspaceId: ws.id, scopes: new Set(['read']), access: [], readOnly: true } : null;
  }

  /** The key's own workspace first, then those it may search, with their asset counts. */
  reachable(auth: AuthContext): Array<{ workspace_id: string; name: string; own: boolean; may_write: boolean; read_only: boolean; asset_count: number }> {
    const ids = [auth.workspaceId, ...auth.access.filter((a) => a !== auth.workspaceId)];
    const rows = new Map(this.store.workspaces.list().map((w) => [w.id, w]));
    return ids.flatMap((id) => {
      const w = rows.get(id);
      if (!w) return [];
      const own = id === auth.workspaceId;
      const readOnly = w.read_only === 1;
      return [
        { workspace_id: w.id, name: w.name, own, may_write: own && !readOnly && auth.scopes.has('write'), read_only: readOnly, asset_count: w.asset_count },
      ];
    });
  }

  /** Workspace ids for `workspace_ids` given as ids or names; 403 naming those the key may search. */
  resolve(auth: AuthContext, asked: string[]): string[] {
    const reach = this.reachable(auth);
    return asked.map((w) => {
      const found = reach.find((r) => r.workspace_id === w) ?? reach.find((r) => r.name === w);
      if (!found) {
        const may = reach.map((r) => `${r.name} (${r.workspace_id})`).join(', ');
        throw Errors.forbidden(`This key may not search workspace ${w}; it may search: ${may}.`);
      }
      return found.workspace_id;
    });
  }
}
