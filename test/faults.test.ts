// Faults with nothing lost (each against the real server, SQLite and file system): the disk filling
// up while an upload streams and while a stage writes; the database file held by another process
// past the busy timeout; a model file deleted while the service runs; SIGTERM while a re-cluster runs.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpus } from './helpers/corpus.ts';
import { fingerprint } from './helpers/fingerprint.ts';
import { EXTRACT_ONLY, startTestServer, tempDir, type TestServer } from './helpers/server.ts';
import { startServe } from './helpers/serve.ts';
import { insertSyntheticFaces } from './helpers/synthetic-faces.ts';
import { openStore } from '../server/store/index.ts';
import { AuthService } from '../server/services/auth.service.ts';
import { planRegrouping } from '../server/people/regroup.ts';
import { ffmpeg } from './helpers/ffmpeg.ts';
import { installTinyMiniLM, seededTable, useManifest, writeManifest } from './helpers/tiny-onnx.ts';

const require = createRequire(import.meta.url);

/** A small file system of its own (tmpfs) for the data folder, where this machine lets us mount one. */
function mountSmallDisk(dir: string, size: string): boolean {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const free = (dir: string) => {
  const s = fs.statfsSync(dir);
  return s.bavail * s.bsize;
};

async function until<T>(what: string, fn: () => Promise<T | undefined> | T | undefined, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const disk = tempDir('mi-small-disk-');
const mounted = mountSmallDisk(disk, '64m');
if (!mounted) console.warn('faults: this machine does not let the test mount a tmpfs; the full-disk tests are skipped');

describe.skipIf(!mounted)('a full disk', () => {
  let t: TestServer;
  let key: string;
  const filler = path.join(disk, 'filler.bin');
  /** Fills the small disk until only `leave` bytes are free. */
  const fill = (leave: number) => {
    fs.rmSync(filler, { force: true });
    const size = Math.max(0, free(disk) - leave);
    const fd = fs.openSync(filler, 'w');
    const block = Buffer.alloc(1 << 20, 1);
    for (let done = 0; done < size; done += block.length) fs.writeSync(fd, block, 0, Math.min(block.length, size - done));
    fs.closeSync(fd);
  };

  const outside = tempDir('mi-small-disk-files-');
  beforeAll(async () => {
    t = await startTestServer({ workers: 1, minFreeBytes: 8 * 1024 ** 2, spaceCheckMs: 200 }, path.join(disk, 'data'));
    key = t.key('photos');
  });
  afterAll(async () => {
    await t?.close();
    try {
      execFileSync('umount', [disk]);
    } catch {
      /* left for the OS */
    }
    fs.rmSync(disk, { recursive: true, force: true });
    fs.rmSync(outside, { recursive: true, force: true });
  });

  it('answers 507 no_space to an upload that does not fit, and keeps nothing of it', async () => {
    fill(1024 ** 2);
    const before = fingerprint(t.server.store.db);
    const up = await t.upload(key, corpus('video/forensics/movie-hello.mp4'));
    expect(up.status).toBe(507);
    expect(up.body.error).toMatchObject({ code: 'no_space', status: 507 });
    expect(up.body.error.message).toMatch(/disk holding the data folder is full/);
    expect(fs.readdirSync(t.server.store.files.tmpDir)).toEqual([]);
    expect(fingerprint(t.server.store.db)).toEqual(before);
    expect((await t.api('GET', '/health')).status).toBe(200);
    fs.rmSync(filler);
    expect((await t.upload(key, corpus('docs/a-text.pdf'), { pipeline: 'arrow', options: EXTRACT_ONLY })).status).toBe(201);
  });

  it('fails a stage that cannot write with no_space, nothing of it stored, and indexes it once space is back', async () => {
    const ws = t.server.store.workspaces.byName('photos')!;
    // Four minutes of video kept outside the data folder and indexed in place: its audio track alone
    // (7.7 MB at 16 kHz) does not fit in the 3 MB left, while the database's own writes do.
    const video = path.join(outside, 'long.mp4');
    ffmpeg(
      '-f lavfi -i testsrc2=size=320x240:rate=2:duration=240 -f lavfi -i sine=frequency=440:duration=240 -c:v libx264 -preset ultrafast -c:a aac -shortest $0',
      video,
    );
    fill(3 * 1024 ** 2);
    const ack = await t.server.services.assets.ingestLocal(ws.id, video, { pipeline: 'arrow', options: EXTRACT_ONLY });
    // Its extraction (a probe and a poster frame) fits; reading it through for its shots and sound does not.
    const failed = await until('shots to fail', async () => {
      const d = (await t.api('GET', `/videos/${ack.video_id}`, { key })).body.data;
      return d.index.report.stages.shots?.state === 'failed' ? d : undefined;
    });
    expect(failed.index.report.stages.extract.state).toBe('ok');
    expect(failed.index.report.stages.shots.reason).toMatch(/^no_space: the disk holding the data folder is full; this stage runs again by itself/);
    expect(t.server.store.media.frames(ack.video_id).map((f) => f.kind)).toEqual(['frame']);
    expect(t.server.store.media.media(ack.video_id)?.audio_path).toBeNull();
    const dir = path.join(t.dataDir, 'assets', ack.video_id);
    expect(fs.existsSync(path.join(dir, 'audio.wav'))).toBe(false);
    expect(fs.readdirSync(path.join(dir, 'frames'))).toEqual([]);
    expect(fs.existsSync(path.join(dir, 'frame.jpg'))).toBe(true);
    expect((await t.api('GET', '/health')).status).toBe(200);

    fs.rmSync(filler); // space is back: the stage runs again by itself
    const done = await until(
      'shots to run again',
      async () => {
        const d = (await t.api('GET', `/videos/${ack.video_id}`, { key })).body.data;
        return d.status === 'completed' && d.index.report.stages.shots?.state === 'ok' ? d : undefined;
      },
      120_000,
    );
    expect(done.duration_s).toBeCloseTo(240, 0);
    expect(t.server.store.media.frames(ack.video_id).filter((f) => f.kind === 'keyframe').length).toBeGreaterThan(0);
    expect(t.server.store.media.media(ack.video_id)?.audio_path).toMatch(/audio\.wav$/);
  }, 180_000);
});

describe('the database held by another process', () => {
  let t: TestServer;
  let key: string;
  const previous = process.env.MEDIA_INDEX_DB_BUSY_MS;

  beforeAll(async () => {
    process.env.MEDIA_INDEX_DB_BUSY_MS = '300';
    t = await startTestServer({ workers: 0 });
    key = t.key('held');
  });
  afterAll(async () => {
    await t?.close();
    if (previous === undefined) delete process.env.MEDIA_INDEX_DB_BUSY_MS;
    else process.env.MEDIA_INDEX_DB_BUSY_MS = previous;
  });

  it('answers a write 503 database_busy with Retry-After past the busy timeout, keeps answering reads, and writes again once released', async () => {
    // Another process takes the write lock and holds it (as a backup tool or the sqlite3 shell may).
    const holder = spawn(
      process.execPath,
      [
        '-e',
        `const D = require(${JSON.stringify(require.resolve('better-sqlite3'))});
         const db = new D(${JSON.stringify(t.server.store.dbFile)});
         db.exec('BEGIN EXCLUSIVE');
         process.stdout.write('locked\\n');
         process.stdin.on('data', () => { db.exec('COMMIT'); db.close(); process.exit(0); });`,
      ],
      { stdio: ['pipe', 'pipe', 'inherit'] },
    );
    await new Promise<void>((resolve) => holder.stdout.once('data', () => resolve()));
    try {
      const before = (await t.api('GET', '/index-options', { key })).body.data.workspace;
      const put = await t.api('PUT', '/index-options', { key, json: { ocr: false } });
      expect(put.status).toBe(503);
      expect(put.body.error).toMatchObject({ code: 'database_busy', status: 503 });
      expect(put.headers.get('retry-after')).toBe('2');
      expect((await t.api('GET', '/videos', { key })).status).toBe(200);
      expect((await t.api('GET', '/health')).status).toBe(200);
      expect((await t.api('GET', '/index-options', { key })).body.data.workspace).toEqual(before);
    } finally {
      holder.stdin.write('go\n');
      await new Promise((r) => holder.on('exit', r));
    }
    const put = await t.api('PUT', '/index-options', { key, json: { ocr: false } });
    expect(put.status).toBe(200);
    expect(put.body.data.workspace).toMatchObject({ ocr: false });
  });
});

describe('SIGTERM during a re-cluster', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

  it.each([0, 150, 400])(
    'leaves the plan applied whole or not at all (SIGTERM %i ms after the start)',
    async (delayMs) => {
      const dir = tempDir('mi-sigterm-');
      dirs.push(dir);
      const store = openStore(dir);
      insertSyntheticFaces(store, 'family', 2400, 24);
      const wsId = store.workspaces.byName('family')!.id;
      const plan = await planRegrouping(store, wsId, { form: true });
      const groups = plan.new_people.filter((g) => g.face_ids.length >= 3);
      expect(groups.length).toBeGreaterThan(10);
      const key = new AuthService(store).createKey({ workspace: 'family', scopes: ['read', 'write'] }).key;
      store.close();

      const s = startServe(['--data', dir, '--workers', '0']);
      const url = await s.url;
      const r = await fetch(`${url}/api/v1/people/recluster`, { method: 'POST', headers: { 'X-API-Key': key } });
      expect(r.status).toBe(202);
      if (delayMs) await new Promise((res) => setTimeout(res, delayMs));
      s.child.kill('SIGTERM');
      expect(await s.exited).toBe(0);

      const after = openStore(dir);
      try {
        const people = after.db.prepare('SELECT id FROM people WHERE workspace_id = ?').all(wsId) as Array<{ id: string }>;
        const assigned = after.db.prepare('SELECT person_id, face_id FROM face_people').all() as Array<{ person_id: string; face_id: string }>;
        if (people.length === 0) {
          expect(assigned).toEqual([]);
        } else {
          // Applied: every group of the plan is one person, whole.
          expect(people.length).toBe(groups.length);
          const byPerson = new Map<string, string[]>();
          for (const a of assigned) byPerson.set(a.person_id, [...(byPerson.get(a.person_id) ?? []), a.face_id]);
          const got = [...byPerson.values()].map((ids) => ids.sort().join(',')).sort();
          expect(got).toEqual(groups.map((g) => [...g.face_ids].sort().join(',')).sort());
        }
        console.log(`SIGTERM after ${delayMs} ms: ${people.length ? 'plan applied whole' : 'nothing applied'} (${groups.length} groups planned)`);
      } finally {
        after.close();
      }
    },
    120_000,
  );
});

describe('a model file deleted while the service runs', () => {
  const META = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../shared/models-meta/Xenova/all-MiniLM-L6-v2');
  const data = tempDir('mi-model-gone-');
  const scratch = tempDir('mi-model-gone-files-');
  let restoreManifest = () => {};
  let t: TestServer;
  let key: string;

  beforeAll(async () => {
    // A generated stand-in of the sentence encoder (plumbing only) with the real tokenizer.
    const files = installTinyMiniLM(path.join(data, 'models'), META, seededTable(30522, 16, 3), 30522, 16);
    writeManifest(path.join(scratch, 'manifest.json'), 'all-MiniLM-L6-v2', 'embeddings', 'feature-extraction', files);
    restoreManifest = useManifest(path.join(scratch, 'manifest.json'));
    t = await startTestServer({ workers: 1 }, data);
    key = t.key('docs');
  });
  afterAll(async () => {
    await t?.close();
    restoreManifest();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  it('fails only the stage that needs it, with the reason; the rest of the run and the service go on', async () => {
    const options = JSON.parse(EXTRACT_ONLY) as Record<string, boolean>;
    const first = await t.index(key, corpus('docs/a-text.pdf'), options);
    expect(first.index.report.stages.embeddings.state).toBe('ok');

    fs.rmSync(path.join(data, 'models', 'all-MiniLM-L6-v2', 'onnx', 'model_quantized.onnx'));
    const second = await t.index(key, corpus('office/a-text.docx'), options);
    expect(second.status).toBe('completed');
    expect(second.index.report.stages.extract.state).toBe('ok');
    expect(second.index.report.stages.embeddings).toMatchObject({ state: 'failed' });
    expect(second.index.report.stages.embeddings.reason).toMatch(/^model_not_installed: all-MiniLM-L6-v2/);
    // Search still answers (by words) for both documents.
    const hits = await t.api('POST', '/search', { key, json: { query: 'text' } });
    expect(hits.status).toBe(200);
    expect(new Set(hits.body.data.hits.map((h: { video_id: string }) => h.video_id))).toEqual(new Set([first.video_id, second.video_id]));
    expect((await t.api('GET', '/models', { key })).body.data.models.find((m: { name: string }) => m.name === 'all-MiniLM-L6-v2').installed).toBe(false);
  });
});
