// The model manager: pinned downloads (resume, checksum), verify, remove, and what stages say when
// a model is missing.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpus } from './helpers/corpus.ts';
import { startTestServer, tempDir, type TestServer } from './helpers/server.ts';
import { ModelError, modelStatus, modelsDir, pullModel, removeModel, verifyModel, type ModelEntry } from '../server/ml/models.ts';
import { findFfmpeg } from '../server/media/ffmpeg.ts';

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('model manager downloads', () => {
  const files: Record<string, Buffer> = { 'config.json': Buffer.from('{"model_type":"tiny"}'), 'onnx/model.onnx': randomBytes(300_000) };
  const served = { ...files };
  const requests: Array<{ url: string; range?: string }> = [];
  let server: http.Server;
  let base: string;
  const data = tempDir('mi-models-');

  const entry = (): ModelEntry => ({
    name: 'tiny-test',
    stage: 'embeddings',
    task: 'feature-extraction',
    source: 'test',
    licence: 'MIT',
    description: 'test',
    base_url: base,
    files: Object.entries(files).map(([p, b]) => ({ path: p, size: b.length, sha256: sha(b) })),
  });

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const name = decodeURIComponent((req.url ?? '/').slice(1));
      requests.push({ url: name, range: req.headers.range });
      const body = served[name];
      if (!body) return void res.writeHead(404).end();
      const m = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
      if (m) {
        const from = Number(m[1]);
        res.writeHead(206, { 'Content-Range': `bytes ${from}-${body.length - 1}/${body.length}`, 'Content-Length': body.length - from });
        return void res.end(body.subarray(from));
      }
      res.writeHead(200, { 'Content-Length': body.length }).end(body);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(() => {
    server.close();
    fs.rmSync(data, { recursive: true, force: true });
  });

  it('downloads every file, checks it, and resumes a partial file with a Range request', async () => {
    const dir = path.join(modelsDir(data), 'tiny-test', 'onnx');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'model.onnx.part'), files['onnx/model.onnx'].subarray(0, 120_000));
    const progress: number[] = [];
    await pullModel(data, entry(), { onProgress: (p) => progress.push(p.received) });
    expect(requests.find((r) => r.url === 'onnx/model.onnx')?.range).toBe('bytes=120000-');
    expect(fs.readFileSync(path.join(dir, 'model.onnx')).equals(files['onnx/model.onnx'])).toBe(true);
    expect(fs.existsSync(path.join(dir, 'model.onnx.part'))).toBe(false);
    expect(progress.at(-1)).toBe(files['config.json'].length + files['onnx/model.onnx'].length);
    expect(modelStatus(modelsDir(data), entry())).toMatchObject({ installed: true, missing: [] });
    expect((await verifyModel(data, entry())).every((r) => r.ok)).toBe(true);

    // A second pull finds everything in place and downloads nothing.
    const before = requests.length;
    await pullModel(data, entry());
    expect(requests.length).toBe(before);
  });

  it('refuses a file that does not match its pinned checksum and leaves no partial file', async () => {
    await removeModel(data, entry());
    served['onnx/model.onnx'] = randomBytes(300_000);
    await expect(pullModel(data, entry())).rejects.toThrow(ModelError);
    expect(fs.existsSync(path.join(modelsDir(data), 'tiny-test', 'onnx', 'model.onnx.part'))).toBe(false);
    expect(modelStatus(modelsDir(data), entry()).installed).toBe(false);
    served['onnx/model.onnx'] = files['onnx/model.onnx'];
  });

  it('verify reports a file changed on disk; remove deletes the model', async () => {
    await pullModel(data, entry());
    fs.appendFileSync(path.join(modelsDir(data), 'tiny-test', 'config.json'), ' ');
    const v = await verifyModel(data, entry());
    expect(v.find((r) => r.path === 'config.json')).toMatchObject({ ok: false, problem: expect.stringMatching(/size/) });
    expect(await removeModel(data, entry())).toBe(true);
    expect(fs.existsSync(path.join(modelsDir(data), 'tiny-test'))).toBe(false);
  });

  it('will not download a model whose files are not pinned', async () => {
    await expect(pullModel(data, { ...entry(), files: [{ path: 'x.onnx', size: null, sha256: null }] })).rejects.toThrow(/cannot be downloaded safely/);
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
    expect(byName['vit-gpt2-image-captioning']).toMatchObject({ downloadable: false, installed: false });
    expect(r.body.data.provider).toBe('cpu');
    const catalogue = (await t.api('GET', '/index-options', { key })).body.data.stages;
    expect(catalogue.find((s: { name: string }) => s.name === 'transcript')).toMatchObject({
      available: false,
      availability_reason: 'model_not_installed: whisper-tiny',
    });
  });

  it('reports transcript, captions, speakers and sounds as model_not_installed and still completes the run', async () => {
    const video = path.join(scratch, 'talk.mp4');
    execFileSync(findFfmpeg()!.ffmpeg, [
      '-v',
      'error',
      '-y',
      '-f',
      'lavfi',
      '-i',
      'color=c=gray:size=320x240:rate=5:duration=6',
      '-i',
      corpus('audio/timit-sa1/sa1.wav'),
      '-map',
      '0:v',
      '-map',
      '1:a',
      '-shortest',
      '-c:v',
      'libx264',
      '-pix_fmt',
      'yuv420p',
      '-c:a',
      'aac',
      video,
    ]);
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
