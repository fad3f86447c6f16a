/// <reference lib="dom" />
// The Library screen at library scale, in Chromium: N photos (default 50,000) with capture dates
// spread over ten years, places and cameras, then the real server and the built renderer. Measures,
// over several page loads: the list request (GET /videos?order=taken_at) and the months and facets
// requests as the page saw them, and the first paint of the timeline's cards after the list
// response ended (the screen's own work: React, the virtualizer, layout); then a jump to the
// middle of the timeline (the scrubber's job) until its cards are painted. Medians.
// Needs the renderer built (npm run build:renderer) and Chromium (MEDIA_INDEX_CHROMIUM, else
// /usr/bin/chromium).
// Usage: npm run bench -- library-view [-- --assets 50000 --loads 5 --keep]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { loadConfig } from '../server/config.ts';
import { startServer } from '../server/server.ts';
import { openStore } from '../server/store/index.ts';
import { AuthService } from '../server/services/auth.service.ts';
import { planRuns } from '../server/indexer/plan.ts';
import { newAssetRow } from '../server/indexer/admission.ts';
import { deploymentDefaults } from '../server/contract/stages.ts';
import { arg, writeResults } from './report.ts';

const ASSETS = arg('assets', 50_000);
const LOADS = arg('loads', 5);
const CHROMIUM = process.env.MEDIA_INDEX_CHROMIUM ?? '/usr/bin/chromium';
declare global {
  interface Window {
    /** When the first cards were painted (performance.now()), set by the page's init script. */
    __cardsPainted?: number;
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mi-bench-library-'));
console.log(`building ${ASSETS} photos in ${dataDir}`);
const tFill = performance.now();
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
for (let s = 0; s < ASSETS; s += 1000) {
  store.transaction(() => {
    for (let a = s; a < Math.min(ASSETS, s + 1000); a++) {
      const id = `vid_bench${String(a).padStart(12, '0')}`;
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
          width: 4000,
          height: 3000,
          completed_at: a,
        },
        planRuns(id, 'image', effective, 1).map((r) => ({ ...r, state: 'ok' as const })),
      );
      const takenMs = start + Math.floor(((a * 2654435761) % ASSETS) * (TEN_YEARS / ASSETS));
      const [city, region, country, code, lat, lon] = places[a % places.length];
      const [make, model] = cameras[a % cameras.length];
      store.metadata.replace(
        id,
        {
          taken_at: new Date(takenMs).toISOString().replace(/\.\d{3}Z$/, 'Z'),
          taken_at_source: 'exif',
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
// Marks the first frame painted with cards: a card appears, then two animation frames pass.
await page.addInitScript(() => {
  const w = window;
  new MutationObserver((_, obs) => {
    if (document.querySelector('[data-asset]')) {
      obs.disconnect();
      requestAnimationFrame(() => requestAnimationFrame(() => (w.__cardsPainted = performance.now())));
    }
  }).observe(document, { childList: true, subtree: true });
});
const url = `http://127.0.0.1:${server.port}`;
const rows: Array<Record<string, number>> = [];
await page.goto(`${url}/#key=${key}`);
await page.waitForFunction(() => window.__cardsPainted !== undefined, undefined, { timeout: 60_000 });
for (let i = 0; i < LOADS; i++) {
  await page.reload();
  await page.waitForFunction(() => window.__cardsPainted !== undefined, undefined, { timeout: 60_000 });
  const m = await page.evaluate(() => {
    // (No named functions in here: the page has not the helpers a bundler would name them with.)
    const entries = performance.getEntriesByType('resource') as PerformanceResourceTiming[];
    const painted = window.__cardsPainted ?? Number.NaN;
    // The list response the cards came from: the last one that ended before they were painted.
    const list = entries.filter((e) => e.name.includes('/videos?order=taken_at') && e.responseEnd <= painted).pop();
    const months = entries.find((e) => e.name.includes('/videos/months'));
    const facets = entries.find((e) => e.name.includes('/videos/facets'));
    return {
      list_ms: list ? list.responseEnd - list.startTime : -1,
      months_ms: months ? months.responseEnd - months.startTime : -1,
      facets_ms: facets ? facets.responseEnd - facets.startTime : -1,
      paint_after_list_ms: list ? painted - list.responseEnd : -1,
      paint_from_navigation_ms: painted,
      list_requests: entries.filter((e) => e.name.includes('/videos?order=taken_at') && e.responseEnd <= painted).length,
    };
  });
  // The middle of the timeline: scrolled there at once, until its cards are painted.
  const jump = await page.evaluate(async () => {
    const scroller = document.querySelector('[data-testid=timeline]') as HTMLElement;
    const t0 = performance.now();
    scroller.scrollTop = scroller.scrollHeight / 2;
    for (;;) {
      await new Promise((r) => requestAnimationFrame(r));
      const box = scroller.getBoundingClientRect();
      const cards = Array.from(document.querySelectorAll('[data-asset]')).filter((c) => {
        const r = c.getBoundingClientRect();
        return r.bottom > box.top && r.top < box.bottom;
      });
      if (cards.length > 0) return performance.now() - t0;
      if (performance.now() - t0 > 10_000) return -1;
    }
  });
  rows.push({ ...m, jump_to_middle_ms: jump });
}
const total = await page.locator('.section-head small').first().textContent();
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
  'GET /videos (list, 200) ms, median': med('list_ms'),
  'list requests before the first paint, median': med('list_requests'),
  'GET /videos/months ms, median': med('months_ms'),
  'GET /videos/facets ms, median': med('facets_ms'),
  'first paint of cards after the list response, ms, median': med('paint_after_list_ms'),
  'first paint of cards from navigation, ms, median': med('paint_from_navigation_ms'),
  'jump to the middle until cards painted, ms, median': med('jump_to_middle_ms'),
  'first paint after list, all loads': rows.map((r) => Math.round(r.paint_after_list_ms)).join(', '),
});
