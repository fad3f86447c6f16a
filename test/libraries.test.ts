// Libraries: real folders in a temp dir holding real corpus files, the real watcher, the real
// indexer. Every change is made to the folder as a person would make it; the API is read back.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpus } from './helpers/corpus.ts';
import { startTestServer, tempDir, type TestServer } from './helpers/server.ts';
import { startServe } from './helpers/serve.ts';
import type { RunFinishedEvent } from '../server/indexer/host.ts';

const JOHNS = fs
  .readFileSync(corpus('faces/dlib-johns/identities.tsv'), 'utf8')
  .trim()
  .split('\n')
  .map((l) => l.split('\t'))
  .filter(([, who]) => who === 'John_Salley')
  .map(([file]) => file)
  .slice(0, 5);

const SYNC = { libraryCheckMs: 150, librarySettleMs: 300, libraryGraceMs: 400 };

/** Writes a file as older than the settle time (a file long since written). */
function put(root: string, rel: string, data: string | Buffer, ageMs = 60_000): string {
  const file = path.join(root, rel);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, data);
  const t = new Date(Date.now() - ageMs);
  fs.utimesSync(file, t, t);
  return file;
}

function copy(root: string, rel: string, from: string): string {
  return put(root, rel, fs.readFileSync(from));
}

async function until<T>(what: string, probe: () => Promise<T | undefined | false>, ms = 60_000, everyMs = 100): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

interface LibraryView {
  status: string;
  files_seen: number;
  assets: number;
  pending: number;
}

describe('libraries: a folder indexed in place and kept in sync', () => {
  let t: TestServer;
  let key: string;
  let root: string;
  let libraryId: string;
  const library = async () => (await t.api('GET', `/libraries/${libraryId}`, { key })).body.data;
  const assets = async (): Promise<Array<{ video_id: string; file_name: string; status: string; offline: boolean; library_id: string }>> =>
    (await t.api('GET', '/videos?limit=200', { key })).body.data;
  const byName = async (name: string) => (await assets()).find((a) => a.file_name === name);
  /** The library has seen everything and every asset is indexed. */
  const settled = () =>
    until('the library to settle', async () => {
      const l = await library();
      if (l.status !== 'watching' || l.pending !== 0 || l.scan.running) return false;
      const all = await assets();
      return all.every((a) => a.status === 'completed') && all;
    });

  beforeAll(async () => {
    root = tempDir('mi-library-');
    t = await startTestServer({ libraryRoots: [os.tmpdir()], workers: 2, ...SYNC });
    key = t.key('home');
    // Only what the assertions need runs (faces and People for the photos, text for the rest).
    expect((await t.api('PUT', '/index-options', { key, json: { objects: false, labels: false, ocr: false } })).status).toBe(200);
    JOHNS.slice(0, 4).forEach((f, i) => copy(root, `people/john-${i}.jpg`, corpus(f)));
    copy(root, 'a-text.pdf', corpus('docs/a-text.pdf'));
    copy(root, 'archive/copy-of-a-text.pdf', corpus('docs/a-text.pdf'));
    put(root, 'docs/notes.txt', 'The aardvark digs at night.\n');
    put(root, 'docs/empty.txt', '');
    put(root, 'docs/broken.jpg', Buffer.from('this is not a picture at all, whatever its name says'));
    put(root, 'docs/old.doc', 'legacy');
    // A Lightroom sidecar beside a photo (UTF-16, as it writes them on Windows): neither an asset nor a problem.
    put(
      root,
      'people/john-0.JPG.xmp',
      Buffer.from(
        '\uFEFF<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title><rdf:Alt><rdf:li xml:lang="x-default">John</rdf:li></rdf:Alt></dc:title></rdf:Description></rdf:RDF></x:xmpmeta>',
        'utf16le',
      ),
    );
    put(root, 'raw/skipped.txt', 'excluded by a glob: raw/**');
    put(root, 'docs/draft.tmp.txt', 'excluded by a glob: *.tmp.txt');
    put(root, '.hidden/secret.txt', 'hidden folders are never indexed');
    put(root, 'node_modules/pkg/readme.txt', 'dependency folders are never indexed');
    const r = await t.api('POST', '/libraries', { key, json: { path: root, exclude: ['raw/**', '*.tmp.txt'] } });
    expect(r.status).toBe(201);
    expect(r.body.data).toMatchObject({ path: fs.realpathSync(root), exclude: ['raw/**', '*.tmp.txt'] });
    expect(['scanning', 'watching']).toContain(r.body.data.status);
    libraryId = r.body.data.library_id;
    await settled();
  }, 240_000);
  afterAll(async () => {
    await t.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('indexes every file once, in place; refuses what it cannot index with a reason; honours exclusions', async () => {
    const all = await assets();
    expect(all.map((a) => a.file_name).sort()).toEqual(['a-text.pdf', 'john-0.jpg', 'john-1.jpg', 'john-2.jpg', 'john-3.jpg', 'notes.txt']);
    expect(all.every((a) => a.library_id === libraryId && a.offline === false)).toBe(true);
    // Nothing was copied into the data folder: the asset is the file where it lies.
    const pdf = (await t.api('GET', `/videos/${all.find((a) => a.file_name === 'a-text.pdf')!.video_id}`, { key })).body.data;
    expect(pdf.path).toBe(path.join(fs.realpathSync(root), 'a-text.pdf'));
    // The same content at two paths is one asset that answers both.
    expect(pdf.paths.sort()).toEqual([path.join(fs.realpathSync(root), 'a-text.pdf'), path.join(fs.realpathSync(root), 'archive/copy-of-a-text.pdf')].sort());
    expect(fs.readdirSync(path.join(t.dataDir, 'assets', pdf.video_id)).some((f) => f.startsWith('original'))).toBe(false);
    // A text file's picture stages were planned as not applicable, with the reason (objects and OCR are off here).
    const note = (await t.api('GET', `/videos/${all.find((a) => a.file_name === 'notes.txt')!.video_id}`, { key })).body.data;
    for (const stage of ['faces', 'captions', 'people']) {
      expect(note.index.report.stages[stage], stage).toMatchObject({
        state: 'not_applicable',
        reason: 'a .txt document is read as text; its pictures are not indexed',
      });
    }

    const problems = (await t.api('GET', `/libraries/${libraryId}/problems`, { key })).body.data;
    const reason = (rel: string) => problems.find((p: { path: string }) => p.path === path.join(fs.realpathSync(root), rel))?.reason;
    expect(reason('docs/empty.txt')).toMatch(/empty/);
    expect(reason('docs/broken.jpg')).toMatch(/does not match its extension/);
    expect(reason('docs/old.doc')).toMatch(/legacy binary format \.doc/);
    expect(problems.some((p: { path: string }) => /raw|draft|\.hidden|node_modules|\.xmp$/i.test(p.path))).toBe(false);

    const lib = await library();
    expect(lib).toMatchObject({ status: 'watching', assets: 6, pending: 0, offline_assets: 0, refused: 3, unreadable: 0, error: null });
    expect(lib.files_seen).toBe(10); // 7 indexed paths (two hold the same PDF) + 3 refused
    expect(lib.last_scan_at).toEqual(expect.any(String));
    // Searchable like anything else.
    const hits = (await t.api('POST', '/search', { key, json: { query: 'aardvark' } })).body.data.hits;
    expect(hits[0].file_name).toBe('notes.txt');
  });

  it('indexes a new file without being asked, once it has settled', async () => {
    const t0 = Date.now();
    copy(root, 'people/john-4.jpg', corpus(JOHNS[4]));
    const a = await until('the new file', () => byName('john-4.jpg'), 20_000);
    expect(Date.now() - t0).toBeLessThan(5000);
    expect(a.library_id).toBe(libraryId);
    await settled();
  });

  it('shows its last asset done as soon as that asset is', async () => {
    // A book takes longer to index than the moment for which polled views share one count; the
    // library is read over and over meanwhile, and once more the moment the book is done.
    copy(root, 'docs/late.pdf', corpus('docs/carroll-wonderland.pdf'));
    const book = await until('the book to be admitted', () => byName('late.pdf'), 20_000, 20);
    let polling = true;
    let sawPending = false;
    const poll = (async () => {
      while (polling) {
        const { pending } = await library();
        sawPending ||= pending > 0;
      }
    })();
    const viewWhenDone = new Promise<LibraryView>((resolve) => {
      const onFinished = (e: RunFinishedEvent) => {
        if (e.assetId !== book.video_id || !e.assetCompleted) return;
        t.server.host.off('run-finished', onFinished);
        resolve(library());
      };
      t.server.host.on('run-finished', onFinished);
    });
    const view = await viewWhenDone;
    polling = false;
    await poll;
    expect(sawPending).toBe(true);
    expect(view.pending).toBe(0);
    await settled();
  });

  it("never says a scan is over with the counts of before it: the first view after the scan shows the scan's files", async () => {
    // A client polls until the scan is over and nothing is pending, then stops: that view must
    // already count what the scan found. Read as fast as the server answers, from the moment of adding.
    const other = t.key('scan-counts');
    const folder = tempDir('mi-library-counts-');
    try {
      put(folder, 'one.txt', 'The first of two notes.\n');
      put(folder, 'two.txt', 'The second of two notes.\n');
      const added = (await t.api('POST', '/libraries', { key: other, json: { path: folder } })).body.data;
      const over = await until(
        'the scan to be over',
        async () => {
          const l = (await t.api('GET', `/libraries/${added.library_id}`, { key: other })).body.data;
          return !l.scan.running && !l.scan.queued && l.status === 'watching' && l;
        },
        20_000,
        5,
      );
      expect(over).toMatchObject({ files_seen: 2, assets: 2 });
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });

  it('waits for a file still being written, then indexes it once', async () => {
    const file = path.join(root, 'docs/growing.txt');
    fs.writeFileSync(file, 'The first line of a growing file.\n');
    for (let i = 0; i < 4; i++) {
      await new Promise((r) => setTimeout(r, 150));
      fs.appendFileSync(file, `Line ${i} of the growing file, written while the library watches.\n`);
      expect(await byName('growing.txt')).toBeUndefined();
    }
    const a = await until('the settled file', () => byName('growing.txt'), 20_000);
    await settled();
    const d = (await t.api('GET', `/videos/${a.video_id}`, { key })).body.data;
    expect(d.size_bytes).toBe(fs.statSync(file).size);
    expect((await assets()).filter((x) => x.file_name === 'growing.txt')).toHaveLength(1);
  });

  it('re-indexes a changed file under the same video_id', async () => {
    const before = (await byName('notes.txt'))!;
    // The modification time its checksum was taken at, as the library keeps it (extraction trusts the file while it is unchanged).
    const times = () =>
      t.server.store.db
        .prepare('SELECT a.file_mtime_ms AS asset, f.mtime_ms AS library FROM assets a JOIN library_files f ON f.asset_id = a.id WHERE a.id = ?')
        .get(before.video_id) as { asset: number | null; library: number };
    const first = times();
    expect(first.asset).toBe(first.library);
    expect(first.asset).toBe(Math.floor(fs.statSync(path.join(root, 'docs/notes.txt')).mtimeMs));
    fs.writeFileSync(path.join(root, 'docs/notes.txt'), 'The zebra grazes at dawn.\n');
    await until('the change to be indexed', async () => {
      const hits = (await t.api('POST', '/search', { key, json: { query: 'zebra' } })).body.data.hits;
      return hits[0]?.video_id === before.video_id;
    });
    await settled();
    expect((await assets()).filter((a) => a.file_name === 'notes.txt').map((a) => a.video_id)).toEqual([before.video_id]);
    expect((await t.api('POST', '/search', { key, json: { query: 'aardvark' } })).body.data.hits).toEqual([]);
    const second = times();
    expect(second.asset).toBe(second.library);
    expect(second.asset).toBe(Math.floor(fs.statSync(path.join(root, 'docs/notes.txt')).mtimeMs));
  });

  it("follows a renamed and moved file: same video_id, nothing run again, the named person's face still named", async () => {
    const ws = t.server.store.workspaces.byName('home')!.id;
    expect((await t.api('POST', '/people/recluster', { key })).status).toBe(202);
    await t.server.services.people.settled(ws);
    const people = (await t.api('GET', '/people', { key })).body.data.people;
    expect(people.length).toBe(1);
    const person = people[0].person_id;
    expect((await t.api('PATCH', `/people/${person}`, { key, json: { name: 'John Salley' } })).status).toBe(200);

    const before = (await byName('john-1.jpg'))!;
    const face = (await t.api('GET', `/videos/${before.video_id}/regions`, { key })).body.data.faces[0];
    expect(face.person_id).toBe(person);
    const runsBefore = t.server.store.runs.forAsset(before.video_id).map((r) => [r.stage, r.finished_at]);

    fs.mkdirSync(path.join(root, 'people/2019'));
    fs.renameSync(path.join(root, 'people/john-1.jpg'), path.join(root, 'people/2019/salley-at-the-game.jpg'));
    const moved = await until('the asset to follow its file', () => byName('salley-at-the-game.jpg'), 20_000);
    expect(moved.video_id).toBe(before.video_id);
    await new Promise((r) => setTimeout(r, SYNC.libraryGraceMs + 300)); // past the grace period of the old path
    expect(await byName('john-1.jpg')).toBeUndefined();
    const detail = (await t.api('GET', `/videos/${before.video_id}`, { key })).body.data;
    expect(detail.path).toBe(path.join(fs.realpathSync(root), 'people/2019/salley-at-the-game.jpg'));
    expect(t.server.store.runs.forAsset(before.video_id).map((r) => [r.stage, r.finished_at])).toEqual(runsBefore);
    // Another file now: its time is not the one the checksum was taken at (read through if extracted again).
    expect(t.server.store.assets.byId(before.video_id)!.file_mtime_ms).toBeNull();
    const after = (await t.api('GET', `/videos/${before.video_id}/regions`, { key })).body.data.faces[0];
    expect(after).toMatchObject({ face_id: face.face_id, person_id: person });
    expect((await t.api('GET', `/people/${person}`, { key })).body.data).toMatchObject({ name: 'John Salley', status: 'named' });
    // Found by its new name.
    const hits = (await t.api('POST', '/search', { key, json: { query: 'game' } })).body.data.hits;
    expect(hits.map((h: { video_id: string }) => h.video_id)).toContain(before.video_id);
  });

  it('removes a deleted file from the index, and keeps an asset whose other copy remains', async () => {
    const notes = (await byName('notes.txt'))!;
    fs.rmSync(path.join(root, 'docs/notes.txt'));
    await until('the deleted file to leave', async () => (await t.api('GET', `/videos/${notes.video_id}`, { key })).status === 404);
    expect(await byName('notes.txt')).toBeUndefined();

    const pdf = (await byName('a-text.pdf'))!;
    fs.rmSync(path.join(root, 'a-text.pdf'));
    await until('the copy to answer', async () => {
      const d = (await t.api('GET', `/videos/${pdf.video_id}`, { key })).body.data;
      return d?.path === path.join(fs.realpathSync(root), 'archive/copy-of-a-text.pdf') && d;
    });
    await new Promise((r) => setTimeout(r, SYNC.libraryGraceMs + 300));
    expect((await t.api('GET', `/videos/${pdf.video_id}`, { key })).status).toBe(200);
  });

  it('goes offline when its folder goes away, keeps its assets listed and searchable, and reconciles when it is back', async () => {
    await settled();
    const ids = (await assets()).map((a) => a.video_id).sort();
    const runs = () => ids.map((id) => t.server.store.runs.forAsset(id).map((r) => [r.stage, r.finished_at]));
    const before = runs();
    const away = `${root}-unplugged`;
    fs.renameSync(root, away);
    try {
      await until('offline', async () => (await library()).status === 'offline');
      const lib = await library();
      expect(lib.offline_assets).toBe(ids.length);
      expect(lib.error).toMatch(/not there/);
      const listed = await assets();
      expect(listed.map((a) => a.video_id).sort()).toEqual(ids);
      expect(listed.every((a) => a.offline)).toBe(true);
      const hits = (await t.api('POST', '/search', { key, json: { query: 'game' } })).body.data.hits;
      expect(hits.length).toBeGreaterThan(0);
      // A page render of an offline document is still served.
      const pdf = listed.find((a) => a.file_name === 'copy-of-a-text.pdf' || a.file_name === 'a-text.pdf')!;
      const page = (await t.api('GET', `/videos/${pdf.video_id}/pages/1`, { key })).body.data;
      expect((await fetch(page.frame_url)).status).toBe(200);
    } finally {
      fs.renameSync(away, root);
    }
    await until('watching again', async () => (await library()).status === 'watching');
    await settled();
    expect((await assets()).map((a) => a.video_id).sort()).toEqual(ids);
    expect((await assets()).every((a) => !a.offline)).toBe(true);
    expect(runs()).toEqual(before); // nothing run again for files that did not change
  });
});

describe('libraries: who may add which folder', () => {
  let t: TestServer;
  const made: string[] = [];
  const dir = (prefix: string) => {
    const d = tempDir(prefix);
    made.push(d);
    return d;
  };
  let allowed: string;
  let outside: string;

  beforeAll(async () => {
    allowed = dir('mi-allowed-');
    outside = dir('mi-outside-');
    t = await startTestServer({ libraryRoots: [allowed], workers: 1, ...SYNC });
  }, 60_000);
  afterAll(async () => {
    await t.close();
    for (const d of made) fs.rmSync(d, { recursive: true, force: true });
  });

  it('refuses system folders, the data folder, folders outside the allowed roots, and read keys', async () => {
    const key = t.key('w');
    const add = (p: unknown, k = key) => t.api('POST', '/libraries', { key: k, json: { path: p } });
    expect((await add(allowed, t.key('w', ['read']))).status).toBe(403);
    for (const p of ['/', '/etc', '/proc', '/usr/share']) {
      const r = await add(p);
      expect(r.status).toBe(403);
      expect(r.body.error.code).toBe('forbidden');
    }
    expect((await add(t.dataDir)).body.error.message).toMatch(/data folder/);
    expect((await add(path.dirname(t.dataDir))).status).toBe(403);
    expect((await add(outside)).body.error.message).toMatch(/outside the folders libraries may come from/);
    expect((await add('relative/path')).status).toBe(422);
    expect((await add(path.join(allowed, 'nope'))).status).toBe(404);
    put(allowed, 'file.txt', 'a file, not a folder');
    expect((await add(path.join(allowed, 'file.txt'))).status).toBe(422);
    for (const glob of ['/etc/**', '../elsewhere/**', '']) {
      expect((await t.api('POST', '/libraries', { key, json: { path: allowed, exclude: [glob] } })).status).toBe(422);
    }
    // A link inside an allowed root that leads out of it is judged by where it leads.
    fs.symlinkSync(outside, path.join(allowed, 'link-out'));
    expect((await add(path.join(allowed, 'link-out'))).status).toBe(403);
    expect(t.server.store.libraries.all()).toEqual([]);
  });

  it("keeps each workspace's libraries and paths to itself; removing one leaves the files", async () => {
    const key = t.key('w');
    const other = t.key('other');
    const lib = dir('mi-lib-');
    fs.rmSync(lib, { recursive: true });
    fs.mkdirSync(path.join(allowed, 'photos'));
    put(allowed, 'photos/notes.txt', 'Quokkas smile for photographs.\n');
    put(outside, 'secret.txt', 'Outside the allowed roots: never read.\n');
    fs.symlinkSync(outside, path.join(allowed, 'photos/escape'));
    const r = await t.api('POST', '/libraries', { key, json: { path: path.join(allowed, 'photos') } });
    expect(r.status).toBe(201);
    const id = r.body.data.library_id;
    await until('indexed', async () => {
      const l = (await t.api('GET', `/libraries/${id}`, { key })).body.data;
      return l.status === 'watching' && l.assets === 1 && l.pending === 0;
    });
    // The link out was not followed.
    const problems = (await t.api('GET', `/libraries/${id}/problems`, { key })).body.data;
    expect(problems).toEqual([
      { path: path.join(fs.realpathSync(allowed), 'photos/escape'), state: 'refused', reason: expect.stringMatching(/symbolic link/) },
    ]);
    expect((await t.api('POST', '/search', { key, json: { query: 'outside allowed never' } })).body.data.hits).toEqual([]);

    expect((await t.api('POST', '/libraries', { key, json: { path: allowed } })).status).toBe(409);
    // Another workspace sees none of it.
    expect((await t.api('GET', '/libraries', { key: other })).body.data).toEqual([]);
    for (const [m, p] of [
      ['GET', `/libraries/${id}`],
      ['GET', `/libraries/${id}/problems`],
      ['POST', `/libraries/${id}/scan`],
      ['DELETE', `/libraries/${id}`],
    ] as const) {
      expect((await t.api(m, p, { key: other })).status).toBe(404);
    }
    const asset = (await t.api('GET', '/videos', { key })).body.data[0];
    expect((await t.api('GET', `/videos/${asset.video_id}`, { key: other })).status).toBe(404);

    expect((await t.api('POST', `/libraries/${id}/scan`, { key })).status).toBe(202);
    const del = await t.api('DELETE', `/libraries/${id}`, { key });
    expect(del.body.data).toEqual({ library_id: id, removed: true, assets_removed: 1 });
    expect((await t.api('GET', `/videos/${asset.video_id}`, { key })).status).toBe(404);
    expect((await t.api('GET', '/libraries', { key })).body.data).toEqual([]);
    expect(fs.readFileSync(path.join(allowed, 'photos/notes.txt'), 'utf8')).toMatch(/Quokkas/);
  });
});

describe('libraries: crash safety', () => {
  it('stops cleanly while its folder keeps changing: nothing runs against the closed database', async () => {
    const root = tempDir('mi-stop-lib-');
    put(root, 'first.txt', 'The first note.\n');
    const t = await startTestServer({ libraryRoots: [os.tmpdir()], workers: 0, ...SYNC });
    const key = t.key('stop');
    const id = (await t.api('POST', '/libraries', { key, json: { path: root } })).body.data.library_id;
    await until('the folder to be watched', async () => (await t.api('GET', `/libraries/${id}`, { key })).body.data.status === 'watching');
    // Files keep coming (new, and changed while still settling) before, during and after the stop.
    let writing = true;
    const writer = (async () => {
      for (let i = 0; writing; i++) {
        fs.writeFileSync(path.join(root, `note-${i % 40}.txt`), `Note ${i}.\n`);
        await new Promise((r) => setTimeout(r, 1));
      }
    })();
    const failures: unknown[] = [];
    const onFailure = (err: unknown) => failures.push(err);
    process.on('unhandledRejection', onFailure);
    try {
      await new Promise((r) => setTimeout(r, 400));
      await t.close();
      // A scan asked for once stopped (as the periodic tick or a request in flight may).
      t.server.sync.scan(id);
      await new Promise((r) => setTimeout(r, SYNC.librarySettleMs + SYNC.libraryGraceMs + 300));
    } finally {
      writing = false;
      await writer;
      process.off('unhandledRejection', onFailure);
    }
    expect(failures).toEqual([]);
  });

  it('killed mid-scan and restarted, indexes every file exactly once', async () => {
    const data = tempDir('mi-crash-data-');
    const root = tempDir('mi-crash-lib-');
    const N = 2000;
    for (let i = 0; i < N; i++) put(root, `batch-${Math.floor(i / 50)}/note-${i}.txt`, `Note number ${i}: a distinct line about item ${i * 7919}.\n`);
    // The probes below ask every 10 ms: past the default rate limit (1200 a minute) on a slow machine.
    const env = { MEDIA_INDEX_LIBRARY_ROOTS: root, MEDIA_INDEX_WORKERS: '1', MEDIA_INDEX_RATE_LIMIT: '100000000' };
    const first = startServe(['--data', data], env);
    const url = await first.url;
    const key = fs
      .readFileSync(path.join(data, 'first-api-key.txt'), 'utf8')
      .split('\n')
      .find((l) => l.startsWith('mi_'))!;
    const api = async (method: string, p: string, json?: unknown): Promise<{ data: LibraryView[] }> => {
      const r = await fetch(`${url}/api/v1${p}`, {
        method,
        headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
        body: json ? JSON.stringify(json) : undefined,
      });
      return (await r.json()) as { data: LibraryView[] };
    };
    await api('POST', '/libraries', { path: root });
    // Killed once some files are recorded and others not yet, or, where the scan of 2000 files
    // ends between two probes (≈ 0.5 s on a fast machine), while most are still waiting to be indexed.
    await until(
      'the scan to be under way',
      async () => {
        const l = (await api('GET', '/libraries')).data[0];
        return l.files_seen > 0 && (l.files_seen < N || l.pending > N / 2);
      },
      60_000,
      10,
    );
    first.child.kill('SIGKILL');
    await first.exited;

    const second = startServe(['--data', data], env);
    const url2 = await second.url;
    try {
      const get = async (p: string) => (await (await fetch(`${url2}/api/v1${p}`, { headers: { 'X-API-Key': key } })).json()) as { data: LibraryView[] };
      await until(
        'every file',
        async () => {
          const l = (await get('/libraries')).data[0];
          return l.status === 'watching' && l.files_seen === N && l.assets === N;
        },
        120_000,
      );
      const store = await import('../server/store/db.ts');
      const db = store.openDatabase(path.join(data, 'media-index.sqlite'), { readonly: true });
      const rows = db.prepare('SELECT COUNT(*) AS assets, COUNT(DISTINCT stored_path) AS paths FROM assets WHERE deleted_at IS NULL').get();
      const files = db.prepare("SELECT COUNT(*) AS n, COUNT(DISTINCT asset_id) AS assets FROM library_files WHERE state = 'indexed'").get();
      db.close();
      expect(rows).toEqual({ assets: N, paths: N });
      expect(files).toEqual({ n: N, assets: N });
    } finally {
      second.child.kill('SIGTERM');
      await second.exited;
      fs.rmSync(data, { recursive: true, force: true });
      fs.rmSync(root, { recursive: true, force: true });
    }
  }, 180_000);
});

describe('libraries: searchable while the walk still reads', () => {
  it('indexes the files read first while it still reads large ones', async () => {
    const t = await startTestServer({ libraryRoots: [os.tmpdir()], workers: 1, ...SYNC });
    const root = tempDir('mi-library-large-');
    try {
      const key = t.key('drive');
      put(root, 'first.txt', 'The quokka smiles at dawn.\n');
      // Files that take the walk a while to read (sparse, so they hold no disk; refused once read: no video in them).
      const LARGE = 4;
      for (let i = 1; i <= LARGE; i++) {
        const file = put(root, `large/clip-${i}.mp4`, '');
        fs.truncateSync(file, 768 * 2 ** 20);
        const old = new Date(Date.now() - 60_000);
        fs.utimesSync(file, old, old);
      }
      const r = await t.api('POST', '/libraries', { key, json: { path: root } });
      expect(r.status).toBe(201);
      const id = r.body.data.library_id;
      const library = async () => (await t.api('GET', `/libraries/${id}`, { key })).body.data;
      // Found by its words while the large files are still being read: before, nothing was recorded
      // until the walk had read every file (or a thousand of them).
      const first = await until(
        'the first file to be searchable',
        async () => {
          const hits = (await t.api('POST', '/search', { key, json: { query: 'quokka' } })).body.data.hits;
          return hits.length > 0 && (await library());
        },
        60_000,
        25,
      );
      expect(first.files_seen).toBeLessThan(1 + LARGE);
      expect(first.scan.running).toBe(true);
      const done = await until('the walk to end', async () => {
        const l = await library();
        return !l.scan.running && !l.scan.queued && l.files_seen === 1 + LARGE && l;
      });
      expect(done).toMatchObject({ assets: 1, refused: LARGE });
    } finally {
      await t.close();
      fs.rmSync(root, { recursive: true, force: true });
    }
  }, 120_000);
});
