/// <reference lib="dom" />
// People at album scale: synthetic 1024-d faces straight into the store (default 40,000 in 2,000
// people, and 20,000 more waiting), then:
//   1. the re-group of the 40,000, asked for and by itself (each on a data folder of its own, the
//      same faces), timed, with the longest event-loop delay of the thread that answers HTTP while
//      it runs (perf_hooks.monitorEventLoopDelay);
//   2. in Chromium on the built renderer: the People screen's first paint of its cards after the
//      GET /people response, the Not grouped yet view's first paint of faces after the GET /faces
//      response, and its scrolling (a steady fling; requestAnimationFrame deltas, p95), over loads;
//   3. face crops (GET /faces/{id}/thumbnail): the first request of a face (cut) and the next (kept).
// Needs the renderer built (npm run build:renderer) and Chromium (MEDIA_INDEX_CHROMIUM, else
// /usr/bin/chromium). Usage: npm run bench -- people-view [-- --faces 40000 --people 2000 --waiting 20000 --loads 3]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import v8 from 'node:v8';
import vm from 'node:vm';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { loadConfig } from '../server/config.ts';
import { startServer } from '../server/server.ts';
import { openStore, type Store } from '../server/store/index.ts';
import { AuthService } from '../server/services/auth.service.ts';
import { PeopleService } from '../server/services/people.service.ts';
import { insertSyntheticFaces } from '../test/helpers/synthetic-faces.ts';
import { arg, percentile, writeResults } from './report.ts';

const FACES = arg('faces', 40_000);
const PEOPLE = arg('people', 2_000);
const WAITING = arg('waiting', 20_000);
const LOADS = arg('loads', 3);
const CHROMIUM = process.env.MEDIA_INDEX_CHROMIUM ?? '/usr/bin/chromium';
const PICTURE = fileURLToPath(new URL('../../shared/corpus/faces/face-api-samples/sample1.jpg', import.meta.url));
declare global {
  interface Window {
    __painted?: number;
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** A data folder with the faces, their workspace's id, and the synthetic asset's id. */
function filled(): { dir: string; store: Store; ws: string; asset: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mi-bench-people-view-'));
  const store = openStore(dir);
  const asset = insertSyntheticFaces(store, 'bench', FACES, PEOPLE);
  return { dir, store, ws: store.workspaces.byName('bench')!.id, asset };
}

// The fill leaves much garbage in this process (the service's own thread reads no embedding): it is
// collected before each timed re-group, so that both start alike.
v8.setFlagsFromString('--expose_gc');
const gc = vm.runInNewContext('gc') as () => void;

/** Runs `fn` while watching the event loop: its time and the longest delay of the loop meanwhile (and its 99th percentile). */
async function watched(fn: () => Promise<void>): Promise<{ ms: number; maxDelayMs: number; p99DelayMs: number }> {
  gc();
  const h = monitorEventLoopDelay({ resolution: 5 });
  h.enable();
  const t0 = performance.now();
  await fn();
  const ms = performance.now() - t0;
  h.disable();
  return { ms, maxDelayMs: h.max / 1e6, p99DelayMs: h.percentile(99) / 1e6 };
}

// 1. Re-group: asked for, then by itself, each on the same faces in a folder of its own.
console.log(`re-grouping ${FACES} faces of ${PEOPLE} people`);
const asked = filled();
const manual = await watched(async () => {
  const people = new PeopleService(asked.store);
  await people.recluster(asked.ws, false);
  await people.settled(asked.ws);
});
const formed = asked.store.people.list(asked.ws, true).length;
asked.store.close();
fs.rmSync(asked.dir, { recursive: true, force: true });

const bySelf = filled();
let auto: { ms: number; maxDelayMs: number; p99DelayMs: number };
{
  const people = new PeopleService(bySelf.store, () => {}, { quietMs: 0, maxWaitMs: 0 });
  auto = await watched(async () => {
    people.peopleIndexed(bySelf.asset);
    // The re-group starts on the next turn of the loop; wait for it to start and end.
    const none = () => (bySelf.store.db.prepare('SELECT COUNT(*) AS n FROM people').get() as { n: number }).n === 0;
    for (let i = 0; i < 100 && none(); i++) {
      await new Promise((r) => setTimeout(r, 50));
      await people.settled(bySelf.ws);
    }
    await people.settled(bySelf.ws);
  });
  await people.close(0);
}
const formedBySelf = bySelf.store.people.list(bySelf.ws, true).length;

// 2 and 3 on that folder: 20,000 more faces waiting, and a real picture for the crops.
const waitingAsset = insertSyntheticFaces(bySelf.store, 'bench', WAITING, Math.ceil(WAITING / 2));
const rel = path.join('assets', waitingAsset, 'frame.jpg');
fs.mkdirSync(path.dirname(path.join(bySelf.dir, rel)), { recursive: true });
fs.copyFileSync(PICTURE, path.join(bySelf.dir, rel));
bySelf.store.db
  .prepare("INSERT INTO frames (asset_id, kind, timestamp, path, width, height, shot) VALUES (?, 'frame', 0, ?, 640, 480, NULL)")
  .run(waitingAsset, rel);
const key = new AuthService(bySelf.store).createKey({ workspace: 'bench', scopes: ['read', 'write'] }).key;
bySelf.store.close();

const server = await startServer(
  loadConfig({ dataDir: bySelf.dir, port: 0, workers: 0, peopleAutoGroup: null, rateLimit: { max: 1_000_000, windowMs: 60_000 } }),
  { log: () => {} },
);
const url = `http://127.0.0.1:${server.port}`;
const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] });
const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
// Marks the first frame painted with `selector` present: it appears, then two animation frames pass.
await page.addInitScript(() => {
  const w = window;
  const want = new URLSearchParams(location.hash.split('?')[1] ?? '').get('view') === 'waiting' ? '[data-testid=not-grouped] [role=option]' : '[data-person]';
  new MutationObserver((_, obs) => {
    if (document.querySelector(want)) {
      obs.disconnect();
      requestAnimationFrame(() => requestAnimationFrame(() => (w.__painted = performance.now())));
    }
  }).observe(document, { childList: true, subtree: true });
});

async function firstPaint(hash: string, request: string): Promise<{ response_ms: number; paint_after_ms: number }> {
  await page.goto(`${url}/#key=${key}`);
  await page.getByTestId('library').waitFor();
  await page.evaluate((h) => (window.location.hash = h), hash);
  await page.reload();
  await page.waitForFunction(() => window.__painted !== undefined, undefined, { timeout: 120_000 });
  return page.evaluate((req) => {
    const painted = window.__painted ?? Number.NaN;
    const entries = (performance.getEntriesByType('resource') as PerformanceResourceTiming[]).filter((e) => e.name.includes(req) && e.responseEnd <= painted);
    const last = entries.pop();
    return { response_ms: last ? last.responseEnd - last.startTime : -1, paint_after_ms: last ? painted - last.responseEnd : -1 };
  }, request);
}

const peopleRuns: Array<{ response_ms: number; paint_after_ms: number }> = [];
const waitingRuns: Array<{ response_ms: number; paint_after_ms: number }> = [];
/** Frame times of each load's fling: the first cuts the crops it shows, the later ones find them kept. */
const frames: number[][] = [];
const wheels: number[][] = [];
for (let i = 0; i < LOADS; i++) {
  peopleRuns.push(await firstPaint('#/people', '/api/v1/people?'));
  waitingRuns.push(await firstPaint('#/people?view=waiting', '/api/v1/faces?'));
  // A fling (120 px a frame, 7,200 px/s) for 240 frames, then wheel-like scrolling (40 px a frame)
  // for 120, loading pages as the end comes near.
  const [fling, wheel] = await page.evaluate(async () => {
    const grid = document.querySelector('.face-grid') as HTMLElement;
    const out: number[][] = [];
    for (const [step, count] of [
      [120, 240],
      [40, 120],
    ]) {
      const deltas: number[] = [];
      let last = performance.now();
      for (let f = 0; f < count; f++) {
        grid.scrollTop += step;
        await new Promise((r) => requestAnimationFrame(r));
        const now = performance.now();
        deltas.push(now - last);
        last = now;
      }
      out.push(deltas);
    }
    return out;
  });
  frames.push(fling);
  wheels.push(wheel);
}
await browser.close();

// 3. Crops: 60 faces of the waiting asset, first (cut) then again (kept), by their signed
//    thumbnail_url as the screens ask for them.
const crops = (
  (await (await fetch(`${url}/api/v1/faces?limit=60&offset=1000`, { headers: { 'X-API-Key': key } })).json()) as {
    data: { faces: Array<{ thumbnail_url: string }> };
  }
).data.faces.map((f) => f.thumbnail_url);
const crop = async (u: string) => {
  const t0 = performance.now();
  const res = await fetch(u);
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`crop answered ${res.status}`);
  return performance.now() - t0;
};
const first: number[] = [];
const again: number[] = [];
for (const u of crops) first.push(await crop(u));
for (const u of crops) again.push(await crop(u));
await server.close();
fs.rmSync(bySelf.dir, { recursive: true, force: true });

const r0 = (x: number) => Math.round(x);
const pct = (xs: number[]) =>
  xs.length ? `${percentile(xs, 0.5).toFixed(1)} / ${percentile(xs, 0.95).toFixed(1)} / ${Math.max(...xs).toFixed(1)}` : 'not measured';
writeResults(`people-view`, `People at album scale (${FACES} faces in ${PEOPLE} people, ${WAITING} waiting), service and Chromium`, {
  machine: `${os.cpus()[0]?.model ?? 'cpu'} x${os.availableParallelism()}`,
  'people formed (asked / by itself)': `${formed} / ${formedBySelf}`,
  're-group asked for, ms': r0(manual.ms),
  're-group asked for, event-loop delay max / p99, ms': `${r0(manual.maxDelayMs)} / ${r0(manual.p99DelayMs)}`,
  're-group by itself, ms': r0(auto.ms),
  're-group by itself, event-loop delay max / p99, ms': `${r0(auto.maxDelayMs)} / ${r0(auto.p99DelayMs)}`,
  loads: LOADS,
  'GET /people ms, median': r0(median(peopleRuns.map((r) => r.response_ms))),
  'People: first paint after the response, ms, median': r0(median(peopleRuns.map((r) => r.paint_after_ms))),
  'People: first paint after the response, all loads': peopleRuns.map((r) => r0(r.paint_after_ms)).join(', '),
  'GET /faces (first page, 500) ms, median': r0(median(waitingRuns.map((r) => r.response_ms))),
  'Not grouped yet: first paint after the response, ms, median': r0(median(waitingRuns.map((r) => r.paint_after_ms))),
  'Not grouped yet: first paint after the response, all loads': waitingRuns.map((r) => r0(r.paint_after_ms)).join(', '),
  'Not grouped yet: scrolling, crops cut on the way (first load), frame p50 / p95 / max, ms': pct(frames[0]),
  'Not grouped yet: scrolling, crops kept (later loads), frame p50 / p95 / max, ms': pct(frames.slice(1).flat()),
  'Not grouped yet: wheel-like scrolling (40 px a frame), all loads, frame p50 / p95 / max, ms': pct(wheels.flat()),
  'face crop, first request (cut), ms p50 / p95': `${percentile(first, 0.5).toFixed(1)} / ${percentile(first, 0.95).toFixed(1)}`,
  'face crop, kept, ms p50 / p95': `${percentile(again, 0.5).toFixed(1)} / ${percentile(again, 0.95).toFixed(1)}`,
});
// A suggestion plan the screens asked for may still be computing in a worker thread: not waited for.
process.exit(0);
