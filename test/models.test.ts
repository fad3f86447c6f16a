// The model manager: downloads from a server that answers like the model hub (pinned and
// hub-verified builds, one revision, resume, tampered files refused, a mirror), verify, remove, and
// what stages say when a model is missing.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpus } from './helpers/corpus.ts';
import { startTestServer, tempDir, type TestServer } from './helpers/server.ts';
import { modelStatus, modelsDir, removeModel, verifyModel, type ModelEntry } from '../server/ml/models.ts';
import { pullModel } from '../server/ml/model-download.ts';
import { greyVideo } from './helpers/ffmpeg.ts';

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** The git blob id of bytes (the hub's ETag of a file not kept in LFS). */
const gitBlob = (b: Buffer) => createHash('sha1').update(`blob ${b.length}\0`).update(b).digest('hex');

/**
 * A local server that answers like the model hub: `/<repo>/resolve/<revision>/<file>`; HEAD of a
 * file kept in LFS (over 100 kB here) answers 302 to the file store with `X-Linked-Etag` (its
 * sha256), `X-Linked-Size` and `X-Repo-Commit`; a small file answers 200 with its git blob id as
 * `ETag`. GET follows the same way; the file store honours Range. `tamper` serves other bytes under
 * a file's published checksum.
 */
function hubLike(repo: string, files: Record<string, Buffer>) {
  const state = { commit: 'a'.repeat(40), tamper: new Set<string>(), requests: [] as Array<{ method: string; url: string; range?: string }> };
  const body = (name: string) => (state.tamper.has(name) ? randomBytes(files[name].length) : files[name]);
  const byHash = () => new Map(Object.entries(files).map(([n, b]) => [sha(b), n]));
  const server = http.createServer((req, res) => {
    const url = decodeURIComponent(req.url ?? '/');
    state.requests.push({ method: req.method ?? 'GET', url, range: req.headers.range });
    const send = (b: Buffer) => {
      const m = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
      const from = m ? Number(m[1]) : 0;
      res.writeHead(m ? 206 : 200, { 'Content-Length': b.length - from, ...(m ? { 'Content-Range': `bytes ${from}-${b.length - 1}/${b.length}` } : {}) });
      res.end(req.method === 'HEAD' ? undefined : b.subarray(from));
    };
    const store = /^\/store\/([0-9a-f]{64})$/.exec(url);
    if (store) {
      const name = byHash().get(store[1]);
      return name ? send(body(name)) : void res.writeHead(404).end();
    }
    const m = /^\/(.+?)\/resolve\/([^/]+)\/(.+)$/.exec(url);
    if (!m || m[1] !== repo || (m[2] !== 'main' && m[2] !== state.commit) || !files[m[3]]) return void res.writeHead(404).end();
    const b = files[m[3]];
    if (b.length > 100_000) {
      res.writeHead(302, {
        Location: `/store/${sha(b)}`,
        'X-Linked-Etag': `"${sha(b)}"`,
        'X-Linked-Size': b.length,
        'X-Repo-Commit': state.commit,
        ETag: `"${sha(b)}"`,
      });
      return void res.end();
    }
    res.setHeader('ETag', `"${gitBlob(b)}"`);
    res.setHeader('X-Repo-Commit', state.commit);
    send(body(m[3]));
  });
  return { server, state };
}

describe('model manager downloads', () => {
  const files: Record<string, Buffer> = { 'config.json': Buffer.from('{"model_type":"tiny"}'), 'onnx/model.onnx': randomBytes(300_000) };
  const hub = hubLike('test/tiny', files);
  const mirror = hubLike('test/tiny', files);
  let origin: string;
  let mirrorOrigin: string;
  const data = tempDir('mi-models-');
  const entry = (pinned: boolean): ModelEntry => ({
    name: 'tiny-test',
    stage: 'embeddings',
    task: 'feature-extraction',
    source: 'test',
    licence: 'MIT',
    description: 'test',
    repo: 'test/tiny',
    files: Object.entries(files).map(([p, b]) => ({ path: p, size: pinned ? b.length : null, sha256: pinned ? sha(b) : null })),
  });
  const dir = () => path.join(modelsDir(data), 'tiny-test');

  beforeAll(async () => {
    for (const s of [hub.server, mirror.server]) await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
    origin = `http://127.0.0.1:${(hub.server.address() as AddressInfo).port}`;
    mirrorOrigin = `http://127.0.0.1:${(mirror.server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    hub.server.close();
    mirror.server.close();
    fs.rmSync(data, { recursive: true, force: true });
  });

  it('downloads a pinned model, checks every file, resumes a partial file with a Range request', async () => {
    fs.mkdirSync(path.join(dir(), 'onnx'), { recursive: true });
    fs.writeFileSync(path.join(dir(), 'onnx', 'model.onnx.part'), files['onnx/model.onnx'].subarray(0, 120_000));
    const progress: number[] = [];
    const receipt = await pullModel(data, entry(true), { mirror: origin, onProgress: (p) => progress.push(p.received) });
    expect(hub.state.requests.find((r) => r.method === 'GET' && r.url.startsWith('/store/'))?.range).toBe('bytes=120000-');
    expect(fs.readFileSync(path.join(dir(), 'onnx', 'model.onnx')).equals(files['onnx/model.onnx'])).toBe(true);
    expect(fs.existsSync(path.join(dir(), 'onnx', 'model.onnx.part'))).toBe(false);
    expect(progress.at(-1)).toBe(files['config.json'].length + files['onnx/model.onnx'].length);
    expect(receipt).toMatchObject({ build: 'pinned', revision: hub.state.commit });
    expect(receipt.files.every((f) => f.verified_by === 'manifest')).toBe(true);
    expect(modelStatus(modelsDir(data), entry(true))).toMatchObject({ installed: true, build: 'pinned', revision: hub.state.commit, missing: [] });
    expect((await verifyModel(data, entry(true))).every((r) => r.ok)).toBe(true);
    // A second pull finds everything in place: it asks for the metadata and downloads nothing.
    const before = hub.state.requests.length;
    await pullModel(data, entry(true), { mirror: origin });
    expect(hub.state.requests.slice(before).every((r) => r.method === 'HEAD')).toBe(true);
  });

  it('installs a model this build does not pin, verified against the checksums the hub publishes, from one revision', async () => {
    await removeModel(data, entry(false));
    expect(modelStatus(modelsDir(data), entry(false))).toMatchObject({ downloadable: true, pinned: false, installed: false });
    const before = hub.state.requests.length;
    const receipt = await pullModel(data, entry(false), { mirror: origin });
    expect(receipt).toMatchObject({ build: 'hub', revision: hub.state.commit, source: `${origin}/test/tiny/resolve/${hub.state.commit}/` });
    expect(Object.fromEntries(receipt.files.map((f) => [f.path, [f.verified_by, f.sha256]]))).toEqual({
      'config.json': ['hub-git-blob', sha(files['config.json'])],
      'onnx/model.onnx': ['hub-sha256', sha(files['onnx/model.onnx'])],
    });
    // `main` was asked once; every file came from the commit it resolved to.
    const asked = hub.state.requests.slice(before).filter((r) => !r.url.startsWith('/store/'));
    expect(asked.filter((r) => r.url.includes('/resolve/main/'))).toHaveLength(1);
    expect(asked.filter((r) => r.method === 'GET').every((r) => r.url.includes(`/resolve/${hub.state.commit}/`))).toBe(true);
    expect(modelStatus(modelsDir(data), entry(false))).toMatchObject({ installed: true, build: 'hub', revision: hub.state.commit });
    // `verify` checks against what the install recorded.
    expect((await verifyModel(data, entry(false))).every((r) => r.ok)).toBe(true);
    const model = path.join(dir(), 'onnx', 'model.onnx');
    const original = fs.readFileSync(model);
    fs.writeFileSync(model, randomBytes(original.length));
    expect((await verifyModel(data, entry(false))).find((r) => r.path === 'onnx/model.onnx')).toMatchObject({ ok: false, problem: 'checksum differs' });
    fs.writeFileSync(model, original);
  });

  it('refuses a file whose bytes do not match the checksum, pinned or published, and keeps none of it', async () => {
    for (const [pinned, file] of [
      [true, 'onnx/model.onnx'],
      [false, 'onnx/model.onnx'],
      [false, 'config.json'],
    ] as const) {
      await removeModel(data, entry(pinned));
      hub.state.tamper = new Set([file]);
      await expect(pullModel(data, entry(pinned), { mirror: origin }), `${file} pinned=${pinned}`).rejects.toThrow(/does not match/);
      expect(fs.existsSync(path.join(dir(), `${file}.part`))).toBe(false);
      expect(fs.existsSync(path.join(dir(), file))).toBe(false);
      expect(modelStatus(modelsDir(data), entry(pinned)).installed).toBe(false);
    }
    hub.state.tamper = new Set();
  });

  it('fetches from a mirror with the same layout (MEDIA_INDEX_MODEL_MIRROR)', async () => {
    await removeModel(data, entry(false));
    const before = hub.state.requests.length;
    process.env.MEDIA_INDEX_MODEL_MIRROR = mirrorOrigin;
    try {
      await pullModel(data, entry(false));
    } finally {
      delete process.env.MEDIA_INDEX_MODEL_MIRROR;
    }
    expect(mirror.state.requests.length).toBeGreaterThan(0);
    expect(hub.state.requests.length).toBe(before);
    expect(modelStatus(modelsDir(data), entry(false)).installed).toBe(true);
  });

  it('refuses a model whose host publishes no checksum when this build pins none', async () => {
    const bare = http.createServer((req, res) => {
      const b = files[decodeURIComponent((req.url ?? '/').slice(1))];
      if (!b) return void res.writeHead(404).end();
      res.writeHead(200, { 'Content-Length': b.length }).end(req.method === 'HEAD' ? undefined : b);
    });
    await new Promise<void>((r) => bare.listen(0, '127.0.0.1', () => r()));
    const { repo: _repo, ...rest } = entry(false);
    const unpinned: ModelEntry = { ...rest, name: 'bare-test', base_url: `http://127.0.0.1:${(bare.address() as AddressInfo).port}/` };
    await expect(pullModel(data, unpinned)).rejects.toThrow(/publishes no checksum/);
    expect(modelStatus(modelsDir(data), unpinned).installed).toBe(false);
    bare.close();
  });

  it('verify reports a file changed on disk; remove deletes the model', async () => {
    await pullModel(data, entry(true), { mirror: origin });
    fs.appendFileSync(path.join(dir(), 'config.json'), ' ');
    const v = await verifyModel(data, entry(true));
    expect(v.find((r) => r.path === 'config.json')).toMatchObject({ ok: false, problem: expect.stringMatching(/size/) });
    expect(await removeModel(data, entry(true))).toBe(true);
    expect(fs.existsSync(dir())).toBe(false);
  });
});

describe('missing models at the API', () => {
  let t: TestServer;
  let key: string;
  const scratch = tempDir('mi-missing-');
  beforeAll(async () => {
    t = await startTestServer({ workers: 1 });
    key = t.key('w');
  });
  afterAll(async () => {
    await t.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  it('lists the optional models and the execution provider', async () => {
    const r = await t.api('GET', '/models', { key });
    expect(r.status).toBe(200);
    const byName = Object.fromEntries(r.body.data.models.map((m: { name: string }) => [m.name, m]));
    expect(byName['whisper-tiny']).toMatchObject({ stage: 'transcript', downloadable: true, installed: false, licence: 'MIT' });
    expect(byName['whisper-tiny'].size_bytes).toBeGreaterThan(40e6);
    // Every model of the hub can be installed: those this build does not pin are checked against the
    // hub's checksums. GE2E and PP-OCRv6 are on no hub: they are imported from a folder (docs/models.md), and say so.
    const importOnly = ['ge2e-resemblyzer', 'ppocr-v6'];
    for (const m of r.body.data.models) expect(m, m.name).toMatchObject({ downloadable: !importOnly.includes(m.name), build: null, revision: null });
    expect(byName['whisper-tiny'].pinned).toBe(true);
    expect(byName['vit-gpt2-image-captioning']).toMatchObject({ pinned: false, installed: false });
    expect(r.body.data.provider).toBe('cpu');
    const catalogue = (await t.api('GET', '/index-options', { key })).body.data.stages;
    expect(catalogue.find((s: { name: string }) => s.name === 'transcript')).toMatchObject({
      available: false,
      availability_reason: 'model_not_installed: whisper-tiny',
    });
  });

  it('reports transcript, captions, speakers and sounds as model_not_installed and still completes the run', async () => {
    const video = path.join(scratch, 'talk.mp4');
    greyVideo(video, 6, { file: corpus('audio/timit-sa1/sa1.wav') });
    const up = await t.upload(key, video);
    const d = await t.waitCompleted(key, up.body.data.video_id);
    const s = d.index.report.stages;
    expect(d.status).toBe('completed');
    expect(s.speech.state).toBe('ok');
    expect(s.transcript).toMatchObject({ state: 'failed', reason: expect.stringMatching(/^model_not_installed: whisper-tiny/) });
    expect(s.captions.reason).toMatch(/^model_not_installed: vit-gpt2-image-captioning/);
    expect(s.speakers.reason).toMatch(/^model_not_installed: wespeaker/);
    expect(s.sounds.reason).toMatch(/^model_not_installed: ast-audioset/);
    expect(s.embeddings.reason).toMatch(/^model_not_installed: all-MiniLM-L6-v2/);
    // Without a sentence encoder search is lexical only, and says so.
    const r = await t.api('POST', '/search', { key, json: { query: 'speech' } });
    expect(r.body.data.recipe).not.toMatch(/dense/);
    // The speech segment, and the file name "talk" (a WordNet synonym of speech).
    expect(r.body.data.hits[0].evidence).toEqual([
      { retriever: 'lexical', modality: 'sound', score: 1 },
      { retriever: 'lexical', modality: 'name', score: expect.any(Number) },
    ]);
  });
});
