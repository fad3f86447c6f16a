// Opens the SQLite database (WAL, foreign keys) and brings its schema up to date.
import Database from 'better-sqlite3';
import { MIGRATIONS } from './migrations/index.ts';
import { env } from '../config.ts';

export type DB = Database.Database;

export function openDatabase(file: string, opts: { readonly?: boolean } = {}): DB {
  const db = new Database(file, { readonly: opts.readonly ?? false });
  // How long a statement waits for another program's lock on the file (a backup tool, the sqlite3
  // shell) before it fails: the service answers 503 `database_busy` then, rather than hang.
  db.pragma(`busy_timeout = ${env.dbBusyMs}`);
  db.pragma('foreign_keys = ON');
  if (!opts.readonly) {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    // Indexes of a large library stay in memory between batches; checkpoints come less often.
    db.pragma('cache_size = -32768');
    db.pragma('wal_autocheckpoint = 4000');
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

/**
 * A repository's own prepared statements, made once per SQL text. Only for statements used plainly
 * (get/all/run, never `.raw()` or another mode, which would change them for every caller).
 */
export function statementCache(db: DB): (sql: string) => Database.Statement {
  const cache = new Map<string, Database.Statement>();
  return (sql) => {
    let stmt = cache.get(sql);
    if (!stmt) cache.set(sql, (stmt = db.prepare(sql)));
    // A statement still iterating elsewhere cannot run again: that caller gets a fresh one.
    return stmt.busy ? db.prepare(sql) : stmt;
  };
}

/** Rows written by one statement at most (`insertRows`). */
const ROWS_A_STATEMENT = 64;

/**
 * Inserts rows, each its values in the order of `columns`, several rows to a statement (`sql`: the
 * calling repository's statements). A statement for each row, its values bound one call at a time,
 * was most of the time an asset's stage runs or a book's line boxes took to be stored.
 */
export function insertRows(sql: ReturnType<typeof statementCache>, table: string, columns: readonly string[], rows: ReadonlyArray<readonly unknown[]>): void {
  const tuple = `(${columns.map(() => '?').join(', ')})`;
  for (let i = 0; i < rows.length; i += ROWS_A_STATEMENT) {
    const some = rows.slice(i, i + ROWS_A_STATEMENT);
    sql(`INSERT INTO ${table} (${columns.join(', ')}) VALUES ${some.map(() => tuple).join(', ')}`).run(some.flat());
  }
}

/** Runs `fn` in a transaction, or inside the one already open (no savepoint per call in a batch). */
export function inTransaction<T>(db: DB, fn: () => T): T {
  return db.inTransaction ? fn() : db.transaction(fn)();
}
