import { afterEach, describe, expect, it } from 'vitest';
import { corpus } from '../helpers/corpus.ts';
import { EXTRACT_ONLY, startTestServer, tempDir, type TestServer } from '../helpers/server.ts';
import { holdingEnds } from '../helpers/launch.ts';

async function until(cond: () => boolean, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

// GET /index/activity's `running`: at the HTTP level against the real server and real indexer
// processes, which tell how far a run has got (every report passed on: MEDIA_INDEX_PROGRESS_MS=0).
describe('index activity: the runs going now, and how far each has got', () => {
  let t: TestServer | undefined;
  const before = process.env.MEDIA_INDEX_PROGRESS_MS;
  afterEach(async () => {
    await t?.close();
    t = undefined;
    if (before === undefined) delete process.env.MEDIA_INDEX_PROGRESS_MS;
    else process.env.MEDIA_INDEX_PROGRESS_MS = before;
  });

  it("lists a document's OCR under way with its pages read, to its own workspace only", async () => {
    process.env.MEDIA_INDEX_PROGRESS_MS = '0';
    const hold = holdingEnds('ocr');
    t = await startTestServer({ workers: 1 }, tempDir(), hold.launch);
    const key = t.key('alpha');
    const otherKey = t.key('beta');
    // Three pages whose text layer is broken (Devanagari read as Latin): each is read by OCR.
    const options = JSON.stringify({ ...JSON.parse(EXTRACT_ONLY), ocr: true });
    const up = await t.upload(key, corpus('ocr/hindi-pdf/examples.pdf'), { options });
    expect(up.status).toBe(201);
    const id = up.body.data.video_id;
    await until(() => hold.held() === 1);
    const a = (await t.api('GET', '/index/activity', { key })).body.data;
    expect(a.running).toEqual([{ video_id: id, file_name: 'examples.pdf', stage: 'ocr', progress: { done: 3, total: 3, unit: 'pages' } }]);
    expect((await t.api('GET', '/index/activity', { key: otherKey })).body.data.running).toEqual([]);
    hold.release();
    await t.waitCompleted(key, id);
    expect((await t.api('GET', '/index/activity', { key })).body.data.running).toEqual([]);
  }, 120_000);
});
