// Opens the SQLite database (WAL, foreign keys) and brings its schema up to date.
import Database from 'better-sqlite3';
import { MIGRATIONS } from './migrations/index.ts';

export type DB = Database.Database;

export function openDatabase(file: string, opts: { readonly?: boolean } = {}): DB {
  const db = new Database(file, { readonly: opts.readonly ?? false });
  db.pragma('busy_timeout = 10000');
  db.pragma('foreign_keys = ON');
  if (!opts.readonly) {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    migrate(db);
  }
  return db;
}

export function migrate(db: DB): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > MIGRATIONS.length) {
    throw new Error(`This data folder was written by a newer version (schema ${current}; this build knows ${MIGRATIONS.length}).`);
  }
  for (let i = current; i < MIGRATIONS.length; i++) {
    const m = MIGRATIONS[i];
    db.transaction(() => {
      db.exec(m.up);
      db.pragma(`user_version = ${i + 1}`);
    })();
  }
}
