// A digest of every row the service stores, to prove that a refused request wrote nothing.
import { createHash } from 'node:crypto';
import type { DB } from '../../server/store/db.ts';

/** Columns that change on every authenticated call (when a key was last used), left out. */
const VOLATILE: Record<string, string[]> = { api_keys: ['last_used_at'] };

export function fingerprint(db: DB): Record<string, string> {
  const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as Array<{
    name: string;
  }>;
  const out: Record<string, string> = {};
  for (const { name } of tables) {
    const cols = (db.prepare(`PRAGMA table_info("${name}")`).all() as Array<{ name: string }>)
      .map((c) => c.name)
      .filter((c) => !(VOLATILE[name] ?? []).includes(c));
    if (cols.length === 0) continue;
    const rows = db
      .prepare(`SELECT ${cols.map((c) => `"${c}"`).join(', ')} FROM "${name}"`)
      .raw()
      .all()
      .map((r) => JSON.stringify(r, (_k, v: unknown) => (Buffer.isBuffer(v) ? v.toString('base64') : v)))
      .sort();
    const h = createHash('sha256');
    for (const r of rows) h.update(r);
    out[name] = `${rows.length}:${h.digest('hex').slice(0, 16)}`;
  }
  return out;
}
