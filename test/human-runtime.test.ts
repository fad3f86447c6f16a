// MEDIA_INDEX_HUMAN_RUNTIME=tfjs: Human's networks stay on TensorFlow.js, loaded whole (the way a
// network that cannot be written as ONNX is run), and find the same faces; the report says so.
// The default (ONNX Runtime) is checked in test/vision.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpus } from './helpers/corpus.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';

describe("Human's networks on TensorFlow.js", () => {
  let t: TestServer;
  const before = process.env.MEDIA_INDEX_HUMAN_RUNTIME;

  beforeAll(async () => {
    // Read by the indexer processes, which the server starts after this.
    process.env.MEDIA_INDEX_HUMAN_RUNTIME = 'tfjs';
    t = await startTestServer({ workers: 1 });
  });
  afterAll(async () => {
    await t.close();
    if (before === undefined) delete process.env.MEDIA_INDEX_HUMAN_RUNTIME;
    else process.env.MEDIA_INDEX_HUMAN_RUNTIME = before;
  });

  it('finds the faces and objects with TensorFlow.js, and the reports say where they ran', async () => {
    const key = t.key('photos');
    const d = await t.index(key, corpus('faces/face-api-samples/sample1.jpg'));
    expect(d.index.report.stages.faces).toMatchObject({ state: 'ok', counts: { faces: 3 }, details: { runtime: 'tfjs-wasm', provider: 'cpu' } });
    expect(d.index.report.stages.objects).toMatchObject({ state: 'ok', details: { runtime: 'tfjs-wasm', provider: 'cpu' } });
    const rows = t.server.store.faces.forAsset(d.video_id);
    expect(rows).toHaveLength(3);
    for (const row of rows) expect(row.embedding).toHaveLength(1024);
  }, 120_000);
});
