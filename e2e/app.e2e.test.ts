// The app as a person uses it, in Chromium against the real server: drop real files on the
// library, wait for indexing, search and open hits with their box, read a document page with its
// passages, re-group faces, name a person and see the name in the grid, take a face off a person;
// the timeline by month with its filter chips, the viewer's info panel, deep links to searches.
// Each screen is saved under e2e/screenshots/.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import sharp from 'sharp';
import { startTestServer, tempDir, type TestServer } from '../test/helpers/server.ts';
import { installTinyWhisper, writeManifest, useManifest } from '../test/helpers/tiny-onnx.ts';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const CORPUS = path.resolve(HERE, '../../shared/corpus');
const SHOTS = path.join(HERE, 'screenshots');
const CHROMIUM = process.env.MEDIA_INDEX_CHROMIUM ?? '/usr/bin/chromium';
const WHISPER_META = path.resolve(HERE, '../../shared/models-meta/Xenova/whisper-tiny');
const JOHN = ['000329_00925859.jpg', '000331_00926012.jpg', '000329_00925963.jpg', '000326_00925765.jpg'].map((f) => `faces/dlib-johns/John_Schneider/${f}`);
const FILES = ['docs/carroll-wonderland.pdf', 'scenes/skimage/chelsea.png', ...JOHN];

describe('the app in Chromium', () => {
  let t: TestServer;
  let browser: Browser;
  let page: Page;
  const shot = async (name: string) => {
    // Pictures on screen loaded first, so that the screenshot shows them.
    await page.waitForFunction(() => [...document.images].every((i) => i.complete), undefined, { timeout: 10_000 }).catch(() => undefined);
    await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: false });
  };

  const data = tempDir('mi-e2e-');
  let restoreManifest = () => {};

  beforeAll(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    // A Whisper stand-in (see test/transcript.test.ts) that hears "Hello" at the start of each stretch of speech.
    const vocab = JSON.parse(fs.readFileSync(path.join(WHISPER_META, 'vocab.json'), 'utf8')) as Record<string, number>;
    const next = new Map([
      [50258, 50259],
      [50359, 50364],
      [50364, vocab['ĠHello']],
      [vocab['ĠHello'], 50364 + 50],
    ]);
    const files = installTinyWhisper(path.join(data, 'models'), 'whisper-tiny', WHISPER_META, next);
    writeManifest(path.join(data, 'manifest.json'), 'whisper-tiny', 'transcript', 'automatic-speech-recognition', files);
    restoreManifest = useManifest(path.join(data, 'manifest.json'));
    t = await startTestServer({ workers: 2, libraryRoots: [os.tmpdir()], librarySettleMs: 200 }, data);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] });
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.on('pageerror', (err) => {
      throw err;
    });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    restoreManifest();
  });

  it('asks for a key, refuses a wrong one, and opens with the one from the link', async () => {
    await page.goto(`${t.url}/`);
    await page.getByLabel('API key').fill('mi_aaaaaaaaaaaaaaaaaaaa_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb');
    await page.getByRole('button', { name: 'Open' }).click();
    await page.getByRole('alert').waitFor();
    expect(await page.getByRole('alert').textContent()).toMatch(/not valid/);
    await shot('connect');
    await page.goto('about:blank');
    await page.goto(`${t.url}/#key=${t.key('e2e')}`);
    await page.getByTestId('library').waitFor();
    expect(page.url()).not.toContain('key=');
    // The library's first page arrives after the screen itself: wait for what it says.
    await page.getByText('Nothing indexed yet').waitFor();
    expect(await page.getByText('Nothing indexed yet').count()).toBe(1);
  });

  it('uploads files dropped on the library and shows them indexed', async () => {
    const files = FILES.map((f) => ({ name: path.basename(f), b64: fs.readFileSync(path.join(CORPUS, f)).toString('base64') }));
    files.push({ name: 'notes.doc', b64: Buffer.from('\xd0\xcf\x11\xe0 legacy').toString('base64') });
    const drop = await page.evaluateHandle((list) => {
      const dt = new DataTransfer();
      for (const f of list) dt.items.add(new File([Uint8Array.from(atob(f.b64), (c) => c.charCodeAt(0))], f.name));
      return dt;
    }, files);
    await page.dispatchEvent('[data-testid=library]', 'drop', { dataTransfer: drop });
    await page.locator('.upload[data-state=failed]').waitFor();
    expect(await page.locator('.upload[data-state=failed]').textContent()).toMatch(/notes\.doc.*(legacy|Word)/i);
    await page
      .locator('[data-asset]')
      .nth(FILES.length - 1)
      .waitFor();
    await shot('library-indexing');
    await page.waitForFunction((n) => document.querySelectorAll('[data-asset][data-status=completed]').length === n, FILES.length, {
      timeout: 240_000,
      polling: 500,
    });
    await shot('library');
    expect(await page.locator('[data-asset] img').count()).toBe(FILES.length);
  }, 300_000);

  it('searches, and opens a photo hit with its box drawn', async () => {
    await page.getByLabel('search').fill('cat');
    await page.getByLabel('search').press('Enter');
    await page.locator('.hit').first().waitFor();
    expect(await page.locator('.hit').first().textContent()).toContain('chelsea.png');
    await shot('search');
    await page.locator('.hit-open').first().click();
    await page.getByTestId('viewer').waitFor();
    await page.locator('.box-hit').waitFor();
    expect(await page.locator('.box-object').first().getAttribute('title')).toMatch(/^cat/);
    await shot('viewer-photo');
  });

  it('opens a document page at the passage a phrase came from, passages listed and outlined', async () => {
    await page.getByLabel('search').fill('Would the fall never come to an end');
    await page.getByLabel('search').press('Enter');
    const hit = page.locator('.hit', { has: page.locator('.hit-where', { hasText: /^page 5$/ }) }).first();
    await hit.waitFor();
    await hit.locator('.hit-open').click();
    await page.locator('[data-testid=viewer][data-kind=document]').waitFor();
    await page.locator('.passages li.current').waitFor();
    expect(await page.locator('.passages li.current').textContent()).toMatch(/Down, down, down/);
    expect(await page.locator('.box-passage').count()).toBeGreaterThan(3);
    expect(await page.locator('.box-hit').count()).toBe(1);
    await page.keyboard.press('ArrowRight');
    await page.getByLabel('page number').and(page.locator('[value="6"]')).waitFor();
    // Page 6 is drawn on this first request (text pages are rendered lazily).
    await page.waitForFunction(() => {
      const img = document.querySelector('.boxed img') as HTMLImageElement | null;
      return img !== null && img.complete && img.naturalWidth > 0;
    });
    await shot('viewer-document');
  });

  it('plays a video from the moment it was opened at, and from a line of its transcript', async () => {
    // Indexed through the API with the face stages off, so People below stay the photos'.
    const video = await t.index(t.key('e2e'), path.join(CORPUS, 'video/forensics/movie-hello.mp4'), { faces: false, people: false, ocr: false });
    await page.goto(`${t.url}/#/view/${video.video_id}?t=4`);
    await page.locator('[data-testid=viewer][data-kind=video]').waitFor();
    await page.waitForFunction(() => {
      const v = document.querySelector('video.player') as HTMLVideoElement | null;
      return v !== null && v.readyState >= 1 && Math.abs(v.currentTime - 4) < 0.5;
    });
    // The speech starts at 0.58 s: its line says so, and a click plays from there.
    const line = page.locator('ol.transcript li').first();
    await line.waitFor();
    expect(await line.textContent()).toBe('0:00 Hello');
    expect(await page.getByRole('heading', { name: 'Transcript (en)' }).count()).toBe(1);
    await line.getByRole('button').click();
    await page.waitForFunction(() => {
      const v = document.querySelector('video.player') as HTMLVideoElement | null;
      return v !== null && v.currentTime >= 0.5 && v.currentTime < 2;
    });
    await shot('viewer-video');
    await page.goto(`${t.url}/#/library`);
  });

  it('re-groups faces after a preview, names the person, and shows the name in the grid', async () => {
    await page.getByRole('link', { name: 'People' }).click();
    await page.getByTestId('people').waitFor();
    await page.getByRole('button', { name: 'Re-group faces…' }).click();
    await page.getByRole('dialog').waitFor();
    expect(await page.getByRole('dialog').textContent()).toMatch(/1 new unnamed people from 4 faces/);
    await shot('people-preview');
    await page.getByRole('button', { name: 'Re-group now' }).click();
    await page.locator('[data-person]').first().waitFor({ timeout: 60_000 });
    await page.locator('[data-person]').first().click();
    await page.getByTestId('person').waitFor();
    await page.getByLabel('name').fill('John Schneider');
    await page.getByRole('button', { name: 'Save name' }).click();
    await page.getByText('Named John Schneider.').waitFor();
    await page.getByRole('link', { name: 'People' }).click();
    await page.locator('.person-name', { hasText: 'John Schneider' }).waitFor();
    await page.locator('[data-person] .crop[role=img]').first().waitFor();
    await shot('people');
  });

  it('takes a face off a person as "not this person"', async () => {
    await page.locator('[data-person]').first().click();
    await page.locator('[data-face]').first().waitFor();
    const before = await page.locator('[data-face]').count();
    await page.locator('[data-face]').last().click();
    await page.getByRole('button', { name: 'Not this person' }).click();
    await page.getByText('1 face(s) marked as not this person.').waitFor();
    await page.waitForFunction((n) => document.querySelectorAll('[data-face]').length === n, before - 1);
    await shot('person');
    const id = await page.getByTestId('person').evaluate(() => window.location.hash.split('/')[2]);
    const detail = await t.api('GET', `/people/${id}`, { key: t.key('e2e', ['read']) });
    expect(detail.body.data.face_count).toBe(before - 1);
  });

  it('shows settings: index options, models and engines', async () => {
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByTestId('settings').waitFor();
    await page.getByRole('cell', { name: 'all-MiniLM-L6-v2', exact: true }).waitFor();
    // Every optional model offers Install (or says it is installed).
    const states = await page.locator('[data-model-state]').allTextContents();
    expect(states.length).toBeGreaterThanOrEqual(8);
    for (const s of states) expect(s).toMatch(/^(Install|installed)/);
    expect(await page.getByLabel('ocr on').isChecked()).toBe(true);
    // A key made here is shown once and works; revoked, it stops working.
    await page.getByLabel('key label').fill('backup script');
    await page.getByRole('button', { name: 'Create key' }).click();
    const created = (await page.getByTestId('new-key').textContent()) as string;
    expect((await t.api('GET', '/videos', { key: created })).status).toBe(200);
    await shot('settings');
    await page.getByRole('button', { name: 'Done' }).click();
    expect(await page.getByTestId('new-key').count()).toBe(0);
    page.once('dialog', (d) => void d.accept());
    await page.locator('tr', { hasText: 'backup script' }).getByRole('button', { name: 'Revoke' }).click();
    await page.locator('tr.revoked', { hasText: 'backup script' }).waitFor();
    expect((await t.api('GET', '/videos', { key: created })).status).toBe(401);
  });

  it('adds a folder as a library from settings (typed path) and its files appear in the library', async () => {
    const folder = tempDir('mi-e2e-library-');
    fs.mkdirSync(path.join(folder, 'trip'));
    fs.copyFileSync(path.join(CORPUS, 'office/a-text.docx'), path.join(folder, 'trip/itinerary.docx'));
    fs.copyFileSync(path.join(CORPUS, 'docs/a-text.pdf'), path.join(folder, 'tickets.pdf'));
    fs.writeFileSync(path.join(folder, 'trip/skipped.bin'), 'not a supported type');
    const old = new Date(Date.now() - 60_000);
    for (const f of ['trip/itinerary.docx', 'tickets.pdf']) fs.utimesSync(path.join(folder, f), old, old);
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByTestId('libraries').waitFor();
    await page.getByLabel('folder path').fill(folder);
    await page.getByRole('button', { name: 'Add folder' }).click();
    const row = page.locator('[data-library]', { hasText: fs.realpathSync(folder) });
    await row.waitFor();
    await row.getByTestId('library-state').filter({ hasText: 'up to date, watching' }).waitFor({ timeout: 120_000 });
    expect(await row.locator('td').nth(2).textContent()).toBe('2');
    await row.getByRole('button', { name: '1' }).click();
    await row.getByText('files of type .bin are not supported').waitFor();
    await shot('settings-libraries');
    await page.getByRole('link', { name: 'Library' }).click();
    await page.locator('[data-asset]', { hasText: 'itinerary.docx' }).waitFor();
    await page.locator('[data-asset]', { hasText: 'tickets.pdf' }).waitFor();
    fs.rmSync(folder, { recursive: true, force: true });
  }, 180_000);

  it('shows the library as a timeline by month, narrows it with a chip, and shows the place in the info panel', async () => {
    // Three photos with capture dates and GPS written by exiftool: two in Paris in July 2019, one in Tokyo in March 2021.
    const dir = tempDir('mi-e2e-dated-');
    const tagged: Array<[string, string, string, number, number]> = [
      ['scenes/opencv/building.jpg', 'paris-louvre.jpg', '2019:07:14 18:30:00', 48.8606, 2.3376],
      ['scenes/opencv/home.jpg', 'paris-evening.jpg', '2019:07:20 21:05:00', 48.8584, 2.2945],
      ['scenes/opencv/leuvenA.jpg', 'tokyo-street.jpg', '2021:03:05 09:00:00', 35.6595, 139.7005],
    ];
    const files = tagged.map(([src, name, when, lat, lon]) => {
      const file = path.join(dir, name);
      fs.copyFileSync(path.join(CORPUS, src), file);
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
      return { name, b64: fs.readFileSync(file).toString('base64') };
    });
    await page.getByRole('link', { name: 'Library' }).click();
    const drop = await page.evaluateHandle((list) => {
      const dt = new DataTransfer();
      for (const f of list) dt.items.add(new File([Uint8Array.from(atob(f.b64), (c) => c.charCodeAt(0))], f.name));
      return dt;
    }, files);
    await page.dispatchEvent('[data-testid=library]', 'drop', { dataTransfer: drop });
    // Every month is on the scrubber, newest first: March 2021 above July 2019, both below this month's uploads.
    await page.locator('.scrubber button[data-month="2019-07"]').waitFor({ timeout: 120_000 });
    await page.locator('.scrubber button[data-month="2021-03"]').waitFor({ timeout: 120_000 });
    const order = await page.locator('.scrubber button').evaluateAll((els) => els.map((e) => e.getAttribute('data-month')));
    expect(order.indexOf('2021-03')).toBeLessThan(order.indexOf('2019-07'));
    expect(order.indexOf('2021-03')).toBeGreaterThan(0);
    // The scrubber scrolls the timeline to the month: its heading with its count, then its photos.
    await page.locator('.scrubber button[data-month="2019-07"]').click();
    const july = page.locator('.month[data-month="2019-07"]');
    await july.waitFor();
    expect(await july.locator('small').textContent()).toBe('2');
    await page.locator('[data-asset]', { hasText: 'paris-louvre.jpg' }).waitFor();
    await shot('library-timeline');

    await page.getByLabel('filter by place').selectOption('Paris');
    await page.waitForFunction(() => window.location.hash.includes('place=Paris'));
    await page.getByText('2 items', { exact: true }).waitFor();
    await page.locator('[data-asset]', { hasText: 'paris-evening.jpg' }).waitFor();
    expect(await page.locator('[data-asset]').count()).toBe(2);
    expect(await page.locator('.month').count()).toBe(1);
    await shot('library-filtered');
    // The filter is in the address: the back button takes it off.
    await page.goBack();
    await page.locator('.month[data-month="2021-03"]').waitFor();

    await page.locator('[data-asset]', { hasText: 'tokyo-street.jpg' }).getByRole('button', { name: /^open/ }).click();
    await page.getByTestId('info').waitFor();
    expect(await page.getByTestId('info-place').textContent()).toBe('Tokyo, Japan');
    expect(await page.getByTestId('info-taken').textContent()).toMatch(/2021/);
    await shot('viewer-info');
    // The place links to the library narrowed to it.
    await page.getByTestId('info-place').click();
    await page.getByText('1 item', { exact: true }).waitFor();
    // The count comes with the months; the cards with the first page, a moment later.
    await page.locator('[data-asset]', { hasText: 'tokyo-street.jpg' }).waitFor();
    expect(await page.locator('[data-asset]').count()).toBe(1);
    fs.rmSync(dir, { recursive: true, force: true });
  }, 180_000);

  it('runs the search a link names, shows what it understood, and the back button shows the search before it', async () => {
    await page.getByLabel('search').fill('cat');
    await page.getByLabel('search').press('Enter');
    await page.locator('.hit', { hasText: 'chelsea.png' }).first().waitFor();
    // A link to another search (as from a note or a bookmark): its own results, never the previous ones under its title.
    await page.evaluate(() => (window.location.hash = '#/search?q=' + encodeURIComponent('photos in Paris 2019')));
    await page.getByText('Results for “photos in Paris 2019”').waitFor();
    await page.getByTestId('understood').waitFor();
    const understood = await page.getByTestId('understood').textContent();
    expect(understood).toMatch(/in Paris/);
    expect(understood).toMatch(/taken in 2019/);
    const names = await page.locator('.hit .hit-name').allTextContents();
    expect(names.length).toBeGreaterThan(0);
    expect(new Set(names)).toEqual(new Set(['paris-louvre.jpg', 'paris-evening.jpg']));
    expect(await page.getByLabel('search').inputValue()).toBe('photos in Paris 2019');
    await shot('search-deep-link');
    await page.goBack();
    await page.getByText('Results for “cat”').waitFor();
    expect(await page.locator('.hit').first().textContent()).toContain('chelsea.png');
    expect(await page.getByLabel('search').inputValue()).toBe('cat');
    // The same chips as the library narrow the results.
    await page.getByLabel('filter by kind').selectOption('document');
    await page.waitForFunction(() => window.location.hash.includes('kind=document'));
    await page.getByText('Results for “cat”').waitFor();
    await page.waitForFunction(() => !document.querySelector('.search .empty')?.textContent?.startsWith('Searching'));
    const docs = await page.locator('.hit').allTextContents();
    expect(docs.length).toBeGreaterThan(0);
    expect(docs.every((h) => h.includes('carroll-wonderland.pdf'))).toBe(true);
  });

  it('answers a question from the library with its cited moments (no language model: sentences of the evidence), and a citation opens its page', async () => {
    await page.getByRole('link', { name: 'Ask' }).click();
    await page.getByTestId('ask').waitFor();
    await page.getByLabel('question').fill('What did Alice think after such a fall?');
    await page.getByLabel('question').press('Enter');
    await page.getByTestId('answer-text').waitFor();
    expect(page.url()).toContain('#/ask?q=');
    expect(await page.getByTestId('answer-text').textContent()).toContain('after such a fall as this');
    expect(await page.getByTestId('answer-composer').textContent()).toMatch(/Sentences of the evidence/);
    expect(await page.getByLabel('evidence').locator('li').first().textContent()).toContain('carroll-wonderland.pdf, page 5');
    await shot('ask');
    await page.locator('.answer a.cite').first().click();
    await page.waitForFunction(() => window.location.hash.startsWith('#/view/') && window.location.hash.includes('page=5'));
    await page.goBack();
    await page.getByTestId('answer-text').waitFor();
  });

  it('uploads a folder dropped from disk (real file handles: walked, hidden files left out) and one picked with the folder chooser', async () => {
    const dir = tempDir('mi-e2e-drop-');
    try {
      fs.mkdirSync(path.join(dir, 'trip', 'day 2'), { recursive: true });
      fs.copyFileSync(path.join(CORPUS, 'scenes/skimage/coffee.png'), path.join(dir, 'trip', 'coffee.png'));
      fs.copyFileSync(path.join(CORPUS, 'docs/a-text.pdf'), path.join(dir, 'trip', 'day 2', 'a-text.pdf'));
      fs.writeFileSync(path.join(dir, 'trip', '.DS_Store'), 'x');
      fs.mkdirSync(path.join(dir, 'scans', '.git'), { recursive: true });
      fs.copyFileSync(path.join(CORPUS, 'scenes/skimage/camera.png'), path.join(dir, 'scans', 'camera.png'));
      fs.writeFileSync(path.join(dir, 'scans', '.git', 'HEAD'), 'ref');
      await page.getByRole('link', { name: 'Library' }).click();
      const library = page.getByTestId('library');
      await library.waitFor();
      const box = (await library.boundingBox())!;
      // A drop as the OS makes it: Chromium gets the paths and gives the page file-system entries.
      const cdp = await page.context().newCDPSession(page);
      const data = { items: [], files: [path.join(dir, 'trip')], dragOperationsMask: 1 };
      for (const type of ['dragEnter', 'dragOver', 'drop'] as const) {
        await cdp.send('Input.dispatchDragEvent', { type, x: box.x + box.width / 2, y: box.y + 80, data });
      }
      const done = (name: string) => page.locator('.upload[data-state=done]', { hasText: name }).first().waitFor({ timeout: 60_000 });
      await done('coffee.png');
      await done('a-text.pdf');
      expect(await page.locator('.upload', { hasText: '.DS_Store' }).count()).toBe(0);
      // The folder chooser of the browser.
      await page.getByTestId('folder-input').setInputFiles(path.join(dir, 'scans'));
      await done('camera.png');
      expect(await page.locator('.upload', { hasText: 'HEAD' }).count()).toBe(0);
      const names = (await t.api('GET', '/videos?limit=200', { key: t.key('e2e', ['read']) })).body.data.map((a: { file_name: string }) => a.file_name);
      expect(names).toEqual(expect.arrayContaining(['coffee.png', 'a-text.pdf', 'camera.png']));
      expect(names).not.toContain('.DS_Store');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  /** A photo the test makes (`make` writes it), added with the browser's file chooser and indexed: its card. */
  const addMadePhoto = async (name: string, make: (file: string) => Promise<unknown>) => {
    const dir = tempDir('mi-e2e-made-');
    try {
      const file = path.join(dir, name);
      await make(file);
      await page.getByRole('link', { name: 'Library' }).click();
      await page.getByTestId('files-input').setInputFiles(file);
      const card = page.locator('[data-asset][data-status=completed]', { hasText: name });
      await card.waitFor({ timeout: 120_000 });
      return card;
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  };
  const smallJohn = (width: number) => (file: string) =>
    sharp(path.join(CORPUS, 'faces/dlib-johns/John_Schneider/000326_00926139.jpg')).resize(width).jpeg({ quality: 30 }).toFile(file);

  it('shows a photo stored sideways upright, in the library and the viewer, its face boxes turned with it', async () => {
    // Taken wider than tall (1920 × 1280), stored turned a quarter clockwise, with no EXIF orientation.
    const card = await addMadePhoto('sideways.jpg', (file) => sharp(path.join(CORPUS, 'faces/face-api-samples/sample1.jpg')).rotate(90).jpeg().toFile(file));
    const id = await card.getAttribute('data-asset');
    const detail = (await t.api('GET', `/videos/${id}`, { key: t.key('e2e', ['read']) })).body.data;
    expect(detail.orientation_detected).toBe(270);
    expect(await card.locator('img').getAttribute('style')).toContain('rotate(270deg)');
    await card.locator('.card-open').click();
    await page.getByTestId('viewer').waitFor();
    const turned = page.locator('.boxed.turned[data-turn="270"]');
    await turned.waitFor();
    expect(await turned.locator('.box-face').count()).toBeGreaterThan(0);
    // Upright: the frame is wider than tall, as the photo was taken, though stored taller than wide.
    const frame = (await turned.boundingBox())!;
    expect(frame.width / frame.height).toBeCloseTo(1920 / 1280, 1);
    await shot('viewer-turned');
    await page.goBack();
  }, 180_000);

  it('asks "Is this John Schneider?" about a face too small to join him by itself, and a yes adds it to him', async () => {
    await addMadePhoto('small-john.jpg', smallJohn(44));
    const read = t.key('e2e', ['read']);
    const john = (await t.api('GET', '/people', { key: read })).body.data.people.find((p: { name: string }) => p.name === 'John Schneider');
    await page.getByRole('link', { name: 'People' }).click();
    const question = page.locator('.suggestion', { hasText: 'Is this John Schneider?' });
    await question.waitFor();
    await shot('people-suggestion');
    await question.getByRole('button', { name: 'yes, this is John Schneider' }).click();
    await page.getByText('Added to John Schneider.').waitFor();
    expect(await page.locator('.suggestion', { hasText: 'Is this John Schneider?' }).count()).toBe(0);
    const after = (await t.api('GET', `/people/${john.person_id}`, { key: read })).body.data;
    expect(after.face_count).toBe(john.face_count + 1);
    expect(after.faces.some((f: { assigned_by: string }) => f.assigned_by === 'owner')).toBe(true);
  }, 180_000);

  it('lets the owner say who a face not grouped yet is, from the viewer', async () => {
    const card = await addMadePhoto('small-john-2.jpg', smallJohn(40));
    await card.locator('.card-open').click();
    await page.getByTestId('viewer').filter({ hasText: 'small-john-2.jpg' }).waitFor();
    const who = page.getByLabel('who is this');
    await who.waitFor();
    await who.selectOption({ label: 'John Schneider' });
    await page.locator('.side li a', { hasText: 'John Schneider' }).first().waitFor();
    expect(await page.getByLabel('who is this').count()).toBe(0);
  }, 180_000);

  it('shows in the search box only the search on screen, keeps at most three toasts, and Escape dismisses the newest', async () => {
    await page.getByLabel('search').fill('cat');
    await page.getByLabel('search').press('Enter');
    await page.getByText('Results for “cat”').waitFor();
    await page.getByRole('link', { name: 'Library' }).click();
    await page.getByTestId('library').waitFor();
    expect(await page.getByLabel('search').inputValue()).toBe('');
    await page.goBack();
    await page.getByText('Results for “cat”').waitFor();
    expect(await page.getByLabel('search').inputValue()).toBe('cat');

    // Four changes in a row, each with its toast: three stay on screen, the newest last.
    await page.evaluate(() => (window.location.hash = '#/settings'));
    const toggle = page.getByLabel('labels on');
    await toggle.waitFor();
    const start = await toggle.isChecked();
    await page.waitForFunction(() => !document.querySelector('.toast'), undefined, { timeout: 15_000 }); // earlier screens' toasts gone
    for (let i = 1; i <= 4; i++) {
      const said = `labels ${(i % 2 === 1) !== start ? 'on' : 'off'} for new uploads.`;
      await toggle.click();
      // Each change saved before the next click (the box shows what the service holds).
      await page.waitForFunction((text) => [...document.querySelectorAll('.toast')].at(-1)?.textContent === text, said);
    }
    expect(await toggle.isChecked()).toBe(start);
    const shown = await page.locator('.toast').allTextContents();
    expect(shown).toHaveLength(3);
    expect(shown.at(-1)).toBe(`labels ${start ? 'on' : 'off'} for new uploads.`);
    await shot('toasts');
    // The checkbox has the focus: Escape is not a text field's, so it dismisses the newest toast (read
    // just before, as the oldest may have timed out while the screenshot was taken).
    const before = await page.locator('.toast').allTextContents();
    await page.keyboard.press('Escape');
    expect(await page.locator('.toast').allTextContents()).toEqual(before.slice(0, -1));
  });
});
