// Search results laid out for what they are, and their evidence, in Chromium on corpus files: a
// photo grid and document rows for "cat", an understood chip taken away, more results loaded at the
// end, a PDF hit opened with the query's word marked on the page and `n` to the next page found, a
// video's transcript following playback (a Whisper stand-in that hears "Hello" where speech starts;
// see test/transcript.test.ts) and a click on a line seeking; the keyboard throughout, and axe-core.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { tempDir } from '../test/helpers/server.ts';
import { installHelloWhisper, useManifest } from '../test/helpers/tiny-onnx.ts';
import { accessibilityProblems, corpus, datedPhotos, seed, startApp, type App } from './harness.ts';

const WHISPER_META = fileURLToPath(new URL('../../shared/models-meta/Xenova/whisper-tiny', import.meta.url));
const QUICK = { ocr: false, objects: false, labels: false, faces: false, people: false };

describe('search results and evidence', () => {
  let app: App;
  let key: string;
  const ids: Record<string, string> = {};
  beforeAll(async () => {
    app = await startApp({}, (data) => useManifest(installHelloWhisper(data, WHISPER_META)));
    key = app.t.key('results');
    const dir = tempDir('mi-e2e-results-');
    const eve = path.join(dir, 'christmas-eve.jpg');
    fs.copyFileSync(corpus('scenes/opencv/fruits.jpg'), eve);
    execFileSync('exiftool', ['-q', '-overwrite_original', '-DateTimeOriginal=2019:12:24 19:30:00', eve]);
    [ids.carroll, ids.chelsea, ids.docx] = (await seed(app.t, key, ['docs/carroll-wonderland.pdf', 'scenes/skimage/chelsea.png', 'office/example.docx'])).map(
      (a) => a.video_id,
    );
    await seed(app.t, key, [...datedPhotos(dir), eve], QUICK);
    ids.video = (await seed(app.t, key, ['video/forensics/movie-hello.mp4'], { people: false, ocr: false }))[0].video_id;
    // More beach photos than one page of results holds.
    for (let i = 0; i < 44; i++) {
      const file = path.join(dir, `beach-${String(i).padStart(2, '0')}.jpg`);
      await sharp({ create: { width: 96 + (i % 3) * 32, height: 96, channels: 3, background: { r: 40 + i * 4, g: 150, b: 200 } } })
        .jpeg()
        .toFile(file);
      await app.t.index(key, file, QUICK);
    }
    fs.rmSync(dir, { recursive: true, force: true });
  }, 600_000);
  afterAll(async () => app?.close());

  it('lays out photo hits as a grid and a document as one row with its pages; the keyboard moves, opens and comes back', async () => {
    const { page, shot } = await app.open(key, '#/search?q=cat');
    await page.locator('.result-photos .result-tile').first().waitFor();
    expect(await page.locator('.result-photos .result-tile').first().getAttribute('data-video')).toBe(ids.chelsea);
    // The cat's box starts at the top of the tile: its label is inside it, not cut off above.
    const tile = page.locator('.result-photos .result-tile').first();
    await tile.hover();
    const [label, frame] = await Promise.all([tile.locator('.tile-box-label').boundingBox(), tile.boundingBox()]);
    expect(label!.y).toBeGreaterThanOrEqual(frame!.y);
    const book = page.locator('.result-documents .result-row-item');
    expect(await book.count()).toBe(1);
    const snippets = book.locator('.page-snippets .snippet');
    expect(await snippets.count()).toBe(3);
    expect(await snippets.first().locator('mark').first().textContent()).toMatch(/^cat/i);
    // No engine recipe in the header: it is in the details.
    expect(await page.locator('.section-head h2').textContent()).not.toMatch(/bm25|rerank/);
    await shot('search-grouped');
    // How it searched: the recipe opens leftwards from its summary at the window's right edge, inside the window.
    await page.locator('.recipe summary').click();
    const recipe = (await page.locator('.recipe-body').boundingBox())!;
    expect(recipe.x).toBeGreaterThanOrEqual(0);
    expect(recipe.x + recipe.width).toBeLessThanOrEqual(page.viewportSize()!.width);
    // In words: what it looked for, and the related words it added for which word of the query.
    expect(await page.getByTestId('how').textContent()).toContain('Looked for “cat” in the text of pages');
    expect(await page.getByTestId('how-related').textContent()).toMatch(/^Also looked for related words, ranked below the words asked for: .+ for “cat”\.$/);
    await shot('search-how');
    expect(await accessibilityProblems(page)).toEqual([]);
    await page.locator('.recipe summary').click();
    const more = book.getByRole('button', { name: /more pages?$/ });
    const hidden = Number((await more.textContent())!.split(' ')[0]);
    expect(hidden).toBeGreaterThan(0);
    await more.click();
    expect(await snippets.count()).toBe(3 + hidden);
    expect(await accessibilityProblems(page)).toEqual([]);
    // The focus follows the cursor a frame after it is drawn.
    const focusedOn = (id: string) => page.waitForFunction((v) => document.activeElement?.closest('[data-video]')?.getAttribute('data-video') === v, id);
    // From outside the results, ↓ goes to the first of them; ↓ moves the cursor (focused, so in
    // view), Enter opens, Esc comes back to it.
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await page.keyboard.press('ArrowDown');
    await focusedOn(ids.chelsea);
    await page.keyboard.press('ArrowDown');
    await page.locator('.result-row-item.active').waitFor();
    await focusedOn(ids.carroll);
    await page.keyboard.press('Enter');
    await page.locator('[data-testid=viewer][data-kind=document]').waitFor();
    await page.keyboard.press('Escape');
    await page.locator('.result-row-item.active').waitFor();
    await focusedOn(ids.carroll);
    // Shift+↑ in the viewer: the result before; back at the results, the cursor is on it. The
    // document's page answers late (held 1.5 s) and the photo stepped to stays shown when it does.
    const pageUrl = new RegExp(`/videos/${ids.carroll}/pages/`);
    let answered = 0;
    await page.route(pageUrl, async (route) => {
      await new Promise((r) => setTimeout(r, 1500));
      await route.continue();
      answered += 1;
    });
    await page.keyboard.press('Enter');
    await page.locator('[data-testid=viewer][data-kind=document]').waitFor();
    await page.keyboard.press('Shift+ArrowUp');
    await page.waitForFunction((id) => window.location.hash.startsWith(`#/view/${id}`), ids.chelsea);
    await page.locator('[data-testid=viewer][data-kind=image]').waitFor();
    await expect.poll(() => answered, { timeout: 10_000 }).toBeGreaterThan(0);
    await page.waitForTimeout(300);
    expect(await page.locator('[data-testid=viewer]').getAttribute('data-kind')).toBe('image');
    await page.unroute(pageUrl);
    await page.keyboard.press('Escape');
    await page.locator('.result-tile.active').waitFor();
    await focusedOn(ids.chelsea);
  });

  it('shows what it understood as chips that take it away, counts the results in the filters, and narrows by a date range', async () => {
    const { page, shot } = await app.open(key, `#/search?q=${encodeURIComponent('photos in Paris 2019')}`);
    await page.locator('.understood-chip').first().waitFor();
    const labels = await page.locator('.understood-chip').allTextContents();
    expect(labels.map((l) => l.replace('×', '').trim()).sort()).toEqual(['in Paris', 'photos', 'taken in 2019']);
    expect(new Set(await page.locator('.result-tile').evaluateAll((ts) => ts.map((t) => t.getAttribute('aria-label')?.split(',')[0])))).toEqual(
      new Set(['paris-louvre.jpg', 'paris-evening.jpg']),
    );
    // The year chip counts these results, not the library.
    expect(await page.getByLabel('filter by year').locator('option').allTextContents()).toEqual(['all', '2019 (2)']);
    await shot('search-understood');
    await page.getByRole('button', { name: 'remove “in Paris”' }).click();
    await page.getByText('Results for “photos 2019”').waitFor();
    await page.locator('.result-tile[aria-label^="christmas-eve.jpg"]').waitFor();
    expect(await page.locator('.result-tile').count()).toBe(3);
    expect(await page.getByLabel('search').inputValue()).toBe('photos 2019');
    // A date range: from 20 July 2019 to 31 December 2019.
    await page.getByLabel('taken from').fill('2019-07-20');
    await page.waitForFunction(() => window.location.hash.includes('from=2019-07-20'));
    await page.getByLabel('taken to').fill('2019-12-31');
    await page.waitForFunction(() => document.querySelectorAll('.result-tile').length === 2);
    expect(new Set(await page.locator('.result-tile').evaluateAll((ts) => ts.map((t) => t.getAttribute('aria-label')?.split(',')[0])))).toEqual(
      new Set(['paris-evening.jpg', 'christmas-eve.jpg']),
    );
    // "christmas eve 2019": the day it names.
    await page.evaluate(() => (window.location.hash = '#/search?q=' + encodeURIComponent('christmas eve 2019')));
    await page.locator('.result-tile[aria-label^="christmas-eve.jpg"]').waitFor();
    expect(await page.locator('.result-tile').count()).toBe(1);
  });

  it('shows the best of each kind first, the whole list of each kind a link away, and loads more at the end of it', async () => {
    const { page, shot } = await app.open(key, '#/search?q=beach%20Cheshire');
    await page.locator('.result-documents .result-row-item').first().waitFor();
    // Photos and a document: the best of each, the photos capped, all of them a link away.
    expect(await page.locator('.result-tile').count()).toBe(14);
    expect(await page.getByRole('button', { name: 'Load more' }).count()).toBe(0);
    await shot('search-overview');
    await page.getByRole('link', { name: 'All 44 photos →' }).click();
    await page.waitForFunction(() => window.location.hash.includes('kind=image'));
    await page.waitForFunction(() => document.querySelectorAll('.result-tile').length === 40);
    expect(await page.getByTestId('result-count').textContent()).toBe('44 found');
    expect(await page.locator('.result-documents').count()).toBe(0);
    await page.getByRole('button', { name: 'Load more' }).scrollIntoViewIfNeeded();
    await page.waitForFunction(() => document.querySelectorAll('.result-tile').length === 44);
    const shown = await page.locator('.result-tile').evaluateAll((ts) => ts.map((t) => t.getAttribute('data-video')));
    expect(new Set(shown).size).toBe(44);
    expect(await page.getByRole('button', { name: 'Load more' }).count()).toBe(0);
    // Back: the overview again.
    await page.goBack();
    await page.locator('.result-documents .result-row-item').first().waitFor();
    expect(await page.locator('.result-tile').count()).toBe(14);
  });

  it('steps with → past the page of results loaded, through all that were found, counting them all', async () => {
    // The overview (photos and a document) shows the best 14 photos of the 40 results loaded; 45 were found.
    const { page, shot } = await app.open(key, '#/search?q=beach%20Cheshire');
    await page.locator('.result-documents .result-row-item').first().waitFor();
    expect(await page.getByTestId('result-count').textContent()).toBe('45 found');
    await page.locator('.result-tile').nth(13).click();
    await page.getByTestId('viewer').waitFor();
    await page
      .getByTestId('step-position')
      .and(page.getByText(/ of 45$/))
      .waitFor();
    const first = Number((await page.getByTestId('step-position').textContent())!.split(' ')[0]);
    expect(first).toBeLessThan(20);
    const seen = new Set<string>();
    for (let n = first + 1; n <= 45; n++) {
      await page.keyboard.press('ArrowRight');
      await page
        .getByTestId('step-position')
        .and(page.getByText(`${n} of 45`))
        .waitFor();
      seen.add(decodeURIComponent(/#\/view\/([^?]+)/.exec(page.url())![1]));
    }
    // Every step a result of its own, the last one reached.
    expect(seen.size).toBe(45 - first);
    expect(await page.getByRole('button', { name: 'next (→)' }).isDisabled()).toBe(true);
    await shot('viewer-past-page');
  });

  it('opens a PDF hit fitted to the width with the word marked on the page, and n goes to the next page with a hit', async () => {
    const { page, shot } = await app.open(key, '#/search?q=Cheshire');
    const row = page.locator('.result-documents .result-row-item').first();
    await row.waitFor();
    await row.locator('.result-main').click();
    await page.locator('[data-testid=viewer][data-kind=document]').waitFor();
    const first = Number(await page.getByLabel('page number').inputValue());
    await page.locator('.box-word').first().waitFor();
    expect(await page.locator('.box-word').first().getAttribute('title')).toMatch(/^cheshire$/i);
    // Fitted to the width: the page is as wide as its pane, and the marked word is in view.
    const fit = await page.evaluate(() => {
      const scroll = document.querySelector('[data-testid=doc-scroll]') as HTMLElement;
      const word = document.querySelector('.box-word') as HTMLElement;
      const s = scroll.getBoundingClientRect();
      const w = word.getBoundingClientRect();
      return { page: (scroll.firstElementChild as HTMLElement).offsetWidth, pane: scroll.clientWidth, inView: w.top >= s.top && w.bottom <= s.bottom };
    });
    expect(fit.page).toBe(fit.pane);
    expect(fit.inView).toBe(true);
    await page.waitForFunction(() => {
      const img = document.querySelector('.doc-page img') as HTMLImageElement | null;
      return img !== null && img.complete && img.naturalWidth > 0;
    });
    await shot('viewer-document-hit');
    expect(await accessibilityProblems(page)).toEqual([]);
    // Zoom in with +, out to the width with Ctrl+0.
    await page.keyboard.press('+');
    expect(await page.getByTestId('zoom-level').textContent()).toContain('125%');
    await page.keyboard.press('Control+0');
    expect(await page.getByTestId('zoom-level').textContent()).toContain('Fit width');
    // n: the next page the search found (its strip lists them), N the one before.
    const pages = (await page.locator('.page-strip .page-no').allTextContents()).map((x) => Number(x.replace('p. ', '')));
    expect(pages.length).toBeGreaterThan(1);
    const next = pages.find((p) => p > first);
    const [there, step] = next !== undefined ? [next, 'n'] : [pages.filter((p) => p < first).at(-1)!, 'Shift+N'];
    await page.keyboard.press(step);
    await page
      .getByLabel('page number')
      .and(page.locator(`[value="${there}"]`))
      .waitFor();
    await page.locator('.box-word').first().waitFor();
    expect(await page.locator('.page-strip [aria-current=page]').textContent()).toContain(`p. ${there}`);
    await page.keyboard.press(step === 'n' ? 'Shift+N' : 'n');
    await page
      .getByLabel('page number')
      .and(page.locator(`[value="${first}"]`))
      .waitFor();
  });

  it('says when nothing matches, and that search by meaning needs its models where they are not installed', async () => {
    const { page, shot } = await app.open(key, '#/search?q=zyzzyva');
    const nothing = page.getByTestId('nothing-found');
    await nothing.waitFor();
    expect(await nothing.textContent()).toMatch(/^Nothing in the library matches “zyzzyva”\. Only its words were looked for\. .+ in Settings\.$/);
    await shot('search-nothing');
    expect(await accessibilityProblems(page)).toEqual([]);
    await nothing.getByRole('link', { name: 'Settings' }).click();
    await page.waitForFunction(() => window.location.hash === '#/settings');
  });

  it('opens an office document hit on its page with the word marked in the text', async () => {
    const { page } = await app.open(key, '#/search?q=Phasellus');
    const row = page.locator(`.result-documents .result-row-item[data-video="${ids.docx}"]`);
    await row.waitFor();
    await row.locator('.result-main').click();
    await page.locator('[data-testid=viewer][data-kind=document]').waitFor();
    await page.locator('.doc-page .sheet mark').first().waitFor();
    expect(await page.locator('.doc-page .sheet mark').first().textContent()).toBe('Phasellus');
    expect(await page.getByTestId('zoom-level').textContent()).toContain('Fit width');
  });

  it('plays a video hit with its transcript following playback, the line marked, and a click on a line seeking', async () => {
    const { page, shot } = await app.open(key, '#/search?q=hello');
    const row = page.locator('.result-videos .result-row-item').first();
    await row.waitFor();
    expect(await row.locator('.moment-mark').count()).toBeGreaterThan(0);
    await row.locator('.result-main').click();
    await page.locator('[data-testid=viewer][data-kind=video]').waitFor();
    const line = page.locator('ol.transcript li').first();
    await line.waitFor();
    expect(await line.locator('mark').textContent()).toBe('Hello');
    // The player is the picture: no still keyframe repeats it underneath.
    expect(await page.locator('[data-testid=zoom-pane]').count()).toBe(0);
    // The face seen at a keyframe is drawn over the playing video at that time.
    const regions = (await app.t.api('GET', `/videos/${ids.video}/regions`, { key })).body.data;
    expect(regions.faces.length).toBeGreaterThan(0);
    const seen = regions.at.find((a: { region_id: string }) => a.region_id === regions.faces[0].face_id).timestamp as number;
    await page.evaluate((t) => ((document.querySelector('video.player') as HTMLVideoElement).currentTime = t + 0.2), seen);
    await page.locator('.player-boxes .box-face').first().waitFor();
    // Paused before the line: not marked; played into it: marked, and the header says where.
    await page.evaluate(() => {
      const v = document.querySelector('video.player') as HTMLVideoElement;
      v.muted = true;
      v.currentTime = 0.1;
    });
    await page.waitForFunction(() => document.querySelector('ol.transcript li.current') === null);
    await page.evaluate(() => void (document.querySelector('video.player') as HTMLVideoElement).play());
    await page.locator('ol.transcript li.current').waitFor({ timeout: 10_000 });
    await page.evaluate(() => (document.querySelector('video.player') as HTMLVideoElement).pause());
    expect(await page.getByTestId('playing-at').textContent()).toMatch(/^at 0:0\d of 0:\d\d$/);
    await shot('viewer-video-hit');
    // Away, then a click on the line plays from where it was said.
    await page.evaluate(() => ((document.querySelector('video.player') as HTMLVideoElement).currentTime = 5));
    await page.waitForFunction(() => document.querySelector('ol.transcript li.current') === null);
    await line.getByRole('button').click();
    await page.waitForFunction(() => {
      const v = document.querySelector('video.player') as HTMLVideoElement;
      return v.currentTime >= 0.5 && v.currentTime < 2;
    });
    await page.locator('ol.transcript li.current').waitFor();
    // Search inside the transcript.
    await page.getByLabel('find in the transcript').fill('goodbye');
    expect(await page.locator('ol.transcript li').count()).toBe(0);
    await page.getByLabel('find in the transcript').fill('hel');
    expect(await page.locator('ol.transcript li').count()).toBeGreaterThan(0);
    expect(await accessibilityProblems(page)).toEqual([]);
  });
});
