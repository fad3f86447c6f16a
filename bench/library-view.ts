/// <reference lib="dom" />
// The Library screen at library scale, in Chromium: N photos (default 50,000) of several shapes with
// capture dates spread over ten years, places and cameras, each with a real 320 px thumbnail (hard
// links to two dozen JPEGs, so every tile is its own URL and its own decode), then the real server
// and the built renderer. Measures, over several page loads (medians):
//   - the requests as the page saw them (months, layout, the first page of items by ids, facets), and the first
//     paint of pictures after the list response ended (the screen's own work: layout, React, decode);
//   - a fling through the timeline (a steady scroll of 120 px a frame for 600 frames, pages loading
//     on the way): frame times from requestAnimationFrame deltas, p95 and max;
//   - the scrubber: a press at each year's label until that year's tiles are drawn with their items,
//     and until every picture in view has arrived and is decoded;
//   - back from the viewer (Esc) until the timeline is painted at the same place, the picture marked;
//   - the size of the thumbnails the tiles download against the size they are shown at.
// Needs the renderer built (npm run build:renderer) and Chromium (MEDIA_INDEX_CHROMIUM, else
// /usr/bin/chromium).
// Usage: npm run bench:library-view [-- --assets 50000 --loads 5 --keep]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Page } from 'playwright-core';
import sharp from 'sharp';
import { loadConfig } from '../server/config.ts';
import { startServer } from '../server/server.ts';
import { openStore } from '../server/store/index.ts';
import { AuthService } from '../server/services/auth.service.ts';
import { planRuns } from '../server/indexer/plan.ts';
import { newAssetRow } from '../server/indexer/admission.ts';
import { deploymentDefaults } from '../server/contract/stages.ts';
import { THUMB_LONG_SIDE } from '../server/media/types.ts';
import { arg, percentile, writeResults } from './report.ts';

const ASSETS = arg('assets', 50_000);
const LOADS = arg('loads', 5);
const CHROMIUM = process.env.MEDIA_INDEX_CHROMIUM ?? '/usr/bin/chromium';
const CORPUS = fileURLToPath(new URL('../../shared/corpus/scenes/opencv/', import.meta.url));
declare global {
  interface Window {
    /** When the first pictures were painted (performance.now()), set by the page's init script. */
    __painted?: number;
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Scrolls the element 120 px a frame for 600 frames: each frame's time as requestAnimationFrame sees it. */
function flingFrames(page: Page, selector: string): Promise<number[]> {
  return page.evaluate(async (sel) => {
    const scroller = document.querySelector(sel) as HTMLElement;
    const deltas: number[] = [];
    let last = performance.now();
    for (let f = 0; f < 600; f++) {
      scroller.scrollTop += 120;
      await new Promise((r) => requestAnimationFrame(r));
      const now = performance.now();
      deltas.push(now - last);
      last = now;
    }
    return deltas;
  }, selector);
}

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mi-bench-library-'));
console.log(`building ${ASSETS} photos in ${dataDir}`);
const tFill = performance.now();

// Two dozen thumbnails of four shapes, as extraction writes them (320 px on the long side).
const SHAPES: Array<[number, number]> = [
  [4000, 3000],
  [3000, 4000],
  [6000, 4000],
  [4000, 4000],
];
const SOURCES = ['building.jpg', 'home.jpg', 'leuvenA.jpg', 'fruits.jpg', 'baboon.jpg', 'butterfly.jpg'];
const thumbs: Array<{ file: string; w: number; h: number }> = [];
for (const [i, src] of SOURCES.entries()) {
  for (const [k, [w, h]] of SHAPES.entries()) {
    const file = path.join(dataDir, `thumb-${i}-${k}.jpg`);
    const scale = THUMB_LONG_SIDE / Math.max(w, h);
    await sharp(path.join(CORPUS, src))
      .resize(Math.round(w * scale), Math.round(h * scale), { fit: 'cover' })
      .jpeg({ quality: 80 })
      .toFile(file);
    thumbs.push({ file, w, h });
  }
}

const store = openStore(dataDir);
const ws = store.workspaces.ensure('bench').row;
const key = new AuthService(store).createKey({ workspace: 'bench', scopes: ['read', 'write'] }).key;
const effective = deploymentDefaults();
const places = [
  ['Paris', 'Île-de-France', 'France', 'FR', 48.8566, 2.3522],
  ['Kochi', 'Kerala', 'India', 'IN', 9.9312, 76.2673],
  ['Tokyo', 'Tokyo', 'Japan', 'JP', 35.6895, 139.6917],
  ['Berlin', 'Berlin', 'Germany', 'DE', 52.52, 13.405],
  [null, null, null, null, 0, 0],
] as const;
const cameras = [
  ['Canon', 'Canon EOS R5'],
  ['Apple', 'iPhone 13'],
  ['FUJIFILM', 'X-T4'],
] as const;
const TEN_YEARS = 10 * 365.25 * 86_400_000;
const start = Date.parse('2016-01-01T00:00:00Z');
const media = store.db.prepare('INSERT INTO asset_media (asset_id, thumbnail_path) VALUES (?, ?)');
for (let s = 0; s < ASSETS; s += 1000) {
  store.transaction(() => {
    for (let a = s; a < Math.min(ASSETS, s + 1000); a++) {
      const id = `vid_bench${String(a).padStart(12, '0')}`;
      const thumb = thumbs[(a * 7) % thumbs.length];
      store.assets.insertWithRuns(
        {
          ...newAssetRow(
            id,
            ws.id,
            {
              path: `assets/${id}/original.jpg`,
              fileName: `IMG_${String(a).padStart(5, '0')}.jpg`,
              ext: '.jpg',
              kind: 'image',
              sizeBytes: 2_000_000 + a,
              sha256: '0'.repeat(64),
              mime: 'image/jpeg',
              linked: false,
            },
            effective,
            a,
          ),
          status: 'completed',
          width: thumb.w,
          height: thumb.h,
          completed_at: a,
        },
        planRuns(id, 'image', effective, 1).map((r) => ({ ...r, state: 'ok' as const })),
      );
      const dir = store.files.assetDir(id);
      fs.mkdirSync(dir, { recursive: true });
      fs.linkSync(thumb.file, path.join(dir, 'thumb.jpg'));
      media.run(id, `assets/${id}/thumb.jpg`);
      const takenMs = start + Math.floor(((a * 2654435761) % ASSETS) * (TEN_YEARS / ASSETS));
      const [city, region, country, code, lat, lon] = places[a % places.length];
      const [make, model] = cameras[a % cameras.length];
      store.metadata.replace(
        id,
        {
          taken_at: new Date(takenMs).toISOString().replace(/\.\d{3}Z$/, 'Z'),
          taken_at_source: 'exif',
          taken_at_tag: 'EXIF:DateTimeOriginal',
          taken_at_zone: null,
          camera: { make, model },
          lens: null,
          exposure: null,
          gps: city ? { lat, lon, alt: null } : null,
          place: city ? { city, region, country, country_code: code } : null,
          title: null,
          description: null,
          keywords: [],
          rating: null,
          author: null,
        },
        takenMs,
        [],
      );
    }
  });
}
store.close();
const fillS = (performance.now() - tFill) / 1000;

const server = await startServer(loadConfig({ dataDir, port: 0, workers: 0, rateLimit: { max: 1_000_000, windowMs: 60_000 } }), { log: () => {} });
const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] });
const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
// Marks the first frame painted with pictures: a tile's picture has loaded, then two animation frames pass.
// (Looked for every few milliseconds: React may replace a tile's first picture before it loads. No
// named functions in the page's scripts: the page has not the helpers a bundler would name them with.)
await page.addInitScript(() => {
  const w = window;
  const timer = setInterval(() => {
    const done = Array.from(document.querySelectorAll('[role=gridcell] img')).some(
      (i) => (i as HTMLImageElement).complete && (i as HTMLImageElement).naturalWidth > 0,
    );
    if (!done) return;
    clearInterval(timer);
    requestAnimationFrame(() => requestAnimationFrame(() => (w.__painted = performance.now())));
  }, 4);
});
const url = `http://127.0.0.1:${server.port}`;
const rows: Array<Record<string, number>> = [];
const flings: number[] = [];
const flingMax: number[] = [];
const years: Array<[number, number]> = [];
const backs: number[] = [];
await page.goto(`${url}/#key=${key}`);
await page.waitForFunction(() => window.__painted !== undefined, undefined, { timeout: 60_000 });
for (let i = 0; i < LOADS; i++) {
  await page.goto(`${url}/#/library`);
  await page.reload();
  await page.waitForFunction(() => window.__painted !== undefined, undefined, { timeout: 60_000 });
  const m = await page.evaluate(() => {
    // (No named functions in here: the page has not the helpers a bundler would name them with.)
    const entries = performance.getEntriesByType('resource') as PerformanceResourceTiming[];
    const painted = window.__painted ?? Number.NaN;
    // The first page of items: asked for by the ids the layout gave.
    const list = entries.filter((e) => e.name.includes('/videos?ids=') && e.responseEnd <= painted).pop();
    const months = entries.find((e) => e.name.includes('/videos/months'));
    const layout = entries.find((e) => e.name.includes('/videos/layout'));
    const facets = entries.find((e) => e.name.includes('/videos/facets'));
    const img = document.querySelector('[role=gridcell] img') as HTMLImageElement;
    const tile = img.closest('[role=gridcell]')!.getBoundingClientRect();
    return {
      list_ms: list ? list.responseEnd - list.startTime : -1,
      months_ms: months ? months.responseEnd - months.startTime : -1,
      layout_ms: layout ? layout.responseEnd - layout.startTime : -1,
      layout_kb: layout ? layout.encodedBodySize / 1024 : -1,
      facets_ms: facets ? facets.responseEnd - facets.startTime : -1,
      paint_after_list_ms: list ? painted - list.responseEnd : -1,
      paint_from_navigation_ms: painted,
      thumb_long_side_px: Math.max(img.naturalWidth, img.naturalHeight),
      tile_long_side_px: Math.max(tile.width, tile.height),
    };
  });

  // A fling: a steady 120 px a frame for 600 frames; the frame times as requestAnimationFrame sees them.
  const fling = await flingFrames(page, '[data-testid=timeline]');
  flings.push(percentile(fling, 0.95));
  flingMax.push(Math.max(...fling));

  // The scrubber: a press at each year's label, until that year's tiles are drawn with their items,
  // and until every picture in view has arrived and is decoded.
  const yearMs = await page.evaluate(async () => {
    const bar = document.querySelector('[data-testid=scrubber]') as HTMLElement;
    const scroller = document.querySelector('[data-testid=timeline]') as HTMLElement;
    const out: Array<[number, number]> = [];
    for (const label of Array.from(document.querySelectorAll('.scrubber-year')).reverse()) {
      const r = label.getBoundingClientRect();
      const t0 = performance.now();
      const at = { clientX: r.left + 2, clientY: r.top + 3, bubbles: true, pointerId: 1 };
      bar.dispatchEvent(new PointerEvent('pointerdown', at));
      bar.dispatchEvent(new PointerEvent('pointerup', at));
      let drawn = -1;
      for (;;) {
        await new Promise((res) => requestAnimationFrame(res));
        const box = scroller.getBoundingClientRect();
        const shown = Array.from(document.querySelectorAll('[role=gridcell][data-asset]')).filter((c) => {
          const b = c.getBoundingClientRect();
          return b.bottom > box.top && b.top < box.bottom;
        });
        const imgs = shown.map((c) => c.querySelector('img') as HTMLImageElement | null);
        if (drawn < 0 && shown.length > 0 && imgs.every((i) => i !== null)) drawn = performance.now() - t0;
        if (drawn >= 0 && imgs.every((i) => i?.complete)) {
          await new Promise((res) => requestAnimationFrame(res));
          out.push([drawn, performance.now() - t0]);
          break;
        }
        if (performance.now() - t0 > 10_000) {
          out.push([drawn, -1]);
          break;
        }
      }
    }
    return out;
  });
  years.push(...yearMs);

  // Back from the viewer: a picture in the middle of the screen opened, then Esc, until the
  // timeline is painted at the same place with that picture marked.
  const tile = await page.evaluate(() => {
    const box = document.querySelector('[data-testid=timeline]')!.getBoundingClientRect();
    const t = Array.from(document.querySelectorAll('[role=gridcell][data-asset]')).find((c) => c.getBoundingClientRect().top > box.top + 200);
    return t?.getAttribute('data-asset') ?? null;
  });
  await page.locator(`[data-asset="${tile}"]`).click();
  await page.getByTestId('viewer').waitFor();
  await page.locator('.boxed img, .boxed .empty').first().waitFor();
  const back = await page.evaluate(async () => {
    const t0 = performance.now();
    document.body.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true }));
    for (;;) {
      await new Promise((r) => requestAnimationFrame(r));
      const marked = document.querySelector('.tile.last-viewed img') as HTMLImageElement | null;
      if (marked?.complete) {
        await new Promise((r) => requestAnimationFrame(r));
        return performance.now() - t0;
      }
      if (performance.now() - t0 > 10_000) return -1;
    }
  });
  backs.push(back);
  rows.push(m);
}
const total = await page.locator('.library-head h2 small').first().textContent();

// This machine's floor: a static page of the same size (no script, no pictures) scrolled the same way.
const floor: number[] = [];
for (let i = 0; i < LOADS; i++) {
  await page.setContent(
    '<div id="s" style="position:fixed;inset:100px 60px 0 20px;overflow-y:auto"><div style="height:400000px;background:repeating-linear-gradient(#ddd 0 110px,#fff 110px 114px)"></div></div>',
  );
  const d = await flingFrames(page, '#s');
  floor.push(percentile(d, 0.95));
}
await browser.close();
await server.close();
if (process.argv.includes('--keep')) console.log(`kept ${dataDir}`);
else fs.rmSync(dataDir, { recursive: true, force: true });

const med = (k: string) => Math.round(median(rows.map((r) => r[k])));
writeResults(`library-view-${ASSETS}`, `The Library screen with ${ASSETS} photos, in Chromium`, {
  assets: ASSETS,
  'shown as': total ?? '',
  'fill, s': fillS.toFixed(1),
  loads: LOADS,
  'GET /videos/months ms, median': med('months_ms'),
  'GET /videos/layout ms, median': med('layout_ms'),
  'GET /videos/layout KB': med('layout_kb'),
  'GET /videos (first page, 200) ms, median': med('list_ms'),
  'GET /videos/facets ms, median': med('facets_ms'),
  'first paint of pictures after the list response, ms, median (target ≤ 300)': med('paint_after_list_ms'),
  'first paint of pictures from navigation, ms, median': med('paint_from_navigation_ms'),
  'fling, frame time p95 ms, median of loads (target ≤ 20)': Math.round(median(flings) * 10) / 10,
  'fling, longest frame ms, median of loads': Math.round(median(flingMax)),
  "a static page scrolled the same way (this machine's floor), frame time p95 ms, median": Math.round(median(floor) * 10) / 10,
  'scrubber press at a year until its tiles are drawn, ms, median (target ≤ 300)': Math.round(median(years.map((y) => y[0]).filter((y) => y >= 0))),
  'scrubber press at a year until its tiles are drawn, ms, max': Math.round(Math.max(...years.map((y) => y[0]))),
  'scrubber press at a year until every picture in view is shown, ms, median': Math.round(median(years.map((y) => y[1]).filter((y) => y >= 0))),
  'scrubber press at a year until every picture in view is shown, ms, max': Math.round(Math.max(...years.map((y) => y[1]))),
  'years pressed (all loads)': years.length,
  'back from the viewer until painted, ms, median (target ≤ 150)': Math.round(median(backs)),
  'thumbnail long side px / tile long side px': `${med('thumb_long_side_px')} / ${med('tile_long_side_px')}`,
  'first paint after list, all loads': rows.map((r) => Math.round(r.paint_after_list_ms)).join(', '),
  'fling p95 ms, all loads': flings.map((f) => f.toFixed(1)).join(', '),
  'back from the viewer ms, all loads': backs.map((b) => Math.round(b)).join(', '),
});
