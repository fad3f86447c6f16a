// What the app's end-to-end tests share: a real server and Chromium per test file, a page of its
// own per test (its own browser context: nothing kept between tests), and data seeded through the
// API into the test's own workspace, so that every test runs alone and in any order. Each screen
// is saved under e2e/screenshots/.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import sharp from 'sharp';
import { AxeBuilder } from '@axe-core/playwright';
import type { Config } from '../server/config.ts';
import type { WorkerLauncher } from '../server/indexer/protocol.ts';
import { startTestServer, tempDir, type TestServer } from '../test/helpers/server.ts';

const HERE = path.dirname(fileURLToPath(import.meta.url));
export const CORPUS = path.resolve(HERE, '../../shared/corpus');
const SHOTS = path.join(HERE, 'screenshots');
const CHROMIUM = process.env.MEDIA_INDEX_CHROMIUM ?? '/usr/bin/chromium';
export const JOHN = ['000329_00925859.jpg', '000331_00926012.jpg', '000329_00925963.jpg', '000326_00925765.jpg'].map(
  (f) => `faces/dlib-johns/John_Schneider/${f}`,
);
export const corpus = (f: string) => path.join(CORPUS, f);

export interface App {
  t: TestServer;
  /** A page of its own for a workspace's key, signed in through the link and on `hash`; without a key, at the app's address, not signed in. */
  open(key: string | null, hash?: string): Promise<Screen>;
  close(): Promise<void>;
}

export interface Screen {
  page: Page;
  /** Saves the screen as e2e/screenshots/<name>.png once its pictures have loaded. */
  shot(name: string): Promise<void>;
}

/**
 * The server (with `overrides`) and Chromium for one test file; `prepare` runs on the data folder
 * first; `launch`: how indexer processes start (a test may hold runs back).
 */
export async function startApp(overrides: Partial<Config> = {}, prepare?: (data: string) => () => void, launch?: WorkerLauncher): Promise<App> {
  fs.mkdirSync(SHOTS, { recursive: true });
  const data = tempDir('mi-e2e-');
  const undo = prepare?.(data) ?? (() => {});
  const t = await startTestServer({ workers: 2, ...overrides }, data, launch);
  const browser: Browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] });
  const contexts: BrowserContext[] = [];
  const errors: Error[] = [];
  return {
    t,
    async open(key, hash = '#/library') {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      contexts.push(context);
      const page = await context.newPage();
      page.on('pageerror', (err) => errors.push(err));
      if (key === null) await page.goto(`${t.url}/`);
      else {
        await page.goto(`${t.url}/#key=${key}`);
        await page.getByTestId('library').waitFor();
        if (hash !== '#/library') await page.evaluate((h) => (window.location.hash = h), hash);
      }
      const shot = async (name: string) => {
        await page.waitForFunction(() => [...document.images].every((i) => i.complete), undefined, { timeout: 10_000 }).catch(() => undefined);
        await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: false });
      };
      return { page, shot };
    },
    async close() {
      for (const c of contexts) await c.close().catch(() => undefined);
      await browser.close();
      await t.close();
      undo();
      if (errors.length) throw new Error(`the page threw: ${errors.map((e) => e.message).join('; ')}`);
    },
  };
}

/** Indexes corpus files into the key's workspace through the API, one after another; their details. */
export async function seed(t: TestServer, key: string, files: string[], options?: unknown) {
  const out = [];
  for (const f of files) out.push(await t.index(key, path.isAbsolute(f) ? f : corpus(f), options));
  return out;
}

/** Files as a drop on the library carries them (names and bytes). */
export function dropped(files: string[]): Array<{ name: string; b64: string }> {
  return files.map((f) => ({ name: path.basename(f), b64: fs.readFileSync(path.isAbsolute(f) ? f : corpus(f)).toString('base64') }));
}

/** Drops files on the library screen (a DataTransfer of File objects, as a drag from the desktop gives). */
export async function dropOnLibrary(page: Page, files: Array<{ name: string; b64: string }>): Promise<void> {
  const drop = await page.evaluateHandle((list) => {
    const dt = new DataTransfer();
    for (const f of list) dt.items.add(new File([Uint8Array.from(atob(f.b64), (c) => c.charCodeAt(0))], f.name));
    return dt;
  }, files);
  await page.dispatchEvent('[data-testid=library]', 'drop', { dataTransfer: drop });
}

/** Three photos with capture dates and GPS written by exiftool: two in Paris in July 2019, one in Tokyo in March 2021. */
export function datedPhotos(dir: string): string[] {
  const tagged: Array<[string, string, string, number, number]> = [
    ['scenes/opencv/building.jpg', 'paris-louvre.jpg', '2019:07:14 18:30:00', 48.8606, 2.3376],
    ['scenes/opencv/home.jpg', 'paris-evening.jpg', '2019:07:20 21:05:00', 48.8584, 2.2945],
    ['scenes/opencv/leuvenA.jpg', 'tokyo-street.jpg', '2021:03:05 09:00:00', 35.6595, 139.7005],
  ];
  return tagged.map(([src, name, when, lat, lon]) => {
    const file = path.join(dir, name);
    fs.copyFileSync(corpus(src), file);
    execFileSync('exiftool', [
      '-q',
      '-overwrite_original',
      `-DateTimeOriginal=${when}`,
      `-GPSLatitude=${lat}`,
      '-GPSLatitudeRef=N',
      `-GPSLongitude=${lon}`,
      '-GPSLongitudeRef=E',
      file,
    ]);
    return file;
  });
}

/** A photo the test makes (`make` writes it), added with the browser's file chooser and indexed: its tile. */
export async function addMadePhoto(page: Page, name: string, make: (file: string) => Promise<unknown>) {
  const dir = tempDir('mi-e2e-made-');
  try {
    const file = path.join(dir, name);
    await make(file);
    await page.getByRole('link', { name: 'Library' }).click();
    await page.getByTestId('files-input').setInputFiles(file);
    const card = page.locator(`[data-asset][data-status=completed][data-name="${name}"]`);
    await card.waitFor({ timeout: 120_000 });
    return card;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** John Schneider's face, small and blurred: too little to join him by itself. */
export const smallJohn = (width: number) => (file: string) =>
  sharp(corpus('faces/dlib-johns/John_Schneider/000326_00926139.jpg')).resize(width).jpeg({ quality: 30 }).toFile(file);

/** The four photos of John Schneider indexed, grouped and named through the API: the person. */
export async function namedJohn(t: TestServer, key: string): Promise<{ person_id: string; face_count: number }> {
  await seed(t, key, JOHN);
  expect2xx(await t.api('POST', '/people/recluster', { key, json: {} }));
  for (let i = 0; ; i++) {
    const people = (await t.api('GET', '/people', { key })).body.data;
    if (!people.regrouping && people.people.length > 0) {
      const first = people.people[0] as { person_id: string };
      const named = await t.api('PATCH', `/people/${first.person_id}`, { key, json: { name: 'John Schneider' } });
      expect2xx(named);
      return named.body.data;
    }
    if (i > 600) throw new Error('the faces were not grouped');
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** What axe-core finds serious or critical on the page as it is now (rule, impact, where): none is the goal. */
export async function accessibilityProblems(page: Page): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page }).analyze();
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

function expect2xx(r: { status: number; body: unknown }): void {
  if (r.status < 200 || r.status > 299) throw new Error(`answered ${r.status}: ${JSON.stringify(r.body)}`);
}
