// Indexing in two phases: every file made searchable by its text and metadata (phase 1) before the
// rest (phase 2: pictures of pages, OCR, faces, objects, speech, embeddings). The queue against a
// real SQLite store, then the real server with real indexer processes, one stage held back.
import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openStore, type Store } from '../server/store/index.ts';
import { StageQueue } from '../server/indexer/queue.ts';
import type { StageRunRow } from '../server/store/stage-runs.repo.ts';
import type { RunRequest, WorkerLauncher } from '../server/indexer/protocol.ts';
import { insertAsset } from './helpers/asset-row.ts';
import { makePdf } from './helpers/pdf.ts';
import { corpus } from './helpers/corpus.ts';
import { startTestServer, tempDir, type TestServer } from './helpers/server.ts';
import { launcherThrough } from './helpers/launch.ts';

const PHASE_ONE = ['extract', 'metadata'];

describe('the stage queue, by phase then age', () => {
  let store: Store | undefined;
  afterEach(() => store?.close());

  const done = (r: StageRunRow): StageRunRow => (PHASE_ONE.includes(r.stage) ? { ...r, state: 'ok', finished_at: 1 } : r);

  it("hands out a newer file's phase 1 before an older file's phase 2", () => {
    store = openStore(tempDir());
    insertAsset(store, { id: 'vid_old0000000000000000', workspace: 'w', kind: 'image', row: { created_at: 1 }, runs: done });
    insertAsset(store, { id: 'vid_new0000000000000000', workspace: 'w', kind: 'image', row: { created_at: 2 } });
    const queue = new StageQueue(store);
    // Phase 1 gives the one run asked for: the rest of the queue is not read.
    const reads = vi.spyOn(store.runs, 'runsOfAssetsWithPendingWork');
    expect(queue.next(1)).toEqual([{ assetId: 'vid_new0000000000000000', stage: 'extract', attempts: 0 }]);
    expect(reads).not.toHaveBeenCalled();
    const next = queue.next(4);
    expect(next.slice(0, 2)).toEqual([
      { assetId: 'vid_new0000000000000000', stage: 'extract', attempts: 0 },
      { assetId: 'vid_new0000000000000000', stage: 'metadata', attempts: 0 },
    ]);
    // Then the older file's phase 2, by age, ahead of the newer one's.
    expect(next.slice(2).every((r) => r.assetId === 'vid_old0000000000000000' && !PHASE_ONE.includes(r.stage))).toBe(true);
    expect(next).toHaveLength(4);
  });

  it('settles the runs that can never go from one read of the queue, whatever they free', () => {
    store = openStore(tempDir());
    // Extraction failed: every run that needs it can never go, nor those that need them (people after faces).
    insertAsset(store, {
      id: 'vid_bad0000000000000000',
      workspace: 'w',
      kind: 'image',
      runs: (r) => (r.stage === 'extract' ? { ...r, state: 'failed' } : r.stage === 'metadata' ? { ...r, state: 'ok' } : r),
    });
    insertAsset(store, { id: 'vid_ok00000000000000000', workspace: 'w', kind: 'image', row: { created_at: Date.now() + 1 } });
    const queue = new StageQueue(store);
    const reads = vi.spyOn(store.runs, 'runsOfAssetsWithPendingWork');
    expect(queue.next(10)).toEqual([
      { assetId: 'vid_ok00000000000000000', stage: 'extract', attempts: 0 },
      { assetId: 'vid_ok00000000000000000', stage: 'metadata', attempts: 0 },
    ]);
    expect(reads).toHaveBeenCalledTimes(1);
    const bad = store.runs.forAsset('vid_bad0000000000000000');
    expect(bad.filter((r) => r.state === 'pending')).toEqual([]);
    expect(bad.find((r) => r.stage === 'faces')).toMatchObject({ state: 'failed', code: 'dependency_failed' });
    expect(bad.find((r) => r.stage === 'people')).toMatchObject({ state: 'failed', code: 'dependency_failed' });
  });

  it('plans a file admitted without runs while many older files wait in phase 2', () => {
    store = openStore(tempDir());
    for (let i = 0; i < 20; i++) {
      insertAsset(store, { id: `vid_old${String(i).padStart(16, '0')}`, workspace: 'w', kind: 'image', row: { created_at: 1 + i }, runs: done });
    }
    // Admitted as a library admits a folder of thousands: a row, its runs written when the queue reaches it.
    insertAsset(store, { id: 'vid_new0000000000000000', workspace: 'w', kind: 'image', row: { created_at: 100 } });
    store.db.prepare("DELETE FROM stage_runs WHERE asset_id = 'vid_new0000000000000000'").run();
    store.db.prepare("UPDATE assets SET runs_planned = 0 WHERE id = 'vid_new0000000000000000'").run();
    const queue = new StageQueue(store);
    expect(queue.next(1)).toEqual([{ assetId: 'vid_new0000000000000000', stage: 'extract', attempts: 0 }]);
  });

  it('looks for files admitted without runs only while some may wait', () => {
    store = openStore(tempDir());
    insertAsset(store, { id: 'vid_one0000000000000000', workspace: 'w', kind: 'image', row: { created_at: 1 } });
    const queue = new StageQueue(store);
    const looks = vi.spyOn(store.assets, 'unplanned');
    // At start some may wait (a service stopped before planning them): looked for once, none found.
    queue.next(1);
    queue.next(1);
    queue.next(1);
    expect(looks).toHaveBeenCalledTimes(1);
    // One admitted so (a library's folder): looked for, and planned, at the next look.
    queue.admitUnplanned({ ...store.assets.byId('vid_one0000000000000000')!, id: 'vid_two0000000000000000', created_at: 2, index_options: null });
    const next = queue.next(8);
    expect(looks).toHaveBeenCalledTimes(2);
    expect(next.some((r) => r.assetId === 'vid_two0000000000000000')).toBe(true);
    queue.next(1);
    expect(looks).toHaveBeenCalledTimes(2);
  });
});

/** Real indexer processes; every run of `held` waits until `release()`. */
function holding(held: string): { launch: WorkerLauncher; release: () => void; heldRuns: () => number } {
  const waiting: Array<() => void> = [];
  let released = false;
  const launch = launcherThrough((msg, _pid, go) => {
    if ((msg as RunRequest).stage === held && !released) waiting.push(go);
    else go();
  });
  return {
    launch,
    heldRuns: () => waiting.length,
    release: () => {
      released = true;
      for (const go of waiting.splice(0)) go();
    },
  };
}

/** The asset's detail once its phase 1 has ended and a run of the held stage waits (within a minute). */
async function enrichingWhileHeld(t: TestServer, key: string, id: string, hold: { heldRuns: () => number }) {
  const detail = async () => (await t.api('GET', `/videos/${id}`, { key })).body.data;
  const deadline = Date.now() + 60_000;
  let d = await detail();
  while (hold.heldRuns() === 0 || d.index_phase !== 'enriching') {
    expect(Date.now(), JSON.stringify(d.index.report.stages)).toBeLessThan(deadline);
    await new Promise((r) => setTimeout(r, 50));
    d = await detail();
  }
  return d;
}

describe('real indexer processes, one stage held back', () => {
  let t: TestServer | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it('a PDF with a picture page is searchable by its text, and says so, before its picture stages run; the picture page is drawn by them', async () => {
    const hold = holding('faces');
    t = await startTestServer({ workers: 2 }, tempDir(), hold.launch);
    const key = t.key('phases');
    const photo = corpus('faces/face-api-samples/sample1.jpg');
    const { width, height } = await sharp(photo).metadata();
    const data = makePdf([
      { text: 'Minutes of the harbour committee, read before the pictures.\nThe lighthouse keeper reported on the winter storms.' },
      { jpeg: fs.readFileSync(photo), width: width!, height: height! },
    ]);
    const up = await t.upload(key, { name: 'harbour.pdf', data }, { pipeline: 'arrow' });
    expect(up.status).toBe(201);
    const id = up.body.data.video_id as string;

    let d = await enrichingWhileHeld(t, key, id, hold);
    // Phase 1 ended: the text is found while faces wait.
    expect(d.status).toBe('processing');
    expect(d.index.report.stages.extract.state).toBe('ok');
    expect(d.index.report.stages.metadata.state).toBe('ok');
    expect(d.index.report.stages.faces.state).toBe('running');
    const hits = (await t.api('POST', '/search', { key, json: { query: 'lighthouse keeper winter storms' } })).body.data.hits;
    expect(hits[0]).toMatchObject({ video_id: id, page: 1 });
    const listed = (await t.api('GET', '/videos', { key })).body.data.find((a: { video_id: string }) => a.video_id === id);
    expect(listed.index_phase).toBe('enriching');
    // Extraction drew the first page only; the picture page waits for the stages that look at it.
    const pages = path.join(t.dataDir, 'assets', id, 'pages');
    expect(fs.readdirSync(pages).sort()).toEqual(['p00001.jpg']);

    hold.release();
    d = await t.waitCompleted(key, id, 120_000);
    expect(d.index_phase).toBe('done');
    expect(d.index.report.stages.faces.state).toBe('ok');
    expect(t.server.store.faces.forAsset(id).map((f) => f.timestamp)).toEqual([1, 1, 1]);
    expect(fs.readdirSync(pages).sort()).toEqual(['p00001.jpg', 'p00002.jpg']);
  }, 180_000);

  it('a video is searchable by its name, with its poster, before it is read through; its sound stages wait for that reading', async () => {
    const hold = holding('shots');
    t = await startTestServer({ workers: 2 }, tempDir(), hold.launch);
    const key = t.key('video-phases');
    const up = await t.upload(key, { name: 'lighthouse-keeper-interview.mp4', data: fs.readFileSync(corpus('video/forensics/movie-hello.mp4')) });
    expect(up.status).toBe(201);
    const id = up.body.data.video_id as string;
    let d = await enrichingWhileHeld(t, key, id, hold);
    // Phase 1 ended with the video's container read and one frame drawn: found by its name, shown by its poster.
    expect(d).toMatchObject({ status: 'processing', width: 1280, height: 720 });
    expect(d.duration_s).toBeCloseTo(8.33, 1);
    expect(d.index.report.stages.extract).toMatchObject({ state: 'ok', counts: { frames: 1 } });
    expect(d.index.report.stages.shots.state).toBe('running');
    for (const waiting of ['speech', 'transcript', 'sounds', 'speakers', 'captions']) {
      expect(['pending', 'failed'], waiting).toContain(d.index.report.stages[waiting].state);
      if (d.index.report.stages[waiting].state === 'failed') expect(d.index.report.stages[waiting].reason, waiting).toMatch(/^model_not_installed/);
    }
    expect(d.index.report.stages.speech.state).toBe('pending');
    const hits = (await t.api('POST', '/search', { key, json: { query: 'lighthouse keeper interview' } })).body.data.hits;
    expect(hits[0]).toMatchObject({ video_id: id });
    expect((await fetch(hits[0].frame_url)).status).toBe(200);
    const thumb = await fetch(d.thumbnail_url);
    expect(thumb.status).toBe(200);
    expect((await sharp(Buffer.from(await thumb.arrayBuffer())).metadata()).width).toBe(320);
    const dir = path.join(t.dataDir, 'assets', id);
    expect(fs.existsSync(path.join(dir, 'frame.jpg'))).toBe(true);
    expect(fs.existsSync(path.join(dir, 'frames'))).toBe(false);
    expect(fs.existsSync(path.join(dir, 'audio.wav'))).toBe(false);

    hold.release();
    d = await t.waitCompleted(key, id, 120_000);
    expect(d.index_phase).toBe('done');
    expect(d.index.report.stages.shots).toMatchObject({ state: 'ok', counts: { shots: 1, frames: 1 } });
    expect(d.index.report.stages.shots.counts.audio_s).toBeCloseTo(8.33, 1);
    expect(d.index.report.stages.speech.state).toBe('ok');
    expect(fs.readdirSync(path.join(dir, 'frames'))).toEqual(['k00001.jpg']);
    // The one shot's keyframe, in the middle of the video, is the poster: copied, not drawn again.
    expect(fs.readFileSync(path.join(dir, 'frames', 'k00001.jpg')).equals(fs.readFileSync(path.join(dir, 'frame.jpg')))).toBe(true);
    expect(fs.existsSync(path.join(dir, 'audio.wav'))).toBe(true);
  }, 180_000);

  it("a video's picture stages look at the frames its reading kept, not at the file again, and the frames go once they have looked", async () => {
    const hold = holding('faces');
    t = await startTestServer({ workers: 2 }, tempDir(), hold.launch);
    const key = t.key('video-sampled');
    // 1280 × 720 at 30 frames a second, a face in every frame (8 s: 8 frames at faces' 1 a second, 4
    // at ocr's 0.5); and 320 × 240, whose frames are cheaper to decode again than to keep.
    const hd = (await t.upload(key, { name: 'hd.mp4', data: fs.readFileSync(corpus('video/forensics/movie-hello.mp4')) })).body.data.video_id as string;
    const small = (await t.upload(key, { name: 'small.mp4', data: fs.readFileSync(corpus('video/imageio/realshort.mp4')) })).body.data.video_id as string;
    for (const end = Date.now() + 60_000; hold.heldRuns() < 2;) {
      expect(Date.now()).toBeLessThan(end);
      await new Promise((r) => setTimeout(r, 50));
    }
    // The picture stages waited for the reading: the frames were kept by it, at each of their rates.
    const runs = new Map(t.server.store.runs.forAsset(hd).map((r) => [r.stage, r]));
    expect(runs.get('shots')).toMatchObject({ state: 'ok' });
    expect(runs.get('faces')!.state).toBe('running');
    const ocr = runs.get('ocr')!;
    if (ocr.started_at !== null) expect(ocr.started_at).toBeGreaterThanOrEqual(runs.get('shots')!.finished_at!);
    const sampled = path.join(t.dataDir, 'assets', hd, 'sampled');
    expect(fs.readdirSync(sampled).sort()).toEqual(['0.5', '1']);
    expect(JSON.parse(fs.readFileSync(path.join(sampled, '1', 'frames.json'), 'utf8'))).toEqual({ fps: 1, count: 8, long_side: 1280 });
    expect(fs.existsSync(path.join(t.dataDir, 'assets', small, 'sampled'))).toBe(false);
    // The kept frames are what the faces stage looks at: made blank, no face is found in a video
    // with one in every frame.
    for (const name of fs.readdirSync(path.join(sampled, '1')).filter((n) => n.endsWith('.png'))) {
      await sharp({ create: { width: 1280, height: 720, channels: 3, background: '#808080' } })
        .png()
        .toFile(path.join(sampled, '1', name));
    }
    hold.release();
    const d = await t.waitCompleted(key, hd, 120_000);
    expect(d.index.report.stages.faces).toMatchObject({ state: 'ok', counts: { frames: 8, faces: 0 } });
    expect((await t.waitCompleted(key, small, 120_000)).index.report.stages.faces.state).toBe('ok');
    // None of the picture stages is left to run: the kept frames are gone.
    for (const end = Date.now() + 10_000; fs.existsSync(sampled);) {
      expect(Date.now()).toBeLessThan(end);
      await new Promise((r) => setTimeout(r, 50));
    }
  }, 180_000);

  it('an asset deleted while its faces run is held is purged once that run ends, not before', async () => {
    const hold = holding('faces');
    t = await startTestServer({ workers: 1 }, tempDir(), hold.launch);
    const key = t.key('purge-held');
    const up = await t.upload(key, corpus('faces/face-api-samples/sample1.jpg'));
    const id = up.body.data.video_id as string;
    for (const end = Date.now() + 60_000; hold.heldRuns() === 0;) {
      expect(Date.now()).toBeLessThan(end);
      await new Promise((r) => setTimeout(r, 50));
    }
    expect((await t.api('DELETE', `/videos/${id}`, { key })).status).toBe(200);
    await t.server.purger.settled();
    // Its faces run is in flight: the purge leaves the asset's files and rows until it ends.
    expect(t.server.store.assets.byId(id)).toBeDefined();
    expect(fs.existsSync(path.join(t.dataDir, 'assets', id))).toBe(true);
    hold.release();
    for (const end = Date.now() + 60_000; t.server.store.assets.byId(id);) {
      expect(Date.now()).toBeLessThan(end);
      await new Promise((r) => setTimeout(r, 50));
    }
    await t.server.purger.settled();
    expect(t.server.store.runs.forAsset(id)).toEqual([]);
    expect(fs.existsSync(path.join(t.dataDir, 'assets', id))).toBe(false);
  }, 180_000);
});
