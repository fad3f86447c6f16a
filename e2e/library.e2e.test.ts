// The library screen: files dropped on it are uploaded and indexed, folders dropped from disk or
// picked are walked (hidden files left out), the timeline by month with its scrubber and chips, the
// info panel, and a photo stored sideways shown upright. Each test in a workspace of its own.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { tempDir } from '../test/helpers/server.ts';
import { holdingEnds } from '../test/helpers/launch.ts';
import { JOHN, accessibilityProblems, addMadePhoto, corpus, datedPhotos, dropOnLibrary, dropped, seed, startApp, type App } from './harness.ts';

describe('the library', () => {
  let app: App;
  beforeAll(async () => {
    app = await startApp();
  }, 120_000);
  afterAll(async () => app?.close());

  it('uploads files dropped on the library and shows them indexed', async () => {
    const { page, shot } = await app.open(app.t.key('library-drop'));
    const files = ['docs/carroll-wonderland.pdf', 'scenes/skimage/chelsea.png', ...JOHN];
    // The uploads are held on their way until the panel has been looked at with nothing admitted yet.
    let arrive!: () => void;
    const arriving = new Promise<void>((resolve) => (arrive = resolve));
    await page.route('**/api/v1/videos', async (route) => {
      if (route.request().method() === 'POST') await arriving;
      await route.continue();
    });
    await dropOnLibrary(page, [...dropped(files), { name: 'notes.doc', b64: Buffer.from('\xd0\xcf\x11\xe0 legacy').toString('base64') }]);
    // Uploads and what was refused are in the top bar's indexing panel (the timeline stays where it is).
    await page.getByTestId('activity').click();
    await page.locator('.upload[data-state=uploading]').first().waitFor();
    // Nothing admitted yet: the panel lists the files on their way, and no count of nothing ("0 of 0 done").
    expect(await page.getByTestId('activity').textContent()).toMatch(/^Uploading \d+/);
    expect(await page.locator('.activity-panel p').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Clear finished uploads' }).count()).toBe(0);
    await shot('activity-uploading');
    // The indicator's next look is held as the uploads are let through: they end before it looks,
    // and the file it refused is not taken for all there is ("1 problem").
    let look!: () => void;
    const looking = new Promise<void>((resolve) => (look = resolve));
    await page.route('**/api/v1/index/activity', async (route) => {
      await looking;
      await route.continue();
    });
    arrive();
    await page.locator('.upload[data-state=failed]').waitFor();
    await page.waitForFunction(() => document.querySelectorAll('.upload[data-state=uploading], .upload[data-state=waiting]').length === 0);
    expect(await page.getByTestId('activity').textContent()).toBe('Indexing');
    await shot('activity-uploads-taken-in');
    look();
    expect(await page.locator('.upload[data-state=failed]').textContent()).toMatch(/notes\.doc.*(legacy|Word)/i);
    await page
      .locator('[data-asset]')
      .nth(files.length - 1)
      .waitFor();
    await shot('library-indexing');
    await page.waitForFunction((n) => document.querySelectorAll('[data-asset][data-status=completed]').length === n, files.length, {
      timeout: 240_000,
      polling: 500,
    });
    await shot('library');
    expect(await page.locator('[data-asset] img').count()).toBe(files.length);
    // A page is taller than its tile: the tile shows the top of the book's first page (its title),
    // a photo its middle.
    const position = (name: string) => page.locator(`[data-name="${name}"] img`).evaluate((img) => getComputedStyle(img).objectPosition);
    expect(await position('carroll-wonderland.pdf')).toBe('50% 0%');
    expect(await position('chelsea.png')).toBe('50% 50%');
  }, 300_000);

  it('says what was not indexed once per file, with why, and is used with the keyboard', async () => {
    const key = app.t.key('library-problems');
    // Every stage asked for: extraction fails (a password), and the six stages after it cannot run.
    const locked = (await app.t.index(key, corpus('docs/a-text-pass-peanuts.pdf'))).video_id as string;
    await seed(app.t, key, ['scenes/skimage/chelsea.png'], { faces: false, objects: false, ocr: false, people: false });
    const { page, shot } = await app.open(key);
    const indicator = page.getByTestId('activity');
    await indicator.filter({ hasText: '1 problem' }).waitFor();
    await indicator.focus();
    await page.keyboard.press('Enter');
    const files = page.locator('.failed-runs li');
    await files.first().waitFor();
    expect(await files.count()).toBe(1);
    const line = (await files.first().textContent()) ?? '';
    expect(line).toMatch(/a-text-pass-peanuts\.pdf — reading the file: the PDF needs a password to open/);
    // Nothing of a file that cannot be read is looked at: the stages held back are not listed.
    expect(line).not.toMatch(/so no/);
    expect(await page.getByRole('heading', { name: /Not indexed \(1 file\)/ }).count()).toBe(1);
    // A password does not go away on another try: no button offers one, and the panel says why.
    expect(await page.locator('.activity-panel button', { hasText: /again|Retry/ }).count()).toBe(0);
    expect(await page.locator('.activity-panel .lasting-hint').textContent()).toMatch(/It is stopped by the file itself: another try ends the same way/);
    // What waits for an optional model (the photo's captions and embeddings): the way to it is a link.
    // Counted as files, the verb agreeing: "2 files wait", "1 file waits".
    expect(await page.locator('.activity-panel p').first().textContent()).toMatch(/ · 2 files wait for an optional model \(Settings\)/);
    expect(await page.locator('.activity-panel').getByRole('link', { name: 'Settings' }).getAttribute('href')).toBe('#/settings');
    await shot('activity-problems');
    expect(await accessibilityProblems(page)).toEqual([]);
    // Into the panel and out with Esc: the focus goes back to the indicator.
    await page.getByRole('link', { name: 'a-text-pass-peanuts.pdf' }).focus();
    await page.keyboard.press('Escape');
    await page.locator('.activity-panel').waitFor({ state: 'detached' });
    expect(await indicator.evaluate((el) => el === document.activeElement)).toBe(true);
    // Seen, a failure another try would not clear no longer calls for attention (and not after a reload).
    expect(await indicator.textContent()).toMatch(/^1 not indexed/);
    expect(await indicator.getAttribute('class')).not.toMatch(/has-failed/);
    await page.reload();
    await indicator.filter({ hasText: '1 not indexed' }).waitFor();
    // Nothing is being indexed: no bar, which would say something still is.
    expect(await indicator.locator('progress').count()).toBe(0);
    await indicator.focus();
    // The file's link opens it in the viewer.
    await page.keyboard.press('Enter');
    await page.getByRole('link', { name: 'a-text-pass-peanuts.pdf' }).click();
    await page.waitForFunction((id) => window.location.hash.startsWith(`#/view/${id}`), locked);
    // The panel closes as the file opens; the viewer says why the document has no pages.
    await page.locator('.activity-panel').waitFor({ state: 'detached' });
    await page.locator('.picture-pending').filter({ hasText: 'could not be read' }).waitFor();
    expect(await page.locator('.picture-pending').textContent()).toBe('This document could not be read: the PDF needs a password to open.');
    expect(await page.getByTestId('info-failures').textContent()).toBe('reading the file: the PDF needs a password to open');
    await shot('viewer-locked-pdf');

    // A file that was gone when its turn came (its drive unplugged) is offered another try.
    await app.t.api('POST', '/index/pause', { key });
    const gone = (
      await app.t.upload(key, corpus('scenes/skimage/coins.png'), { options: JSON.stringify({ faces: false, objects: false, ocr: false, people: false }) })
    ).body.data.video_id as string;
    const original = path.join(app.t.dataDir, 'assets', gone, 'original.png');
    fs.renameSync(original, `${original}.away`);
    await app.t.api('POST', '/index/resume', { key });
    await app.t.waitCompleted(key, gone);
    await page.keyboard.press('Escape');
    await page.waitForFunction(() => !window.location.hash.startsWith('#/view/'));
    // A new failure calls for attention again.
    await indicator.filter({ hasText: '2 problems' }).waitFor();
    expect(await indicator.getAttribute('class')).toMatch(/has-failed/);
    await indicator.focus();
    await page.keyboard.press('Enter');
    const again = page.locator('.activity-panel').getByRole('button', { name: 'Try 1 file again' });
    await again.waitFor();
    expect(await page.locator('.activity-panel .lasting-hint').textContent()).toMatch(/The others are stopped by the file itself/);
    expect(await page.locator('.failed-runs li[data-retryable=true]').textContent()).toMatch(/coins\.png — reading the file: the stored original is gone/);
    await shot('activity-try-again');
    expect(await accessibilityProblems(page)).toEqual([]);
    // Back in place, and tried again from the keyboard: only the password-locked file is left.
    fs.renameSync(`${original}.away`, original);
    await again.focus();
    await page.keyboard.press('Enter');
    await page.getByText('Indexing 1 file again.').waitFor();
    await app.t.waitCompleted(key, gone);
    await indicator.filter({ hasText: '1 not indexed' }).waitFor();

    // A damaged picture opened: why it shows nothing, where the picture would be and in its info.
    const cut = new Uint8Array(fs.readFileSync(corpus('scenes/skimage/chelsea.png')).subarray(0, 3000));
    const broken = (await app.t.upload(key, { name: 'broken.png', data: cut })).body.data.video_id as string;
    await app.t.waitCompleted(key, broken);
    await page.evaluate((id) => (window.location.hash = `#/view/${id}`), broken);
    // The panel left open closes with the screen it was opened over.
    await page.locator('.activity-panel').waitFor({ state: 'detached' });
    const pending = page.locator('.picture-pending');
    await pending.filter({ hasText: 'could not be read' }).waitFor();
    expect(await pending.textContent()).toMatch(/^This picture could not be read: the file is damaged \(.+\)\.$/);
    expect(await page.getByTestId('info-failures').textContent()).toMatch(/^reading the file: the file is damaged/);
    // Nothing is shown, so nothing is offered to turn, and r turns nothing.
    expect(await page.getByRole('button', { name: /^turn clockwise/ }).count()).toBe(0);
    await page.keyboard.press('r');
    expect((await app.t.api('GET', `/videos/${broken}`, { key })).body.data.orientation_set).toBeNull();
    await shot('viewer-unreadable');
    expect(await accessibilityProblems(page)).toEqual([]);
    // Back in the library, its tile says what the file is and that it cannot be read (no picture, no kind in capitals).
    await page.keyboard.press('Escape');
    const tile = page.locator(`[data-asset="${broken}"]`);
    await tile.locator('.tile-unreadable').waitFor();
    expect(await tile.locator('.tile-unreadable').evaluate((el) => [...el.children].map((c) => getComputedStyle(c, '::before').content))).toEqual([
      'none',
      '"broken.png"',
      '"can\'t be read"',
    ]);
    expect(await tile.locator('.badge-failed').getAttribute('title')).toBe("can't be read (the info panel says why)");
    expect(await tile.getAttribute('aria-label')).toMatch(/^broken\.png, .*can't be read/);
    // The indicator learns of the file added meanwhile (by a script here) as soon as the library
    // lists it, not at its next look when idle (10 s).
    await indicator.filter({ hasText: '2 problems' }).waitFor({ timeout: 4000 });
    await shot('library-unreadable');

    // A video copied only in part is shown as far as it goes, and its info says so.
    const part = new Uint8Array(fs.readFileSync(corpus('video/forensics/movie-hello.mp4')).subarray(0, 60_000));
    const partId = (await app.t.upload(key, { name: 'part.mp4', data: part }, { options: JSON.stringify({ faces: false, ocr: false, people: false }) })).body
      .data.video_id as string;
    await app.t.waitCompleted(key, partId);
    await page.evaluate((id) => (window.location.hash = `#/view/${id}`), partId);
    await page.getByTestId('info-damaged').waitFor();
    expect(await page.getByTestId('info-damaged').textContent()).toMatch(/^the file ends after 0\.\d s of its 8\.3 s: it may have been copied only in part$/);
    // No transcript without the speech model: said so, with the way to it.
    expect(await page.getByText('No transcript:').textContent()).toBe('No transcript: the speech model is not installed (Settings).');
    await shot('viewer-video-in-part');
  }, 120_000);

  it('shows the library as a timeline by month, narrows it with a chip, and shows the place in the info panel', async () => {
    const key = app.t.key('library-timeline');
    const dir = tempDir('mi-e2e-dated-');
    // A photo taken this month: the newest month on the scrubber.
    const recent = path.join(dir, 'fruits.jpg');
    fs.copyFileSync(corpus('scenes/opencv/fruits.jpg'), recent);
    const now = new Date().toISOString().slice(0, 19).replace(/-/g, ':').replace('T', ' ');
    execFileSync('exiftool', ['-q', '-overwrite_original', `-DateTimeOriginal=${now}`, recent]);
    await seed(app.t, key, [recent]);
    const { page, shot } = await app.open(key);
    await dropOnLibrary(page, dropped(datedPhotos(dir)));
    // Every month has its heading, newest first: March 2021 above July 2019, both below this month;
    // the scrubber labels each year.
    await page.locator('.month[data-month="2019-07"]').waitFor({ timeout: 120_000 });
    await page.locator('.month[data-month="2021-03"]').waitFor({ timeout: 120_000 });
    const order = await page.locator('.month').evaluateAll((els) => els.map((e) => e.getAttribute('data-month')));
    expect(order.indexOf('2021-03')).toBeLessThan(order.indexOf('2019-07'));
    expect(order.indexOf('2021-03')).toBeGreaterThan(0);
    const years = await page.locator('.scrubber-year').allTextContents();
    expect(years.slice(-2)).toEqual(['2021', '2019']);
    const july = page.locator('.month[data-month="2019-07"]');
    expect(await july.locator('small').textContent()).toBe('2');
    await page.locator('[data-asset][data-name="paris-louvre.jpg"]').waitFor();
    await shot('library-timeline');
    // In a window of the narrowest width the app takes, the filters run past the row: they scroll
    // sideways, their end faded while more are to the right; the buttons keep one line.
    // (A collection adds its chip to the three of this library.)
    expect((await app.t.api('POST', '/collections', { key, json: { name: 'Trips abroad' } })).status).toBe(201);
    await page.reload();
    await page.getByLabel('filter by collection').waitFor();
    await page.setViewportSize({ width: 1024, height: 800 });
    const chips = page.getByRole('toolbar', { name: 'filters' });
    await page.locator('.chips.chips-more').waitFor();
    expect((await page.getByRole('button', { name: 'Add a folder…' }).boundingBox())!.height).toBeLessThan(40);
    await shot('library-narrow');
    await chips.evaluate((el) => el.scrollTo({ left: el.scrollWidth }));
    await page.waitForFunction(() => !document.querySelector('.chips')?.classList.contains('chips-more'));
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.waitForFunction(() => !document.querySelector('.chips')?.classList.contains('chips-more'));

    await page.getByLabel('filter by place').selectOption('Paris');
    await page.waitForFunction(() => window.location.hash.includes('place=Paris'));
    await page.getByText('2 items', { exact: true }).waitFor();
    await page.locator('[data-asset][data-name="paris-evening.jpg"]').waitFor();
    expect(await page.locator('[data-asset]').count()).toBe(2);
    expect(await page.locator('.month').count()).toBe(1);
    await shot('library-filtered');
    // The filter is in the address: the back button takes it off.
    await page.goBack();
    await page.locator('.month[data-month="2021-03"]').waitFor();

    await page.locator('[data-asset][data-name="tokyo-street.jpg"]').click();
    await page.getByTestId('info').waitFor();
    expect(await page.getByTestId('info-place').textContent()).toBe('Tokyo, Japan');
    expect(await page.getByTestId('info-taken').textContent()).toMatch(/2021/);
    // The file's size as a file manager says it, in kilobytes of 1,000 bytes.
    expect(await page.getByTestId('info-file-size').textContent()).toBe(`${Math.round(fs.statSync(path.join(dir, 'tokyo-street.jpg')).size / 1e3)} kB`);
    await shot('viewer-info');
    // The place links to the library narrowed to it.
    await page.getByTestId('info-place').click();
    await page.getByText('1 item', { exact: true }).waitFor();
    // The count comes with the months; the cards with the first page, a moment later.
    await page.locator('[data-asset][data-name="tokyo-street.jpg"]').waitFor();
    expect(await page.locator('[data-asset]').count()).toBe(1);
    fs.rmSync(dir, { recursive: true, force: true });
  }, 180_000);

  it("says in the info panel while a photo's text and metadata are still to be read, and nothing once it is indexed", async () => {
    const key = app.t.key('library-phase');
    expect((await app.t.api('POST', '/index/pause', { key })).status).toBe(200);
    const up = await app.t.upload(key, corpus('scenes/skimage/coffee.png'));
    const id = up.body.data.video_id as string;
    const { page, shot } = await app.open(key, `#/view/${id}`);
    await page.getByTestId('info-phase').waitFor();
    expect(await page.getByTestId('info-phase').textContent()).toBe('reading its text and metadata');
    // The top bar says indexing is paused, and the empty place says where to resume it.
    await page.getByTestId('activity').filter({ hasText: 'Paused' }).waitFor();
    expect(await page.locator('.stage .picture-pending').textContent()).toBe(
      'The picture is shown once it has been read. Indexing is paused: resume it from the top bar.',
    );
    // No picture yet: nothing to zoom, so no zoom control over the empty place.
    expect(await page.getByTestId('zoom-level').count()).toBe(0);
    await shot('viewer-info-reading');
    expect((await app.t.api('POST', '/index/resume', { key })).status).toBe(200);
    await app.t.waitCompleted(key, id);
    // The open viewer follows without a reload: the picture comes, the indexing row goes.
    await page.locator('.stage img').waitFor({ timeout: 15_000 });
    await page.getByTestId('info-phase').waitFor({ state: 'detached', timeout: 15_000 });
    expect(await page.getByTestId('info-phase').count()).toBe(0);
    // The top bar notices the resume made elsewhere (here through the API) too.
    await page.getByText('Paused').waitFor({ state: 'detached', timeout: 15_000 });
    await shot('viewer-info-read');
    expect(await page.getByTestId('zoom-level').textContent()).toContain('Fit');
    expect(await page.locator('.stage .picture-pending').count()).toBe(0);
  }, 120_000);

  it('uploads a folder dropped from disk (real file handles: walked, hidden files left out) and one picked with the folder chooser', async () => {
    const key = app.t.key('library-folders');
    const { page } = await app.open(key);
    const dir = tempDir('mi-e2e-drop-');
    try {
      fs.mkdirSync(path.join(dir, 'trip', 'day 2'), { recursive: true });
      fs.copyFileSync(corpus('scenes/skimage/coffee.png'), path.join(dir, 'trip', 'coffee.png'));
      fs.copyFileSync(corpus('docs/a-text.pdf'), path.join(dir, 'trip', 'day 2', 'a-text.pdf'));
      fs.writeFileSync(path.join(dir, 'trip', '.DS_Store'), 'x');
      fs.mkdirSync(path.join(dir, 'scans', '.git'), { recursive: true });
      fs.copyFileSync(corpus('scenes/skimage/camera.png'), path.join(dir, 'scans', 'camera.png'));
      fs.writeFileSync(path.join(dir, 'scans', '.git', 'HEAD'), 'ref');
      const library = page.getByTestId('library');
      await library.waitFor();
      const box = (await library.boundingBox())!;
      // A drop as the OS makes it: Chromium gets the paths and gives the page file-system entries.
      const cdp = await page.context().newCDPSession(page);
      const data = { items: [], files: [path.join(dir, 'trip')], dragOperationsMask: 1 };
      for (const type of ['dragEnter', 'dragOver', 'drop'] as const) {
        await cdp.send('Input.dispatchDragEvent', { type, x: box.x + box.width / 2, y: box.y + 80, data });
      }
      await page.getByTestId('activity').click();
      const done = (name: string) => page.locator('.upload[data-state=done]', { hasText: name }).first().waitFor({ timeout: 60_000 });
      await done('coffee.png');
      await done('a-text.pdf');
      expect(await page.locator('.upload', { hasText: '.DS_Store' }).count()).toBe(0);
      // The folder chooser of the browser.
      await page.getByTestId('folder-input').setInputFiles(path.join(dir, 'scans'));
      await done('camera.png');
      expect(await page.locator('.upload', { hasText: 'HEAD' }).count()).toBe(0);
      const names = (await app.t.api('GET', '/videos?limit=200', { key })).body.data.map((a: { file_name: string }) => a.file_name);
      expect(names.sort()).toEqual(['a-text.pdf', 'camera.png', 'coffee.png']);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('shows a photo stored sideways upright, in the library and the viewer, its face boxes turned with it', async () => {
    const key = app.t.key('library-sideways');
    const { page, shot } = await app.open(key);
    // Taken wider than tall (1920 × 1280), stored turned a quarter clockwise, with no EXIF orientation.
    const card = await addMadePhoto(page, 'sideways.jpg', (file) => sharp(corpus('faces/face-api-samples/sample1.jpg')).rotate(90).jpeg().toFile(file));
    const id = await card.getAttribute('data-asset');
    const detail = (await app.t.api('GET', `/videos/${id}`, { key })).body.data;
    expect(detail.orientation_detected).toBe(270);
    expect(await card.locator('img').getAttribute('class')).toBe('turn-270');
    await card.click();
    await page.getByTestId('viewer').waitFor();
    const turned = page.locator('.boxed.turned[data-turn="270"]');
    await turned.waitFor();
    expect(await turned.locator('.box-face').count()).toBeGreaterThan(0);
    // Upright: the frame is wider than tall, as the photo was taken, though stored taller than wide.
    const frame = (await turned.boundingBox())!;
    expect(frame.width / frame.height).toBeCloseTo(1920 / 1280, 1);
    await shot('viewer-turned');
    // The owner turns it from the keyboard: a quarter clockwise (r) shows it upside down from the
    // detected way (270 + 90 = 0: as stored, taller than wide), kept in the index; Shift+R turns it back.
    await page.keyboard.press('r');
    const asStored = page.locator('.boxed:not(.turned)');
    await asStored.waitFor();
    await expect.poll(async () => (await app.t.api('GET', `/videos/${id}`, { key })).body.data.orientation_set).toBe(0);
    const tall = (await asStored.boundingBox())!;
    expect(tall.height / tall.width).toBeCloseTo(1920 / 1280, 1);
    await shot('viewer-turned-by-owner');
    // Reloaded, it stays as the owner left it; the button turns it on.
    await page.reload();
    await page.locator('.boxed:not(.turned)').waitFor();
    await page.getByRole('button', { name: /turn clockwise/ }).click();
    await page.locator('.boxed.turned[data-turn="90"]').waitFor();
    await page.keyboard.press('Shift+R');
    await page.keyboard.press('Shift+R');
    await page.locator('.boxed.turned[data-turn="270"]').waitFor();
    await expect.poll(async () => (await app.t.api('GET', `/videos/${id}`, { key })).body.data.orientation_set).toBe(270);
  }, 180_000);
});

describe('the indexing panel while a long run goes', () => {
  let app: App;
  const hold = holdingEnds('ocr');
  const before = process.env.MEDIA_INDEX_PROGRESS_MS;
  beforeAll(async () => {
    // Every report of the indexer processes passed on.
    process.env.MEDIA_INDEX_PROGRESS_MS = '0';
    app = await startApp({}, undefined, hold.launch);
  }, 120_000);
  afterAll(async () => {
    hold.release();
    await app?.close();
    if (before === undefined) delete process.env.MEDIA_INDEX_PROGRESS_MS;
    else process.env.MEDIA_INDEX_PROGRESS_MS = before;
  });

  it('says in its panel which file each run under way reads and how far it has got, with the keyboard', async () => {
    const key = app.t.key('activity-running');
    // Three pages whose text layer is broken (Devanagari read as Latin): each is read by OCR, whose end is held back.
    const options = JSON.stringify({ faces: false, objects: false, people: false, ocr: true });
    const up = await app.t.upload(key, corpus('ocr/hindi-pdf/examples.pdf'), { options });
    expect(up.status).toBe(201);
    await expect.poll(() => hold.held(), { timeout: 90_000, interval: 200 }).toBe(1);
    const { page, shot } = await app.open(key);
    const indicator = page.getByTestId('activity');
    await indicator.filter({ hasText: 'Indexing 0 of 1 · text in pictures' }).waitFor();
    await indicator.focus();
    await page.keyboard.press('Enter');
    const run = page.locator('.running-runs li');
    await run.first().waitFor();
    expect(await run.count()).toBe(1);
    // Told as the run goes: the panel, polled, shows the last of the pages read.
    await expect.poll(() => run.first().textContent()).toBe('examples.pdf — text in pictures, 3 of 3 pages');
    const bar = run.first().getByRole('progressbar', { name: 'text in pictures of examples.pdf' });
    expect(await bar.getAttribute('value')).toBe('3');
    expect(await bar.getAttribute('max')).toBe('3');
    // The run listed is not said again in the stages' queue ("text in pictures: 1 running, 0 waiting").
    expect(await page.locator('.activity-panel .stage-queue').count()).toBe(0);
    await shot('activity-running');
    expect(await accessibilityProblems(page)).toEqual([]);
    // Once the run ends, nothing is said under way.
    hold.release();
    await page.locator('.running-runs').waitFor({ state: 'detached', timeout: 60_000 });
    await page.keyboard.press('Escape');
    await page.locator('.activity-panel').waitFor({ state: 'detached' });
  }, 180_000);
});
