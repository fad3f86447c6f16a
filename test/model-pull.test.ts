// Installing a model from the app: POST /models/{name}/pull downloads the pinned files (here from
// a local server standing in for the model host, pinned by a MEDIA_INDEX_MODEL_MANIFEST), shows
// progress in GET /models, and the assets that missed the model get its stage afterwards.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, tempDir, type TestServer } from './helpers/server.ts';
import { installTinyMiniLM, seededTable, writeManifest, useManifest } from './helpers/tiny-onnx.ts';

const META = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../shared/models-meta/Xenova/all-MiniLM-L6-v2');
const MODEL = 'all-MiniLM-L6-v2';

describe('model pull from the app', () => {
  const host = tempDir('mi-model-host-');
  let restoreManifest = () => {};
  let files: http.Server;
  let t: TestServer;
  let key: string;

  beforeAll(async () => {
    const pinned = installTinyMiniLM(host, META, seededTable(30522, 32, 3), 30522, 32);
    files = http.createServer((req, res) => {
      const file = path.join(host, MODEL, decodeURIComponent((req.url ?? '/').slice(1)));
      if (!file.startsWith(path.join(host, MODEL)) || !fs.existsSync(file)) return void res.writeHead(404).end();
      res.writeHead(200, { 'Content-Length': fs.statSync(file).size });
      fs.createReadStream(file).pipe(res);
    });
    await new Promise<void>((r) => files.listen(0, '127.0.0.1', () => r()));
    const manifest = path.join(host, 'manifest.json');
    writeManifest(manifest, MODEL, 'embeddings', 'feature-extraction', pinned);
    const m = JSON.parse(fs.readFileSync(manifest, 'utf8'));
    m.models[0].base_url = `http://127.0.0.1:${(files.address() as AddressInfo).port}/`;
    fs.writeFileSync(manifest, JSON.stringify(m));
    restoreManifest = useManifest(manifest);
    t = await startTestServer();
    key = t.key('pull');
  });
  afterAll(async () => {
    await t.close();
    files.close();
    fs.rmSync(host, { recursive: true, force: true });
    restoreManifest();
  });

  it('downloads on request, shows progress, then indexes what missed the model', async () => {
    const doc = await t.index(key, { name: 'notes.txt', data: Buffer.from('The rabbit ran down the hole.\n') });
    expect(doc.index.report.stages.embeddings.reason).toMatch(/^model_not_installed/);

    expect((await t.api('POST', `/models/${MODEL}/pull`, { key: t.key('pull', ['read']) })).status).toBe(403);
    expect((await t.api('POST', '/models/nope/pull', { key })).status).toBe(404);

    const r = await t.api('POST', `/models/${MODEL}/pull`, { key });
    expect(r.status).toBe(202);
    expect(r.body.data).toMatchObject({ name: MODEL, state: 'downloading', total: expect.any(Number) });
    let state: { state: string; received: number; total: number } | null = null;
    for (let i = 0; i < 200 && state?.state !== 'installed'; i++) {
      await new Promise((res) => setTimeout(res, 50));
      const models = (await t.api('GET', '/models', { key })).body.data.models;
      state = models.find((m: { name: string }) => m.name === MODEL).pull;
    }
    expect(state).toMatchObject({ state: 'installed' });
    expect(state!.received).toBe(state!.total);
    expect((await t.api('GET', '/models', { key })).body.data.models.find((m: { name: string }) => m.name === MODEL).installed).toBe(true);

    const after = await t.waitCompleted(key, doc.video_id);
    expect(after.index.report.stages.embeddings).toMatchObject({ state: 'ok', counts: { vectors: 1 } });
  });
});
