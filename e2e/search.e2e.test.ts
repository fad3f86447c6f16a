// Search and Ask on a workspace seeded through the API (a book, a cat, photos dated and placed by
// exiftool): photo and document hits opened with their box and passage, deep links and the back
// button, the understood filters and chips, the search box on other screens, toasts, and answers
// with their cited moments. The tests only read the seeded workspace (the toasts' one setting is
// flipped an even number of times), so each runs alone and in any order.
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../test/helpers/server.ts';
import { datedPhotos, seed, startApp, type App } from './harness.ts';

describe('search and answers', () => {
  let app: App;
  let key: string;
  beforeAll(async () => {
    app = await startApp();
    key = app.t.key('search');
    const dir = tempDir('mi-e2e-dated-');
    await seed(app.t, key, ['docs/carroll-wonderland.pdf', 'scenes/skimage/chelsea.png', ...datedPhotos(dir)]);
    fs.rmSync(dir, { recursive: true, force: true });
  }, 300_000);
  afterAll(async () => app?.close());

  it('searches, and opens a photo hit with its box drawn', async () => {
    const { page, shot } = await app.open(key);
    await page.getByLabel('search').fill('cat');
    await page.getByLabel('search').press('Enter');
    await page.locator('.result-tile').first().waitFor();
    expect(await page.locator('.result-tile').first().getAttribute('aria-label')).toMatch(/^chelsea\.png/);
    await shot('search');
    await page.locator('.result-tile').first().click();
    await page.getByTestId('viewer').waitFor();
    await page.locator('.box-hit').waitFor();
    expect(await page.locator('.box-object').first().getAttribute('title')).toMatch(/^cat/);
    // The hit is the cat's box: one label says both, not two labels one over the other.
    expect(await page.locator('.box-hit .box-label').textContent()).toMatch(/^search hit · cat/);
    expect(await page.locator('.box-object[title^="cat"] .box-label').count()).toBe(0);
    // The cat's box starts at the top of the picture: its label is inside it (at the bottom), not cut off above.
    const [label, frame] = await Promise.all([page.locator('.box-hit .box-label').boundingBox(), page.locator('.boxed').first().boundingBox()]);
    expect(label!.y).toBeGreaterThanOrEqual(frame!.y);
    await shot('viewer-photo');
  });

  it('opens a document page at the passage a phrase came from, passages listed and outlined', async () => {
    const { page, shot } = await app.open(key);
    await page.getByLabel('search').fill('Would the fall never come to an end');
    await page.getByLabel('search').press('Enter');
    // The book's row: its best page first.
    const row = page.locator('.result-documents .result-row-item').first();
    await row.waitFor();
    expect(await row.locator('.snippet').first().getAttribute('data-page')).toBe('5');
    await row.locator('.result-main').click();
    await page.locator('[data-testid=viewer][data-kind=document]').waitFor();
    await page.locator('.passages li.current').waitFor();
    expect(await page.locator('.passages li.current').textContent()).toMatch(/Down, down, down/);
    expect(await page.locator('.box-passage').count()).toBeGreaterThan(3);
    expect(await page.locator('.box-hit').count()).toBe(1);
    // Pages turn with PageDown (← and → step through the results it was opened from).
    await page.keyboard.press('PageDown');
    await page.getByLabel('page number').and(page.locator('[value="6"]')).waitFor();
    // Page 6 is drawn on this first request (text pages are rendered lazily).
    await page.waitForFunction(() => {
      const img = document.querySelector('.doc-page img') as HTMLImageElement | null;
      return img !== null && img.complete && img.naturalWidth > 0;
    });
    await shot('viewer-document');
  });

  it('runs the search a link names, shows what it understood, and the back button shows the search before it', async () => {
    const { page, shot } = await app.open(key);
    await page.getByLabel('search').fill('cat');
    await page.getByLabel('search').press('Enter');
    await page.locator('.result-tile[aria-label^="chelsea.png"]').waitFor();
    // A link to another search (as from a note or a bookmark): its own results, never the previous ones under its title.
    await page.evaluate(() => (window.location.hash = '#/search?q=' + encodeURIComponent('photos in Paris 2019')));
    await page.getByText('Results for “photos in Paris 2019”').waitFor();
    await page.getByTestId('understood').waitFor();
    const understood = await page.getByTestId('understood').textContent();
    expect(understood).toMatch(/in Paris/);
    expect(understood).toMatch(/taken in 2019/);
    const names = await page.locator('.result-tile').evaluateAll((ts) => ts.map((t) => t.getAttribute('aria-label')!.split(',')[0]));
    expect(names.length).toBeGreaterThan(0);
    expect(new Set(names)).toEqual(new Set(['paris-louvre.jpg', 'paris-evening.jpg']));
    expect(await page.getByLabel('search').inputValue()).toBe('photos in Paris 2019');
    await shot('search-deep-link');
    await page.goBack();
    await page.getByText('Results for “cat”').waitFor();
    expect(await page.locator('.result-tile').first().getAttribute('aria-label')).toMatch(/^chelsea\.png/);
    expect(await page.getByLabel('search').inputValue()).toBe('cat');
    // The same chips as the library narrow the results.
    await page.getByLabel('filter by kind').selectOption('document');
    await page.waitForFunction(() => window.location.hash.includes('kind=document'));
    await page.getByText('Results for “cat”').waitFor();
    await page.waitForFunction(() => !document.querySelector('.search .empty')?.textContent?.startsWith('Searching'));
    const docs = await page.locator('.result-row-item, .result-tile').allTextContents();
    expect(docs.length).toBeGreaterThan(0);
    expect(docs.every((h) => h.includes('carroll-wonderland.pdf'))).toBe(true);
  });

  it('answers a question from the library with its cited moments (no language model: sentences of the evidence), and a citation opens its page', async () => {
    const { page, shot } = await app.open(key);
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

  it('shows in the search box only the search on screen, keeps at most three toasts, and Escape dismisses the newest', async () => {
    const { page, shot } = await app.open(key);
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
