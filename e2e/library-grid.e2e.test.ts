// The library as a photo library: a justified grid at several sizes, the scrubber, selection and
// the selection bar (collections, delete with undo), the viewer's ←/→ through the list it came
// from, Esc back to the same place, zoom to 1:1; axe-core on Library, Viewer and Collections.
// A hundred photos of several shapes over three years, indexed through the API (extraction and dates only).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import type { Page } from 'playwright-core';
import { EXTRACT_ONLY, tempDir } from '../test/helpers/server.ts';
import { accessibilityProblems, corpus, seed, startApp, type App } from './harness.ts';

const SOURCES = [
  'building.jpg',
  'home.jpg',
  'leuvenA.jpg',
  'fruits.jpg',
  'baboon.jpg',
  'butterfly.jpg',
  'orange.jpg',
  'starry_night.jpg',
  'stuff.jpg',
  'board.jpg',
];
const SHAPES: Array<[number, number]> = [
  [900, 600],
  [600, 900],
  [800, 800],
  [1200, 500],
  [640, 480],
];

/** `n` photos of several shapes: thirty in June 2024, thirty in May, then four a month back into 2022. */
async function photos(dir: string, n: number): Promise<Array<{ file: string; month: string }>> {
  const out: Array<{ file: string; month: string }> = [];
  const args: string[] = [];
  for (let i = 0; i < n; i++) {
    const [w, h] = SHAPES[i % SHAPES.length];
    const file = path.join(dir, `photo-${String(i).padStart(2, '0')}.jpg`);
    await sharp(corpus(`scenes/opencv/${SOURCES[i % SOURCES.length]}`))
      .resize(w, h, { fit: 'cover' })
      .jpeg({ quality: 80 })
      .toFile(file);
    const back = i < 60 ? Math.floor(i / 30) : 2 + Math.floor((i - 60) / 4) * 2;
    const d = new Date(Date.UTC(2024, 5 - back, 1 + (i % 28)));
    const month = d.toISOString().slice(0, 7);
    args.push(`-DateTimeOriginal=${d.toISOString().slice(0, 10).replace(/-/g, ':')} 12:00:00`, file, '-execute');
    out.push({ file, month });
  }
  fs.writeFileSync(path.join(dir, 'args.txt'), ['-q', '-overwrite_original', ...args].join('\n'));
  execFileSync('exiftool', ['-@', path.join(dir, 'args.txt'), '-common_args', '-q', '-overwrite_original']);
  return out;
}

const tiles = (page: Page) => page.locator('[role=gridcell][data-asset]');
/** Tiles wholly inside the timeline's visible area. */
const inView = (page: Page) =>
  page.evaluate(() => {
    const box = document.querySelector('[data-testid=timeline]')!.getBoundingClientRect();
    return [...document.querySelectorAll('[role=gridcell][data-asset]')].filter((t) => {
      const r = t.getBoundingClientRect();
      return r.top >= box.top - 1 && r.bottom <= box.bottom + 1;
    }).length;
  });

describe('the library as a photo library', () => {
  let app: App;
  let key: string;
  let made: Array<{ file: string; month: string }>;
  let dir: string;
  beforeAll(async () => {
    app = await startApp();
    key = app.t.key('library-grid');
    dir = tempDir('mi-e2e-grid-');
    made = await photos(dir, 100);
    await seed(
      app.t,
      key,
      made.map((m) => m.file),
      JSON.parse(EXTRACT_ONLY),
    );
  }, 300_000);
  afterAll(async () => {
    await app?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('lays pictures out in justified rows at the size chosen, 30 or more at 1280 × 800, remembered', async () => {
    const { page, shot } = await app.open(key);
    await tiles(page).first().locator('img').waitFor();
    await page.waitForFunction(() => [...document.querySelectorAll('[role=gridcell] img')].length > 20);
    await shot('library');
    const normal = await inView(page);
    expect(normal).toBeGreaterThanOrEqual(30);
    // Rows fill the width: the right edges of a full row's last pictures line up.
    const edges = await page.evaluate(() =>
      [...document.querySelectorAll('.justified')].slice(0, 3).map((r) => {
        const last = r.lastElementChild!.getBoundingClientRect();
        return Math.round(last.right);
      }),
    );
    expect(Math.max(...edges) - Math.min(...edges)).toBeLessThanOrEqual(4);
    await shot('library');
    await page.keyboard.press('Control+=');
    await page.keyboard.press('Control+=');
    const large = await inView(page);
    expect(large).toBeLessThan(normal);
    await shot('library-large');
    await page.getByLabel('picture size').fill('0');
    const small = await inView(page);
    expect(small).toBeGreaterThan(normal);
    await shot('library-small');
    await page.reload();
    await tiles(page).first().waitFor();
    expect(await page.getByLabel('picture size').inputValue()).toBe('0');
    expect(await inView(page)).toBe(small);
  }, 120_000);

  it('scrubs: every year labelled, a bubble with the month while dragging, the timeline lands on that month', async () => {
    const { page } = await app.open(key);
    await tiles(page).first().waitFor();
    const years = await page.locator('.scrubber-year').allTextContents();
    expect(years).toEqual(['2024', '2023', '2022']);
    const bar = (await page.getByTestId('scrubber').boundingBox())!;
    const x = bar.x + bar.width / 2;
    await page.mouse.move(x, bar.y + 4);
    await page.mouse.down();
    await page.mouse.move(x, bar.y + bar.height * 0.7, { steps: 8 });
    const bubble = (await page.getByTestId('scrubber-bubble').textContent())!;
    expect(bubble).toMatch(/20(23|22)/);
    await page.screenshot({ path: 'e2e/screenshots/library-scrubbing.png' });
    await page.mouse.up();
    // The month's heading is at the top of the timeline.
    await page.waitForFunction((label) => {
      const top = document.querySelector('[data-testid=timeline]')!.getBoundingClientRect().top;
      return [...document.querySelectorAll('.month')].some((h) => h.textContent!.startsWith(label) && Math.abs(h.getBoundingClientRect().top - top) < 20);
    }, bubble);
    // Its pictures are shown, their page loaded on the way.
    await page.waitForFunction(() => {
      const box = document.querySelector('[data-testid=timeline]')!.getBoundingClientRect();
      const shown = [...document.querySelectorAll('[role=gridcell][data-asset]')].filter(
        (t) => t.getBoundingClientRect().top < box.bottom && t.getBoundingClientRect().bottom > box.top,
      );
      return shown.length > 0 && shown.every((t) => t.querySelector('img'));
    });
  }, 60_000);

  it('selects a range with Shift, puts it in a new collection shown as a chip, and deletes with an undo', async () => {
    const { page, shot } = await app.open(key);
    await tiles(page).first().locator('img').waitFor();
    await page.locator('[data-offset="2"] .tile-check').click();
    await page.locator('[data-offset="7"]').click({ modifiers: ['Shift'] });
    expect(await page.getByTestId('selection-count').textContent()).toBe('6 selected');
    const selected = await page.locator('[role=gridcell][aria-selected=true]').evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-offset'))));
    expect(selected).toEqual([2, 3, 4, 5, 6, 7]);
    await shot('library-selection');
    expect(await accessibilityProblems(page)).toEqual([]);

    await page.getByTestId('add-to-collection').click();
    await page.getByRole('button', { name: 'New collection…' }).click();
    await page.getByLabel('new collection name').fill('Spring walk');
    await page.keyboard.press('Enter');
    await page.getByText('6 items put in the new collection Spring walk.').waitFor();
    await page.getByTestId('selection-bar').waitFor({ state: 'detached', timeout: 5000 });

    await page.getByRole('link', { name: 'Collections' }).click();
    const card = page.locator('.collection-card', { hasText: 'Spring walk' });
    await card.getByText('6 items').waitFor();
    await shot('collections');
    expect(await accessibilityProblems(page)).toEqual([]);
    await card.locator('a').click();
    await page.waitForFunction(() => window.location.hash.includes('collection_id='));
    await page.getByText('6 items', { exact: true }).waitFor();
    expect(await page.getByLabel('filter by collection').locator('option:checked').textContent()).toMatch(/Spring walk/);
    await page.waitForFunction(() => document.querySelectorAll('[role=gridcell][data-asset]').length === 6);

    // Delete two, then undo: they come back, and nothing was deleted.
    const doomed = await page.locator('[role=gridcell][data-asset]').evaluateAll((els) => els.slice(0, 2).map((e) => e.getAttribute('data-asset')!));
    await page.locator('[data-offset="0"] .tile-check').click();
    await page.locator('[data-offset="1"]').click({ modifiers: ['Shift'] });
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByText('4 items', { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Undo' }).click();
    await page.getByText('6 items', { exact: true }).waitFor();
    await page.waitForTimeout(6500);
    for (const id of doomed) expect((await app.t.api('GET', `/videos/${id}`, { key })).status).toBe(200);
    // Without undo, the delete is sent when the toast goes.
    await page.locator('[data-offset="0"] .tile-check').click();
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByText('5 items', { exact: true }).waitFor();
    await expect.poll(async () => (await app.t.api('GET', `/videos/${doomed[0]}`, { key })).status, { timeout: 15_000 }).toBe(404);
  }, 90_000);

  it('steps through the filtered timeline with ← and →, and Esc returns to the same place', async () => {
    const layout = (await app.t.api('GET', '/videos/layout?year=2023', { key })).body.data as { ids: string[] };
    const { page, shot } = await app.open(key, '#/library?year=2023');
    await page.waitForFunction((n) => document.querySelectorAll('[role=gridcell][data-asset]').length === n, layout.ids.length);
    await page.locator(`[data-asset="${layout.ids[0]}"]`).click();
    await page.getByTestId('viewer').waitFor();
    // The viewer is at the top of the window (the timeline kept behind it takes no room).
    expect((await page.getByTestId('viewer').boundingBox())!.y).toBeLessThan(120);
    expect(await page.getByTestId('step-position').textContent()).toBe(`1 of ${layout.ids.length}`);
    await page.keyboard.press('ArrowRight');
    await page.waitForFunction((id) => window.location.hash.startsWith(`#/view/${id}`), layout.ids[1]);
    await page.getByTestId('step-position').getByText(`2 of ${layout.ids.length}`).waitFor();
    await page.keyboard.press('ArrowLeft');
    await page.waitForFunction((id) => window.location.hash.startsWith(`#/view/${id}`), layout.ids[0]);
    await page.keyboard.press('Escape');
    await page.waitForFunction(() => window.location.hash === '#/library?year=2023');

    // The whole timeline: scrolled down, a picture opened, two steps on, Esc: the same place, the last one seen marked.
    await page.goto(`${app.t.url}/#/library`);
    await tiles(page).first().locator('img').waitFor();
    await page.getByTestId('timeline').evaluate((el) => (el.scrollTop = 1400));
    await page.waitForTimeout(300);
    const before = await page.getByTestId('timeline').evaluate((el) => el.scrollTop);
    const visible = await page.evaluate(() => {
      const box = document.querySelector('[data-testid=timeline]')!.getBoundingClientRect();
      return [...document.querySelectorAll('[role=gridcell][data-asset]')]
        .find((t) => t.getBoundingClientRect().top > box.top + 10)!
        .getAttribute('data-asset');
    });
    await page.locator(`[data-asset="${visible}"]`).click();
    await page.getByTestId('viewer').waitFor();
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await page.waitForFunction((id) => !window.location.hash.includes(id!), visible);
    await page.keyboard.press('Escape');
    await page.getByTestId('timeline').waitFor();
    await page.locator('.tile.last-viewed').waitFor();
    const after = await page.getByTestId('timeline').evaluate((el) => el.scrollTop);
    expect(Math.abs(after - before)).toBeLessThanOrEqual(120);
    await shot('library-back');
  }, 90_000);

  it('steps through search results with ← and →', async () => {
    const { page } = await app.open(key, '#/search?q=photo');
    await page.locator('.result-tile').nth(2).waitFor();
    const order = await page.locator('.result-tile').evaluateAll((els) => els.map((e) => e.getAttribute('data-video')));
    await page.locator('.result-tile').first().click();
    await page.getByTestId('viewer').waitFor();
    await page.keyboard.press('ArrowRight');
    await page.waitForFunction((id) => window.location.hash.startsWith(`#/view/${id}`), order[1]);
    await page.keyboard.press('Escape');
    await page.waitForFunction(() => window.location.hash.startsWith('#/search?q=photo'));
    await page.locator('.result-tile').first().waitFor();
  }, 60_000);

  it('zooms a photo to 1:1 with z or a double-click, showing its size in pixels; axe finds nothing serious', async () => {
    const first = (await app.t.api('GET', '/videos/layout', { key })).body.data.ids as string[];
    const detail = (await app.t.api('GET', `/videos/${first[0]}`, { key })).body.data;
    const { page, shot } = await app.open(key, `#/view/${first[0]}`);
    await page.getByTestId('viewer').waitFor();
    await page.locator('.boxed img').waitFor();
    expect(await page.getByTestId('zoom-level').textContent()).toMatch(/^Fit/);
    expect(await accessibilityProblems(page)).toEqual([]);
    await page.keyboard.press('z');
    await page.getByTestId('zoom-level').getByText(`1:1 · ${detail.width} × ${detail.height} px`).waitFor();
    // Zoomed in, the photo's own pixels are shown.
    await page.waitForFunction((src) => document.querySelector('.boxed img')?.getAttribute('src') === src, detail.media_url);
    await shot('viewer-zoomed');
    await page.locator('[data-testid=zoom-pane]').dblclick();
    await page.getByTestId('zoom-level').getByText('Fit').waitFor();
    // i hides the info panel, f makes it a favourite, 4 rates it.
    await page.keyboard.press('i');
    expect(await page.locator('.side').count()).toBe(0);
    await page.keyboard.press('f');
    await page.keyboard.press('4');
    await expect.poll(async () => (await app.t.api('GET', `/videos/${first[0]}`, { key })).body.data).toMatchObject({ favorite: true, rating: 4 });
    await page.keyboard.press('i');
  }, 60_000);

  it('a picture given the focus otherwise than by the arrows (a screen reader moving to it, a shift-click) takes the keyboard', async () => {
    const { page } = await app.open(key);
    await tiles(page).first().locator('img').waitFor();
    // A screen reader in browse mode moves the focus to the element it reads.
    await page.locator('[role=gridcell][data-offset="5"]').focus();
    expect(await page.locator('[role=gridcell][tabindex="0"]').getAttribute('data-offset')).toBe('5');
    await page.keyboard.press('ArrowRight');
    let id = await page.evaluate(() => document.activeElement?.getAttribute('data-offset') === '6' && document.activeElement.getAttribute('data-asset'));
    expect(id).toBeTruthy();
    await page.keyboard.press('Enter');
    await page.waitForFunction((x) => window.location.hash.startsWith(`#/view/${x}`), id);
    await page.keyboard.press('Escape');
    await page.waitForFunction(() => window.location.hash.startsWith('#/library'));
    await page.locator('[role=gridcell][data-offset="3"]').click({ modifiers: ['Shift'] });
    expect(await page.getByTestId('selection-count').textContent()).toBe('1 selected');
    await page.keyboard.press('Escape');
    await page.keyboard.press('ArrowLeft');
    id = await page.evaluate(() => document.activeElement?.getAttribute('data-offset') === '2' && document.activeElement.getAttribute('data-asset'));
    expect(id).toBeTruthy();
    await page.keyboard.press('Enter');
    await page.waitForFunction((x) => window.location.hash.startsWith(`#/view/${x}`), id);
  }, 60_000);

  it('works with the keyboard alone: one tab stop for the grid, arrows, Space selects, Enter opens, ? shows the shortcuts', async () => {
    const { page, shot } = await app.open(key);
    await tiles(page).first().locator('img').waitFor();
    // Tab from the size slider (the last control of the header before the buttons) reaches the grid once.
    await page.getByLabel('picture size').focus();
    let focused = '';
    for (let i = 0; i < 6 && focused !== 'gridcell'; i++) {
      await page.keyboard.press('Tab');
      focused = await page.evaluate(() => document.activeElement?.getAttribute('role') ?? document.activeElement?.tagName ?? '');
    }
    expect(focused).toBe('gridcell');
    expect(await page.locator('[role=gridcell][tabindex="0"]').count()).toBe(1);
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-offset'))).toBe('2');
    await page.keyboard.press('ArrowDown');
    const below = Number(await page.evaluate(() => document.activeElement?.getAttribute('data-offset')));
    expect(below).toBeGreaterThan(2);
    await page.keyboard.press(' ');
    expect(await page.getByTestId('selection-count').textContent()).toBe('1 selected');
    await page.keyboard.press('Escape');
    expect(await page.getByTestId('selection-bar').count()).toBe(0);
    const id = await page.evaluate(() => document.activeElement?.getAttribute('data-asset'));
    await page.keyboard.press('Enter');
    await page.waitForFunction((x) => window.location.hash.startsWith(`#/view/${x}`), id);
    await page.keyboard.press('?');
    await page.getByRole('dialog', { name: 'keyboard shortcuts' }).waitFor();
    await shot('shortcuts');
    await page.keyboard.press('Escape');
    await page.getByRole('dialog', { name: 'keyboard shortcuts' }).waitFor({ state: 'detached' });
    // Esc again at once closes the viewer, even while the closed sheet is still on the page with the
    // keyboard on its button (until its close event is handled: a moment, longer on a busy machine).
    await page.keyboard.press('?');
    await page.getByRole('dialog', { name: 'keyboard shortcuts' }).waitFor();
    await page.evaluate(() => {
      const sheet = document.querySelector<HTMLDialogElement>('dialog.shortcuts')!;
      const button = sheet.querySelector('button')!;
      button.focus();
      sheet.close();
      button.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true, cancelable: true }));
    });
    await page.waitForFunction(() => window.location.hash.startsWith('#/library'));
    // Back on the grid, the keyboard is on the picture that was open.
    await page.waitForFunction((x) => document.activeElement?.getAttribute('data-asset') === x, id);
  }, 60_000);

  it('keeps the keyboard in place around the selection bar: Esc in a menu goes back to its button, a collection made from the keyboard back to the grid', async () => {
    const { page } = await app.open(key);
    await tiles(page).first().locator('img').waitFor();
    await page.getByLabel('picture size').focus();
    for (let i = 0; i < 6; i++) {
      await page.keyboard.press('Tab');
      if ((await page.evaluate(() => document.activeElement?.getAttribute('role'))) === 'gridcell') break;
    }
    await page.keyboard.press(' ');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press(' ');
    expect(await page.getByTestId('selection-count').textContent()).toBe('2 selected');
    const focusedText = () => page.evaluate(() => document.activeElement?.textContent?.trim() ?? '');
    const menu = page.getByTestId('add-to-collection');
    // Its items in order: the collections made before (one by the test above), then "New collection…".
    const toNewCollection = async () => {
      for (let i = 0; i < 5 && (await focusedText()) !== 'New collection…'; i++) await page.keyboard.press('Tab');
    };
    await menu.focus();
    await page.keyboard.press('Enter');
    await toNewCollection();
    expect(await focusedText()).toBe('New collection…');
    await page.keyboard.press('Escape');
    expect(await menu.evaluate((el) => el === document.activeElement)).toBe(true);
    expect(await page.getByTestId('selection-count').textContent()).toBe('2 selected');
    await page.keyboard.press('Enter');
    await toNewCollection();
    await page.keyboard.press('Enter');
    await page.keyboard.type('Keyboard walk');
    await page.keyboard.press('Enter');
    await page.getByText('2 items put in the new collection Keyboard walk.').waitFor();
    await page.getByTestId('selection-bar').waitFor({ state: 'detached' });
    await page.waitForFunction(() => document.activeElement?.getAttribute('role') === 'gridcell');
  }, 60_000);
});
