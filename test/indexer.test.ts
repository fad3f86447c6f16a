import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { corpus } from './helpers/corpus.ts';
import { EXTRACT_ONLY, startTestServer, tempDir, type TestServer } from './helpers/server.ts';
import { forkAhead, forkLauncher } from '../server/indexer/launcher.ts';

describe('async indexing: queue, report, crash and restart', () => {
  let t: TestServer | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it('keeps accepted uploads queued while indexing is paused and finishes them after a restart', async () => {
    t = await startTestServer({ workers: 0 });
    const key = t.key('w');
    const ids: string[] = [];
    for (const f of ['docs/a-text.pdf', 'scenes/skimage/chelsea.png', 'video/imageio/realshort.mp4']) {
      ids.push((await t.upload(key, corpus(f))).body.data.video_id);
    }
    await new Promise((r) => setTimeout(r, 200));
    for (const id of ids) {
      const d = (await t.api('GET', `/videos/${id}`, { key })).body.data;
      expect(d.status).toBe('processing');
      expect(d.index.report.stages.extract.state).toBe('pending');
      expect(d.index.report.progress.done).toBeLessThan(d.index.report.progress.total);
    }
    await t.restart({ workers: 2 });
    for (const id of ids) {
      const d = await t.waitCompleted(key, id);
      expect(d.index.report.stages.extract.state).toBe('ok');
    }
  });

  it('requeues a stage run left running by a crash and completes it once', async () => {
    const dataDir = tempDir();
    t = await startTestServer({ workers: 0 }, dataDir);
    const key = t.key('w');
    const id = (await t.upload(key, corpus('docs/a-text.pdf'))).body.data.video_id;
    // What a kill -9 in the middle of a run leaves behind.
    t.server.store.db.prepare("UPDATE stage_runs SET state = 'running', started_at = 1, attempts = 1 WHERE asset_id = ? AND stage = 'extract'").run(id);
    await t.restart({ workers: 1 });
    const d = await t.waitCompleted(key, id);
    expect(d.index.report.stages.extract).toMatchObject({ state: 'ok', attempts: 2 });
    expect(t.server.store.db.prepare('SELECT COUNT(*) AS n FROM assets').get()).toEqual({ n: 1 });
  });

  it('survives an indexer process dying: a new one takes its place and the service keeps serving', async () => {
    t = await startTestServer({ workers: 1 });
    const key = t.key('w');
    // No indexer process while there is no work; the first upload starts one.
    expect(t.server.host.workerCount).toBe(0);
    const first = (await t.upload(key, corpus('docs/a-text.pdf'))).body.data.video_id;
    await t.waitCompleted(key, first);
    const pid = t.server.host.workerPids[0];
    process.kill(pid, 'SIGKILL');
    await new Promise((r) => setTimeout(r, 100));
    expect((await t.api('GET', '/health')).status).toBe(200);
    const id = (await t.upload(key, corpus('office/a-text.odt'))).body.data.video_id;
    const d = await t.waitCompleted(key, id);
    expect(d.index.report.stages.extract.state).toBe('ok');
    expect(t.server.host.workerCount).toBe(1);
  });

  it("loads each stage's libraries when the stage first runs: none at start, no model or canvas library for a text PDF, no document reader for photos", async () => {
    // The native libraries an indexer process has loaded, as the system maps them.
    const natives = (pid: number) => {
      const maps = fs.readFileSync(`/proc/${pid}/maps`, 'utf8');
      return ['sharp', 'canvas', 'onnxruntime', 'tesseract'].filter((lib) => new RegExp(`${lib}[^/]*/.*\\.(node|so)`).test(maps) || maps.includes(`/${lib}`));
    };
    const channel = forkLauncher();
    try {
      await new Promise<void>((resolve) => channel.onMessage((m) => m.type === 'ready' && resolve()));
      expect(natives(channel.pid!)).toEqual([]);
    } finally {
      channel.kill();
    }
    t = await startTestServer({ workers: 1 });
    const key = t.key('w');
    // A text PDF: PDFium (WebAssembly, no native library) draws its first page and sharp encodes it;
    // the metadata stage reads its properties, and the picture stages have no page to look at (the
    // host settles them): no model library, no canvas.
    await t.index(key, corpus('docs/carroll-wonderland.pdf'));
    expect(natives(t.server.host.workerPids[0])).toEqual(['sharp']);
    await t.close();
    t = await startTestServer({ workers: 1 });
    await t.index(t.key('w'), corpus('faces/face-api-samples/sample1.jpg'));
    const loaded = natives(t.server.host.workerPids[0]);
    expect(loaded).toContain('sharp');
    expect(loaded).not.toContain('canvas'); // the office documents' laid-out first page uses it: documents only
  });

  it('reports a failed stage without failing the run, and fails dependants with the reason', async () => {
    t = await startTestServer({ workers: 1 });
    const key = t.key('w');
    const up = await t.upload(key, corpus('scenes/skimage/chelsea.png'));
    const d = await t.waitCompleted(key, up.body.data.video_id);
    expect(d.status).toBe('completed');
    const s = d.index.report.stages;
    expect(s.captions).toMatchObject({ state: 'failed', reason: expect.stringMatching(/^model_not_installed/) });
    expect(s.objects).toMatchObject({ state: 'ok' });
    expect(s.transcript).toMatchObject({ state: 'not_applicable' });
    expect(s.music).toMatchObject({ state: 'off' });

    const broken = await t.upload(key, { name: 'broken.png', data: fs.readFileSync(corpus('scenes/skimage/chelsea.png')).subarray(0, 3000) });
    const b = (await t.waitCompleted(key, broken.body.data.video_id)).index.report.stages;
    expect(b.extract.state).toBe('failed');
    for (const stage of ['ocr', 'faces', 'objects', 'labels']) {
      expect(b[stage], stage).toMatchObject({ state: 'failed', reason: 'dependency_failed: extract' });
    }
  });

  it('fails extract with file_changed when the stored original no longer matches', async () => {
    t = await startTestServer({ workers: 0 });
    const key = t.key('w');
    const id = (await t.upload(key, corpus('docs/a-text.pdf'))).body.data.video_id;
    const row = t.server.store.assets.byId(id)!;
    fs.appendFileSync(t.server.store.files.abs(row.stored_path), 'tampered');
    await t.restart({ workers: 1 });
    const d = await t.waitCompleted(key, id);
    expect(d.index.report.stages.extract).toMatchObject({ state: 'failed', reason: expect.stringMatching(/^file_changed/) });
    expect(d.index.report.stages.ocr).toMatchObject({ state: 'failed', reason: 'dependency_failed: extract' });
  });

  it('reads a file indexed in place through again at extraction only where its size or modification time moved', async () => {
    t = await startTestServer({ workers: 0 });
    const key = t.key('w');
    const ws = t.server.store.workspaces.byName('w')!;
    const outside = tempDir();
    const original = fs.readFileSync(corpus('docs/a-text.pdf'));
    // The same size, other bytes: a comment of the PDF rewritten in place.
    const rewritten = Buffer.from(original);
    rewritten.write('%MIX', rewritten.length - 6, 'latin1');
    expect(rewritten.equals(original)).toBe(false);
    const files = { kept: 'kept.pdf', touched: 'touched.pdf', rewritten: 'rewritten.pdf', timeKept: 'rewritten-time-kept.pdf' };
    const ids: Record<string, string> = {};
    const when = new Date('2024-03-01T10:00:00.123Z');
    for (const [name, file] of Object.entries(files)) {
      const p = path.join(outside, file);
      fs.writeFileSync(p, original);
      fs.utimesSync(p, when, when);
      ids[name] = (await t.server.services.assets.ingestLocal(ws.id, p, { pipeline: 'arrow', options: EXTRACT_ONLY })).video_id;
      expect(t.server.store.assets.byId(ids[name])!.file_mtime_ms).toBe(Math.floor(fs.statSync(p).mtimeMs));
    }
    const later = new Date(when.getTime() + 60_000);
    fs.utimesSync(path.join(outside, files.touched), later, later); // same bytes, a new time: read through, still the same
    fs.writeFileSync(path.join(outside, files.rewritten), rewritten); // new bytes and time: read through, changed
    fs.writeFileSync(path.join(outside, files.timeKept), rewritten);
    fs.utimesSync(path.join(outside, files.timeKept), when, when); // new bytes under the old size and time: taken as indexed
    await t.restart({ workers: 1 });
    const extract = async (name: string) => (await t!.waitCompleted(key, ids[name])).index.report.stages.extract;
    expect(await extract('kept')).toMatchObject({ state: 'ok' });
    expect(await extract('touched')).toMatchObject({ state: 'ok' });
    expect(await extract('rewritten')).toMatchObject({ state: 'failed', reason: 'file_changed: checksum differs from the indexed file' });
    expect(await extract('timeKept')).toMatchObject({ state: 'ok' });
    fs.rmSync(outside, { recursive: true, force: true });
  });

  it('starts indexer processes below normal priority, and leaves the service at its own', async () => {
    const own = os.getPriority();
    const channel = forkLauncher();
    await new Promise<void>((resolve) => channel.onMessage((m) => m.type === 'ready' && resolve()));
    expect(os.getPriority(channel.pid!)).toBe(Math.max(own, os.constants.priority.PRIORITY_BELOW_NORMAL));
    expect(os.getPriority()).toBe(own);
    const exited = new Promise<void>((resolve) => channel.onExit(() => resolve()));
    channel.kill();
    await exited;
  });

  it('hands processes forked ahead to the next launches, with what they said before, and passes over one that ended', async () => {
    const children = () =>
      new Set(fs.readFileSync(`/proc/${process.pid}/task/${process.pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number));
    const before = children();
    forkAhead(2);
    const [first, second] = [...children()].filter((pid) => !before.has(pid));
    expect(second).toBeDefined();
    // The second ends before it is taken: the launch after the first forks a new process.
    process.kill(second, 'SIGKILL');
    while (fs.existsSync(`/proc/${second}`) && !/^State:\s+Z/m.test(fs.readFileSync(`/proc/${second}/status`, 'utf8')))
      await new Promise((r) => setTimeout(r, 20));
    const taken = forkLauncher();
    expect(taken.pid).toBe(first);
    const fresh = forkLauncher();
    expect([first, second]).not.toContain(fresh.pid);
    try {
      // The first said it was ready long before anyone listened: that is heard all the same.
      await new Promise((r) => setTimeout(r, 4000));
      await Promise.all([taken, fresh].map((c) => new Promise<void>((resolve) => c.onMessage((m) => m.type === 'ready' && resolve()))));
      expect(os.getPriority(first)).toBe(Math.max(os.getPriority(), os.constants.priority.PRIORITY_BELOW_NORMAL));
    } finally {
      for (const c of [taken, fresh]) {
        const exited = new Promise<void>((resolve) => c.onExit(() => resolve()));
        c.kill();
        await exited;
      }
    }
  }, 30_000);

  it('removes temp files and unowned asset folders left by a crash on start', async () => {
    t = await startTestServer({ workers: 0 });
    fs.writeFileSync(`${t.dataDir}/tmp/upload_leftover`, 'x');
    fs.mkdirSync(`${t.dataDir}/assets/vid_orphan`);
    await t.restart();
    expect(fs.existsSync(`${t.dataDir}/tmp/upload_leftover`)).toBe(false);
    expect(fs.existsSync(`${t.dataDir}/assets/vid_orphan`)).toBe(false);
  });

  it("removes on start the frames kept for a video's picture stages once none of them is left to run, and keeps those still wanted", async () => {
    t = await startTestServer({ workers: 0 });
    const key = t.key('sampled-left');
    const upload = async (name: string) =>
      (await t!.upload(key, { name, data: fs.readFileSync(corpus('video/imageio/realshort.mp4')) })).body.data.video_id as string;
    const [done, waiting] = [await upload('done.mp4'), await upload('waiting.mp4')];
    // As a stop leaves them: frames kept by the reading of both, and the picture stages of one recorded.
    for (const id of [done, waiting]) {
      fs.mkdirSync(`${t.dataDir}/assets/${id}/sampled/1`, { recursive: true });
      fs.writeFileSync(`${t.dataDir}/assets/${id}/sampled/1/000000.png`, 'x');
    }
    for (const stage of ['ocr', 'faces', 'embeddings'])
      t.server.store.runs.finish(done, stage, { state: 'ok', code: null, reason: null, counts: {}, details: null, finishedAt: Date.now() });
    await t.restart({ workers: 0 });
    for (const end = Date.now() + 5000; fs.existsSync(`${t.dataDir}/assets/${done}/sampled`);) {
      expect(Date.now()).toBeLessThan(end);
      await new Promise((r) => setTimeout(r, 20));
    }
    // Only the frames: the asset's own folder and what else it holds stay.
    expect(fs.readdirSync(`${t.dataDir}/assets/${done}`).length).toBeGreaterThan(0);
    expect(fs.readdirSync(`${t.dataDir}/assets/${waiting}/sampled/1`)).toEqual(['000000.png']);
  });
});
