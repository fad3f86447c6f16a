// Faults and abuse: the indexer and server killed mid-batch, hostile files, probes with other
// workspaces' ids, and a burst of concurrent uploads and searches.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import JSZip from 'jszip';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpus } from './helpers/corpus.ts';
import { docxBomb, docxBombFile } from './helpers/zip-bomb.ts';
import { startTestServer, tempDir, type TestServer } from './helpers/server.ts';
import { openStore } from '../server/store/index.ts';
import { AuthService } from '../server/services/auth.service.ts';

const CLI = fileURLToPath(new URL('../bin/media-index.js', import.meta.url));

/** Every `serve` this file started and has not seen exit: stopped after the tests, whatever failed. */
const running = new Set<ChildProcess>();
afterAll(async () => {
  await Promise.all(
    [...running].map((child) => {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGKILL');
      return exited;
    }),
  );
});

function serve(dataDir: string): Promise<{ url: string; kill: (sig: NodeJS.Signals) => Promise<void> }> {
  const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--data', dataDir], { stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  const exited = new Promise<void>((r) =>
    child.on('exit', () => {
      running.delete(child);
      r();
    }),
  );
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (c) => {
      out += c;
      const m = /listening on (\S+)/.exec(out);
      if (m)
        resolve({
          url: m[1],
          kill: async (sig) => {
            child.kill(sig);
            await exited;
          },
        });
    });
    child.on('exit', (code) => reject(new Error(`serve exited ${code}`)));
  });
}

async function upload(url: string, key: string, file: string) {
  const form = new FormData();
  form.append('pipeline', 'arrow');
  form.append('file', await fs.openAsBlob(file), path.basename(file));
  const r = await fetch(`${url}/api/v1/videos`, { method: 'POST', headers: { 'X-API-Key': key }, body: form });
  return { status: r.status, body: (await r.json()) as { data: { video_id: string } } };
}

describe('kill -9 while a batch is indexing', () => {
  it('loses no accepted asset, duplicates none, and leaves nothing half-done after restarts', async () => {
    const data = tempDir('mi-chaos-');
    const store = openStore(data);
    const key = new AuthService(store).createKey({ workspace: 'chaos', scopes: ['read', 'write'] }).key;
    store.close();
    const files = [
      'docs/carroll-wonderland.pdf',
      'video/forensics/movie-hello.mp4',
      'faces/face-api-samples/sample1.jpg',
      'ocr/images/imageTextN.png',
      'office/example.docx',
      'video/opencv/vtest.avi',
      'scenes/skimage/chelsea.png',
      'docs/a-text.pdf',
    ];
    const accepted: string[] = [];
    let s = await serve(data);
    for (const [i, f] of files.entries()) {
      const r = await upload(s.url, key, corpus(f));
      expect(r.status).toBe(201);
      accepted.push(r.body.data.video_id);
      if (i % 3 === 2) {
        await new Promise((res) => setTimeout(res, 300 + 400 * Math.random()));
        await s.kill('SIGKILL'); // server and its indexer processes, mid-run
        s = await serve(data);
      }
    }
    await new Promise((res) => setTimeout(res, 1500));
    await s.kill('SIGKILL');
    s = await serve(data);
    const deadline = Date.now() + 240_000;
    for (const id of accepted) {
      for (;;) {
        const r = await fetch(`${s.url}/api/v1/videos/${id}`, { headers: { 'X-API-Key': key } });
        expect(r.status).toBe(200);
        const d = ((await r.json()) as { data: { status: string; index: { report: { stages: Record<string, { state: string; reason: string | null }> } } } })
          .data;
        if (d.status === 'completed') {
          for (const [name, st] of Object.entries(d.index.report.stages)) {
            expect(['ok', 'off', 'not_applicable', 'failed'], name).toContain(st.state);
            if (st.state === 'failed') expect(st.reason).toMatch(/^(model_not_installed|dependency_failed)/);
          }
          break;
        }
        if (Date.now() > deadline) throw new Error(`${id} did not complete`);
        await new Promise((res) => setTimeout(res, 250));
      }
    }
    await s.kill('SIGTERM');
    const check = openStore(data);
    try {
      expect((check.db.prepare('SELECT COUNT(*) AS n FROM assets').get() as { n: number }).n).toBe(files.length);
      expect((check.db.prepare("SELECT COUNT(*) AS n FROM stage_runs WHERE state IN ('pending', 'running')").get() as { n: number }).n).toBe(0);
      expect(fs.readdirSync(path.join(data, 'tmp'))).toEqual([]);
      expect(fs.readdirSync(path.join(data, 'assets')).sort()).toEqual([...accepted].sort());
      // Search entries were replaced, never doubled, by the runs that were repeated.
      const doubled = check.db
        .prepare(
          'SELECT asset_id, stage, modality, timestamp, text, COUNT(*) AS n FROM search_entries GROUP BY 1, 2, 3, 4, 5, page, ref, region_id HAVING n > 1',
        )
        .all();
      expect(doubled).toEqual([]);
    } finally {
      check.close();
      fs.rmSync(data, { recursive: true, force: true });
    }
  }, 400_000);
});

describe('hostile and broken files', () => {
  let t: TestServer;
  let key: string;
  const scratch = tempDir('mi-hostile-');
  const saved = { ...process.env };

  beforeAll(async () => {
    // Small limits so the test files stay small; the indexer processes inherit them.
    process.env.MEDIA_INDEX_MAX_UNZIPPED_BYTES = String(20 * 1024 * 1024);
    process.env.MEDIA_INDEX_MAX_DURATION_S = '60';
    t = await startTestServer({ workers: 2, stageTimeoutMs: 60_000 });
    key = t.key('hostile');
  });
  afterAll(async () => {
    process.env = saved;
    await t.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  async function outcome(name: string, data: Uint8Array) {
    const r = await t.upload(key, { name, data });
    if (r.status !== 201) return { status: r.status, code: r.body.error.code as string };
    const d = await t.waitCompleted(key, r.body.data.video_id);
    return { status: 201, extract: d.index.report.stages.extract as { state: string; reason: string | null } };
  }

  it('refuses or fails each one with a reason, keeps memory bounded and keeps serving', async () => {
    const zipBomb = new JSZip();
    zipBomb.file('[Content_Types].xml', '<Types/>');
    zipBomb.file('word/document.xml', Buffer.alloc(40 * 1024 * 1024, 0x20));
    const bomb = await zipBomb.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE', compressionOptions: { level: 9 } });
    expect(bomb.length).toBeLessThan(200_000);

    // A PNG whose header claims 50,000 x 50,000 pixels.
    const ihdr = Buffer.alloc(13);
    ihdr.writeUInt32BE(50_000, 0);
    ihdr.writeUInt32BE(50_000, 4);
    ihdr.set([8, 2, 0, 0, 0], 8);
    const chunk = (type: string, body: Buffer) => {
      const len = Buffer.alloc(4);
      len.writeUInt32BE(body.length);
      const crc = Buffer.alloc(4);
      crc.writeUInt32BE(zlib.crc32 ? zlib.crc32(Buffer.concat([Buffer.from(type), body])) : 0);
      return Buffer.concat([len, Buffer.from(type), body, crc]);
    };
    const hugePng = Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      chunk('IHDR', ihdr),
      chunk('IDAT', zlib.deflateSync(Buffer.alloc(1000))),
      chunk('IEND', Buffer.alloc(0)),
    ]);

    const nested = Buffer.from(`<html><body>${'<div>'.repeat(100_000)}deep${'</div>'.repeat(100_000)}</body></html>`);
    const endless = Buffer.concat([
      fs.readFileSync(corpus('docs/a-text.pdf')).subarray(0, 9),
      Buffer.from('1 0 obj\n<< /Length 999999999 >>\nstream\n'),
      Buffer.alloc(100_000, 0x41),
    ]);
    const rssBefore = process.memoryUsage().rss;
    const cases: Array<[string, Uint8Array, (o: Awaited<ReturnType<typeof outcome>>) => void]> = [
      ['bomb.docx', bomb, (o) => expect(o.extract?.reason).toMatch(/^too_large/)],
      [
        'liar.docx',
        await docxBomb('word/document.xml', 64 * 1024 * 1024, { declare: 100 }),
        (o) => expect(o.extract?.reason).toMatch(/^too_large: word\/document.xml inflates past 100 bytes/),
      ],
      ['huge.png', hugePng, (o) => expect(o.extract?.reason).toMatch(/^(too_large|corrupt)/)],
      ['nested.html', nested, (o) => expect(o.extract?.state).toMatch(/ok|failed/)],
      ['endless.pdf', endless, (o) => expect(o.extract).toMatchObject({ state: 'failed', reason: expect.stringMatching(/^corrupt/) })],
      ['empty.mp4', new Uint8Array(0), (o) => expect(o).toMatchObject({ status: 422, code: 'empty_file' })],
      ['image.pdf', await sharp(corpus('scenes/skimage/chelsea.png')).jpeg().toBuffer(), (o) => expect(o).toMatchObject({ status: 415 })],
      [`${'a'.repeat(1000)}.txt`, Buffer.from('long name'), (o) => expect(o).toMatchObject({ status: 201, extract: { state: 'ok' } })],
      ['..%2F..%2Fescape.txt', Buffer.from('escape'), (o) => expect(o.status).toBe(201)],
    ];
    for (const [name, data, check] of cases) {
      const o = await outcome(name, data);
      check(o);
      expect((await t.api('GET', '/health')).status, name).toBe(200);
    }
    const grown = (process.memoryUsage().rss - rssBefore) / 1024 / 1024;
    console.log(`hostile files: server RSS grew by ${grown.toFixed(0)} MiB`);
    expect(grown).toBeLessThan(512);
    // Stored names are the server's; nothing escaped the data folder.
    for (const a of t.server.store.db.prepare('SELECT id, stored_path, file_name FROM assets').all() as Array<{
      id: string;
      stored_path: string;
      file_name: string;
    }>) {
      expect(a.stored_path.startsWith(path.join('assets', a.id))).toBe(true);
      expect(a.file_name.length).toBeLessThanOrEqual(255);
    }
  });

  it('refuses a video longer than the configured limit', async () => {
    const o = await outcome('long.avi', fs.readFileSync(corpus('video/opencv/vtest.avi')));
    expect(o.extract).toMatchObject({ state: 'failed', reason: expect.stringMatching(/^too_long: 80 s; the limit is 60 s/) });
  });
});

describe("isolation: another workspace's ids reach nothing", () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ workers: 1 });
  });
  afterAll(() => t.close());

  it('answers 404 (or 403 on write for a shared asset) on every endpoint, and leaks no data', async () => {
    const owner = t.key('owner');
    const other = t.key('other');
    const up = await t.upload(owner, corpus('faces/face-api-samples/sample1.jpg'));
    const id = up.body.data.video_id;
    const doc = (await t.upload(owner, corpus('docs/a-text.pdf'))).body.data.video_id;
    await t.waitCompleted(owner, id);
    await t.waitCompleted(owner, doc);
    await t.api('POST', '/people/recluster', { key: owner });
    const ownerWs = t.server.store.workspaces.byName('owner')!.id;
    await t.server.services.people.settled(ownerWs);
    t.server.store.people.insert({
      id: 'per_isolation000000000',
      workspace_id: ownerWs,
      name: 'Secret',
      hidden: 0,
      cover_face_id: null,
      merged_into: null,
      created_at: 1,
      updated_at: 1,
    });
    const face = (await t.api('GET', `/videos/${id}/regions?timestamp=0`, { key: owner })).body.data.faces[0].face_id;
    t.server.store.people.assign(face, 'per_isolation000000000', 'owner', 1);

    const probes: Array<[string, string, unknown?]> = [
      ['GET', `/videos/${id}`],
      ['GET', `/videos/${doc}/pages/1`],
      ['GET', `/videos/${id}/regions?timestamp=0`],
      ['GET', `/videos/${id}/xmp`],
      ['DELETE', `/videos/${id}`],
      ['POST', `/videos/${id}/reindex`, {}],
      ['GET', '/people/per_isolation000000000'],
      ['PATCH', '/people/per_isolation000000000', { name: 'x' }],
      ['POST', '/people/per_isolation000000000/merge', { into: 'per_isolation000000000' }],
      ['POST', '/people/per_isolation000000000/remove', { face_ids: [face] }],
      ['POST', `/recall/${id}/ask`, { query: 'who' }],
      ['POST', '/chat', { query: 'Secret', video_ids: [id] }],
      ['POST', '/search', { query: 'Secret', video_id: id }],
    ];
    for (const [method, p, json] of probes) {
      const r = await t.api(method, p, { key: other, json });
      expect(r.status, `${method} ${p}`).toBe(404);
      expect(JSON.stringify(r.body), `${method} ${p}`).not.toMatch(/Secret|sample1|a-text/);
    }
    const frame = await fetch(`${t.url}/api/v1/videos/${id}/frames/frame.jpg`, { headers: { 'X-API-Key': other } });
    expect(frame.status).toBe(404);
    const search = await t.api('POST', '/search', { key: other, json: { query: 'Secret sample1' } });
    expect(search.body.data.hits).toEqual([]);
    expect((await t.api('GET', '/people', { key: other })).body.data.total).toBe(0);

    t.server.services.assets.share(id, 'other');
    expect((await t.api('GET', `/videos/${id}`, { key: other })).status).toBe(200);
    expect((await t.api('DELETE', `/videos/${id}`, { key: other })).status).toBe(403);
    expect((await t.api('POST', `/videos/${id}/reindex`, { key: other, json: {} })).status).toBe(403);
    const xmp = await t.api('GET', `/videos/${id}/xmp`, { key: other });
    expect(xmp.status).toBe(403);
    expect(JSON.stringify(xmp.body)).not.toContain('Secret');
  });
});

describe('load', () => {
  it('takes 50 concurrent uploads with searches: all complete, no 5xx, 429 only past the rate and with Retry-After', async () => {
    const t = await startTestServer({ workers: 2, rateLimit: { max: 120, windowMs: 60_000 } });
    try {
      const key = t.key('busy');
      const statuses: number[] = [];
      const retryAfter: Array<string | null> = [];
      const jobs = Array.from({ length: 50 }, async (_, i) => {
        const r = await t.upload(key, { name: `note-${i}.txt`, data: Buffer.from(`Note number ${i} about the zebra crossing.`) });
        statuses.push(r.status);
        const s = await t.api('POST', '/search', { key, json: { query: 'zebra' } });
        statuses.push(s.status);
        if (s.status === 429) retryAfter.push(s.headers.get('retry-after'));
        return r.body.data?.video_id as string | undefined;
      });
      const ids = (await Promise.all(jobs)).filter(Boolean) as string[];
      expect(statuses.filter((s) => s >= 500)).toEqual([]);
      expect(statuses.every((s) => [200, 201, 429].includes(s))).toBe(true);
      expect(ids).toHaveLength(50);
      // Polled in the store: polling over HTTP would spend the rate being tested.
      for (const id of ids) {
        while (t.server.store.assets.byId(id)?.status !== 'completed') await new Promise((r) => setTimeout(r, 100));
      }
      expect(statuses.filter((s) => s === 429)).toHaveLength(0); // 100 calls stay under 120 a minute

      const burst = await Promise.all(Array.from({ length: 40 }, () => t.api('POST', '/search', { key, json: { query: 'zebra' } })));
      const limited = burst.filter((r) => r.status === 429);
      expect(limited.length).toBeGreaterThan(0);
      for (const r of limited) expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(burst.filter((r) => r.status >= 500)).toEqual([]);
    } finally {
      await t.close();
    }
  }, 300_000);
});

describe('a zip bomb that lies about its size, named .docx', () => {
  let t: TestServer;
  const scratch = tempDir('mi-bomb-');
  beforeAll(async () => {
    t = await startTestServer({ workers: 1 });
  });
  afterAll(async () => {
    await t.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  /** Peak resident memory (VmHWM) of this process's indexer processes, in MiB (Linux). */
  const indexerPeaksMiB = () =>
    fs
      .readdirSync('/proc')
      .filter((d) => /^\d+$/.test(d))
      .flatMap((pid) => {
        try {
          const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
          const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
          if (Number(/^PPid:\s+(\d+)/m.exec(status)?.[1]) !== process.pid || !/indexer[\\/]worker\.(mjs|ts)/.test(cmd)) return [];
          return [Number(/^VmHWM:\s+(\d+) kB/m.exec(status)?.[1]) / 1024];
        } catch {
          return [];
        }
      });

  it.runIf(process.platform === 'linux')(
    'fails extraction with its reason, the indexer process staying under 300 MiB',
    async () => {
      // 320 MiB of text declared as 100 bytes, in a 0.3 MB file: read unguarded, its body alone would take 320 MiB.
      const file = path.join(scratch, 'report.docx');
      await docxBombFile(file, 'word/document.xml', 320 * 1024 * 1024, 100);
      const key = t.key('bomb');
      const d = await t.index(key, file);
      expect(d.index.report.stages.extract).toMatchObject({ state: 'failed', reason: 'too_large: word/document.xml inflates past 100 bytes' });
      const peaks = indexerPeaksMiB();
      console.log(`zip bomb: indexer peak RSS ${peaks.map((p) => p.toFixed(0)).join(', ')} MiB`);
      expect(peaks.length).toBeGreaterThan(0);
      for (const p of peaks) expect(p).toBeLessThan(300);
      expect((await t.api('GET', '/health')).status).toBe(200);
    },
    120_000,
  );
});
