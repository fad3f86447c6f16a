import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { migrate } from '../db.ts';
import { MIGRATIONS } from './index.ts';
import { PENDING_PHASE_ONE } from '../stage-runs.repo.ts';

// Each migration from 0018 on, run on a database at the schema before it holding rows written then:
// the rows are kept, new columns take their defaults, and what the migration adds works.

/** A database at the schema after the first `n` migrations. */
function at(n: number): Database.Database {
  const db = new Database(':memory:');
  db.pragma('foreign_keys = ON');
  for (const m of MIGRATIONS.slice(0, n)) db.exec(m.up);
  db.pragma(`user_version = ${n}`);
  return db;
}

/** Inserts a row, filling the NOT NULL columns without a default that `values` leaves out. */
function insert(db: Database.Database, table: string, values: Record<string, unknown>): void {
  const cols = db.prepare(`PRAGMA table_info(${table})`).all() as Array<{ name: string; type: string; notnull: number; dflt_value: unknown; pk: number }>;
  const row: Record<string, unknown> = {};
  for (const c of cols) {
    if (c.name in values) row[c.name] = values[c.name];
    else if (c.notnull && c.dflt_value === null) row[c.name] = c.type === 'INTEGER' || c.type === 'REAL' ? 0 : c.type === 'BLOB' ? Buffer.alloc(0) : '';
  }
  const names = Object.keys(row);
  db.prepare(`INSERT INTO ${table} (${names.join(', ')}) VALUES (${names.map((n) => `@${n}`).join(', ')})`).run(row);
}

const columns = (db: Database.Database, table: string) => (db.prepare(`PRAGMA table_info(${table})`).all() as Array<{ name: string }>).map((c) => c.name);
const indexes = (db: Database.Database) =>
  (db.prepare("SELECT name FROM sqlite_master WHERE type = 'index'").all() as Array<{ name: string }>).map((r) => r.name);
const number = (name: string) => MIGRATIONS.findIndex((m) => m.name.startsWith(name)) + 1;

/** A workspace and a processing asset with one pending and one settled run, as written before `n`. */
function seed(db: Database.Database): void {
  insert(db, 'workspaces', { id: 'ws_1', name: 'default', created_at: 1 });
  insert(db, 'assets', {
    id: 'vid_1',
    workspace_id: 'ws_1',
    kind: 'image',
    file_name: 'a.jpg',
    ext: '.jpg',
    stored_path: 'assets/vid_1/original.jpg',
    mime_type: 'image/jpeg',
    status: 'processing',
    pipeline: 'arrow',
    engine: 'arrow',
    created_at: 5,
  });
  insert(db, 'stage_runs', { asset_id: 'vid_1', stage: 'extract', state: 'ok', version: 1 });
  insert(db, 'stage_runs', { asset_id: 'vid_1', stage: 'faces', state: 'pending', version: 1 });
}

describe('migrations from 0018 on keep what was written before them', () => {
  it('0018 queue at scale: assets are planned (runs_planned 1), the partial indexes serve the queue', () => {
    const n = number('0018');
    const db = at(n - 1);
    seed(db);
    migrate(db);
    expect(db.prepare('SELECT runs_planned, status FROM assets').get()).toEqual({ runs_planned: 1, status: 'processing' });
    expect(indexes(db)).toEqual(expect.arrayContaining(['stage_runs_pending', 'stage_runs_running', 'assets_processing', 'assets_unplanned']));
    expect(indexes(db)).not.toContain('stage_runs_state');
    const plan = db.prepare("EXPLAIN QUERY PLAN SELECT asset_id FROM stage_runs WHERE state = 'pending'").all() as Array<{ detail: string }>;
    expect(plan.map((p) => p.detail).join(' ')).toMatch(/stage_runs_pending/);
    expect(db.prepare("SELECT COUNT(*) AS n FROM stage_runs WHERE state = 'pending'").get()).toEqual({ n: 1 });
  });

  it('0019 asset metadata: new tables, cascading with their asset', () => {
    const n = number('0019');
    const db = at(n - 1);
    seed(db);
    migrate(db);
    insert(db, 'asset_metadata', { asset_id: 'vid_1', data: '{}', taken_ms: 10, city: 'Paris' });
    insert(db, 'named_regions', { asset_id: 'vid_1', idx: 0, name: 'Ana', x: 0, y: 0, w: 0.1, h: 0.1, source: 'xmp' });
    db.prepare("DELETE FROM stage_runs WHERE asset_id = 'vid_1'").run();
    db.prepare("DELETE FROM assets WHERE id = 'vid_1'").run();
    expect(db.prepare('SELECT COUNT(*) AS n FROM asset_metadata').get()).toEqual({ n: 0 });
    expect(db.prepare('SELECT COUNT(*) AS n FROM named_regions').get()).toEqual({ n: 0 });
  });

  it('0020 face attributes: faces written before have no age or gender; new ones are checked', () => {
    const n = number('0020');
    const db = at(n - 1);
    seed(db);
    db.pragma('foreign_keys = OFF'); // the face's region row is left out
    insert(db, 'faces', { id: 'reg_1', asset_id: 'vid_1', timestamp: 0, embedding: Buffer.alloc(8), quality: 1, good: 1 });
    db.pragma('foreign_keys = ON');
    migrate(db);
    expect(db.prepare('SELECT age, gender, gender_score FROM faces').get()).toEqual({ age: null, gender: null, gender_score: null });
    expect(() => db.prepare("UPDATE faces SET gender = 'other'").run()).toThrow(/CHECK constraint/);
    db.prepare("UPDATE faces SET age = 31.5, gender = 'female', gender_score = 0.9").run();
  });

  it('0021 read-only workspaces: existing workspaces stay writable', () => {
    const n = number('0021');
    const db = at(n - 1);
    seed(db);
    migrate(db);
    expect(db.prepare('SELECT read_only FROM workspaces').get()).toEqual({ read_only: 0 });
    expect(() => db.prepare('UPDATE workspaces SET read_only = 2').run()).toThrow(/CHECK constraint/);
  });

  it('0022 orientation detected: unknown (null) for assets indexed before; only quarter turns', () => {
    const n = number('0022');
    const db = at(n - 1);
    seed(db);
    migrate(db);
    expect(columns(db, 'assets')).toContain('orientation_detected');
    expect(db.prepare('SELECT orientation_detected FROM assets').get()).toEqual({ orientation_detected: null });
    db.prepare('UPDATE assets SET orientation_detected = 90').run();
    expect(() => db.prepare('UPDATE assets SET orientation_detected = 45').run()).toThrow(/CHECK constraint/);
  });

  it('0023 face ignores: none before; an ignore goes with its face', () => {
    const n = number('0023');
    const db = at(n - 1);
    seed(db);
    db.pragma('foreign_keys = OFF'); // the face's region row is left out
    insert(db, 'faces', { id: 'reg_1', asset_id: 'vid_1', timestamp: 0, embedding: Buffer.alloc(8), quality: 1, good: 1 });
    db.pragma('foreign_keys = ON');
    migrate(db);
    expect(db.prepare('SELECT COUNT(*) AS n FROM face_ignores').get()).toEqual({ n: 0 });
    db.prepare("INSERT INTO face_ignores (face_id, created_at) VALUES ('reg_1', 1)").run();
    expect(() => db.prepare("INSERT INTO face_ignores (face_id, created_at) VALUES ('reg_nope', 1)").run()).toThrow(/FOREIGN KEY/);
    db.prepare("DELETE FROM faces WHERE id = 'reg_1'").run();
    expect(db.prepare('SELECT COUNT(*) AS n FROM face_ignores').get()).toEqual({ n: 0 });
  });

  it('0024 collections and marks: none before; they go with their asset, a rating is 0..5', () => {
    const n = number('0024');
    const db = at(n - 1);
    seed(db);
    migrate(db);
    const ws = (db.prepare("SELECT workspace_id FROM assets WHERE id = 'vid_1'").get() as { workspace_id: string }).workspace_id;
    expect(db.prepare('SELECT COUNT(*) AS n FROM collections').get()).toEqual({ n: 0 });
    db.prepare("INSERT INTO collections (id, workspace_id, name, created_at, updated_at) VALUES ('col_1', ?, 'Trip', 1, 1)").run(ws);
    db.prepare("INSERT INTO collection_assets (collection_id, asset_id, added_at) VALUES ('col_1', 'vid_1', 1)").run();
    db.prepare("INSERT INTO asset_marks (workspace_id, asset_id, favorite, rating, updated_at) VALUES (?, 'vid_1', 1, 5, 1)").run(ws);
    expect(() => db.prepare("INSERT INTO asset_marks (workspace_id, asset_id, rating, updated_at) VALUES (?, 'vid_1', 6, 1)").run(ws)).toThrow(/CHECK|UNIQUE/);
    db.prepare("DELETE FROM assets WHERE id = 'vid_1'").run();
    expect(db.prepare('SELECT (SELECT COUNT(*) FROM collection_assets) + (SELECT COUNT(*) FROM asset_marks) AS n').get()).toEqual({ n: 0 });
    expect(db.prepare('SELECT COUNT(*) AS n FROM collections').get()).toEqual({ n: 1 });
  });

  it('0025 failed runs: the runs written before are kept, and failures are found by their own index', () => {
    const db = at(number('0025') - 1);
    seed(db);
    insert(db, 'stage_runs', { asset_id: 'vid_1', stage: 'ocr', state: 'failed', version: 1 });
    migrate(db);
    expect(db.prepare("SELECT stage, state FROM stage_runs WHERE asset_id = 'vid_1' ORDER BY stage").all()).toEqual([
      { stage: 'extract', state: 'ok' },
      { stage: 'faces', state: 'pending' },
      { stage: 'ocr', state: 'failed' },
    ]);
    const plan = db
      .prepare(
        "EXPLAIN QUERY PLAN SELECT r.stage FROM stage_runs r CROSS JOIN assets a ON a.id = r.asset_id WHERE r.state = 'failed' AND a.workspace_id = 'ws_1'",
      )
      .all() as Array<{ detail: string }>;
    expect(plan.map((p) => p.detail).join(' ')).toMatch(/stage_runs_failed/);
    expect(db.prepare("SELECT r.stage FROM stage_runs r CROSS JOIN assets a ON a.id = r.asset_id WHERE r.state = 'failed'").all()).toEqual([{ stage: 'ocr' }]);
  });

  it("0026 the owner's turn: not set (null) for assets indexed before, the detected turn kept; only quarter turns", () => {
    const db = at(number('0026') - 1);
    seed(db);
    db.prepare('UPDATE assets SET orientation_detected = 270').run();
    migrate(db);
    expect(db.prepare('SELECT orientation_detected, orientation_set FROM assets').get()).toEqual({ orientation_detected: 270, orientation_set: null });
    db.prepare('UPDATE assets SET orientation_set = 0').run();
    expect(() => db.prepare('UPDATE assets SET orientation_set = 45').run()).toThrow(/CHECK constraint/);
  });

  it('0027 RAW stacks: on for the libraries added before; only 0 or 1', () => {
    const db = at(number('0027') - 1);
    seed(db);
    insert(db, 'libraries', { id: 'lib_1', workspace_id: 'ws_1', path: '/photos', exclude: '[]', status: 'watching', created_at: 1 });
    migrate(db);
    expect(db.prepare('SELECT stack_raw FROM libraries').get()).toEqual({ stack_raw: 1 });
    expect(() => db.prepare('UPDATE libraries SET stack_raw = 2').run()).toThrow(/CHECK constraint/);
  });

  it("0028 speakers' names: none for videos indexed before; one name per speaker, gone with the asset", () => {
    const db = at(number('0028') - 1);
    seed(db);
    migrate(db);
    expect(db.prepare('SELECT count(*) AS n FROM speaker_names').get()).toEqual({ n: 0 });
    const id = (db.prepare('SELECT id FROM assets LIMIT 1').get() as { id: string }).id;
    db.prepare("INSERT INTO speaker_names (asset_id, speaker, name) VALUES (?, 2, 'Ada')").run(id);
    expect(() => db.prepare("INSERT INTO speaker_names (asset_id, speaker, name) VALUES (?, 2, 'Bob')").run(id)).toThrow(/UNIQUE|PRIMARY/);
    expect(() => db.prepare("INSERT INTO speaker_names (asset_id, speaker, name) VALUES (?, 0, 'Bob')").run(id)).toThrow(/CHECK constraint/);
    db.pragma('foreign_keys = ON');
    db.prepare('DELETE FROM assets WHERE id = ?').run(id);
    expect(db.prepare('SELECT count(*) AS n FROM speaker_names').get()).toEqual({ n: 0 });
  });

  it('0029 the queue by phase: runs kept; the pending runs of phase 1 are found by their own index', () => {
    const db = at(number('0029') - 1);
    seed(db);
    insert(db, 'stage_runs', { asset_id: 'vid_1', stage: 'metadata', state: 'pending', version: 1 });
    migrate(db);
    expect(indexes(db)).toContain('stage_runs_pending_phase_one');
    const sql = `SELECT asset_id FROM stage_runs WHERE ${PENDING_PHASE_ONE}`;
    const plan = db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as Array<{ detail: string }>;
    expect(plan.map((p) => p.detail).join(' ')).toMatch(/stage_runs_pending_phase_one/);
    expect(db.prepare(sql).all()).toEqual([{ asset_id: 'vid_1' }]); // metadata pending; faces (pending) is phase 2
    expect(db.prepare("SELECT COUNT(*) AS n FROM stage_runs WHERE asset_id = 'vid_1'").get()).toEqual({ n: 3 });
  });

  it('0030 the full-text index written beside each entry: entries kept and found; new entries reach it only when written to it; deletions by trigger', () => {
    const db = at(number('0030') - 1);
    seed(db);
    const entry = (text: string) =>
      db.prepare("INSERT INTO search_entries (asset_id, stage, modality, timestamp, text) VALUES ('vid_1', 'extract', 'passage', 0, ?)").run(text)
        .lastInsertRowid;
    entry('a curious rabbit');
    migrate(db);
    const found = (word: string) => (db.prepare('SELECT rowid FROM search_fts WHERE search_fts MATCH ?').all(word) as Array<{ rowid: number }>).length;
    expect(found('rabbit')).toBe(1); // indexed by the trigger before
    const id = entry('a white queen');
    expect(found('queen')).toBe(0); // no trigger now: the repository writes the index
    db.prepare('INSERT INTO search_fts(rowid, text) VALUES (?, ?)').run(id, 'a white queen');
    expect(found('queen')).toBe(1);
    db.prepare('DELETE FROM assets WHERE id = ?').run('vid_1');
    expect(found('rabbit') + found('queen')).toBe(0); // gone with the asset, through the delete trigger
    expect(db.prepare("SELECT count(*) AS n FROM search_fts WHERE search_fts MATCH 'white OR curious'").get()).toEqual({ n: 0 });
  });

  it('0031 not a face: ignores made before stay plain ignores; an ignore may say the face is no face', () => {
    const db = at(number('0031') - 1);
    seed(db);
    for (const id of ['face_1', 'face_2']) {
      insert(db, 'regions', { id, asset_id: 'vid_1', kind: 'face', source: 'human-blazeface', stage: 'faces' });
      insert(db, 'faces', { id, asset_id: 'vid_1', timestamp: 0, pose: '{}', landmarks: '{}', emotions: '[]' });
    }
    db.prepare("INSERT INTO face_ignores (face_id, created_at) VALUES ('face_1', 7)").run();
    migrate(db);
    expect(db.prepare('SELECT face_id, created_at, not_a_face FROM face_ignores').all()).toEqual([{ face_id: 'face_1', created_at: 7, not_a_face: 0 }]);
    db.prepare("INSERT INTO face_ignores (face_id, created_at, not_a_face) VALUES ('face_2', 8, 1)").run();
    expect(() => db.prepare("UPDATE face_ignores SET not_a_face = 2 WHERE face_id = 'face_2'").run()).toThrow(/CHECK/);
    db.prepare("DELETE FROM faces WHERE id = 'face_2'").run();
    expect(db.prepare('SELECT COUNT(*) AS n FROM face_ignores').get()).toEqual({ n: 1 });
  });

  it("0032 a linked file's modification time: assets admitted before have none (their file is read through at extraction)", () => {
    const db = at(number('0032') - 1);
    seed(db);
    migrate(db);
    expect(db.prepare("SELECT file_mtime_ms FROM assets WHERE id = 'vid_1'").get()).toEqual({ file_mtime_ms: null });
    db.prepare("UPDATE assets SET file_mtime_ms = 1700000000123 WHERE id = 'vid_1'").run();
    expect(db.prepare("SELECT file_mtime_ms FROM assets WHERE id = 'vid_1'").get()).toEqual({ file_mtime_ms: 1700000000123 });
  });

  it("0033 a video's shots: a video extracted before has a shots run saying what its extraction did; one waiting waits for both; photos none", () => {
    const db = at(number('0033') - 1);
    seed(db);
    const video = (id: string) =>
      insert(db, 'assets', {
        id,
        workspace_id: 'ws_1',
        kind: 'video',
        file_name: `${id}.mp4`,
        ext: '.mp4',
        stored_path: `assets/${id}/original.mp4`,
        status: 'processing',
        pipeline: 'arrow',
        engine: 'arrow',
        created_at: 6,
      });
    video('vid_done');
    video('vid_waiting');
    video('vid_broken');
    const damaged = JSON.stringify({ fps: 25, damaged: 'the file ends after 3.0 s of its 9.0 s' });
    insert(db, 'stage_runs', {
      asset_id: 'vid_done',
      stage: 'extract',
      state: 'ok',
      version: 2,
      counts: '{"shots":3,"frames":3,"audio_s":9}',
      details: damaged,
      queued_at: 10,
      started_at: 11,
      finished_at: 20,
      duration_ms: 9,
    });
    insert(db, 'stage_runs', { asset_id: 'vid_waiting', stage: 'extract', state: 'running', version: 2, queued_at: 10, started_at: 11 });
    insert(db, 'stage_runs', {
      asset_id: 'vid_broken',
      stage: 'extract',
      state: 'failed',
      code: 'corrupt',
      reason: 'corrupt: no frame',
      version: 2,
      queued_at: 10,
      finished_at: 12,
    });
    migrate(db);
    const shots = db
      .prepare("SELECT asset_id, state, code, reason, counts, details, started_at, finished_at FROM stage_runs WHERE stage = 'shots' ORDER BY asset_id")
      .all();
    expect(shots).toEqual([
      {
        asset_id: 'vid_broken',
        state: 'failed',
        code: 'dependency_failed',
        reason: 'dependency_failed: extract',
        counts: '{}',
        details: null,
        started_at: null,
        finished_at: 12,
      },
      {
        asset_id: 'vid_done',
        state: 'ok',
        code: null,
        reason: "read with the video's extraction",
        counts: '{"shots":3,"frames":3,"audio_s":9}',
        details: damaged,
        started_at: 11,
        finished_at: 20,
      },
      { asset_id: 'vid_waiting', state: 'pending', code: null, reason: null, counts: '{}', details: null, started_at: null, finished_at: null },
    ]);
    // Run again (a database copied back from before), it adds nothing twice.
    db.exec(MIGRATIONS[number('0033') - 1].up);
    expect(db.prepare("SELECT COUNT(*) AS n FROM stage_runs WHERE stage = 'shots'").get()).toEqual({ n: 3 });
  });

  it('every migration from 0018 on has a test here', () => {
    const tested = ['0018', '0019', '0020', '0021', '0022', '0023', '0024', '0025', '0026', '0027', '0028', '0029', '0030', '0031', '0032', '0033'];
    expect(MIGRATIONS.map((m) => m.name.slice(0, 4)).filter((id) => id >= '0018')).toEqual(tested);
  });
});
