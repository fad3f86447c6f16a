// Settings: index options, models, engines and keys (one made, used and revoked), and a folder
// added as a library by its typed path, whose files then appear in the library. Each test in a
// workspace of its own.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import sharp from 'sharp';
import { tempDir } from '../test/helpers/server.ts';
import { cameraFiles } from '../test/helpers/camera-files.ts';
import { accessibilityProblems, corpus, startApp, type App } from './harness.ts';

describe('settings', () => {
  let app: App;
  beforeAll(async () => {
    app = await startApp({ libraryRoots: [os.tmpdir()], librarySettleMs: 200, libraryCheckMs: 500 });
  }, 120_000);
  afterAll(async () => app?.close());

  it('shows settings: index options, models and engines', async () => {
    const { page, shot } = await app.open(app.t.key('settings'), '#/settings');
    await page.getByTestId('settings').waitFor();
    await page.getByRole('cell', { name: 'all-MiniLM-L6-v2', exact: true }).waitFor();
    // Every optional model of a hub offers Install (or says it is installed); those on no hub (GE2E,
    // PP-OCRv6) say they are imported from a folder, and offer that.
    const states = await page.locator('[data-model-state]').allTextContents();
    expect(states.length).toBeGreaterThanOrEqual(8);
    for (const s of states) expect(s).toMatch(/^(Install|installed|not on a model hub: import it from a folder)/);
    expect(states.filter((s) => s.startsWith('not on a model hub'))).toHaveLength(2);
    expect(await accessibilityProblems(page)).toEqual([]);
    expect(await page.getByLabel('text in pictures on').isChecked()).toBe(true);
    // Each stage in words, with the name scripts give it; what it needs where it cannot run, in words too.
    expect(
      await page
        .locator('tr', { has: page.locator('code', { hasText: /^transcript$/ }) })
        .locator('.stage-words')
        .textContent(),
    ).toBe('speech');
    expect(await page.locator('[data-stage-state=transcript]').textContent()).toMatch(/^needs whisper-\S+ \(Optional models, below\)$/);
    expect(await page.locator('[data-stage-state=ocr]').textContent()).toBe('ready');
    // A key made here is shown once and works; revoked, it stops working.
    await page.getByLabel('key label').fill('backup script');
    await page.getByRole('button', { name: 'Create key' }).click();
    const created = (await page.getByTestId('new-key').textContent()) as string;
    expect((await app.t.api('GET', '/videos', { key: created })).status).toBe(200);
    await shot('settings');
    await page.getByRole('button', { name: 'Done' }).click();
    expect(await page.getByTestId('new-key').count()).toBe(0);
    page.once('dialog', (d) => void d.accept());
    await page.locator('tr', { hasText: 'backup script' }).getByRole('button', { name: 'Revoke' }).click();
    await page.locator('tr.revoked', { hasText: 'backup script' }).waitFor();
    expect((await app.t.api('GET', '/videos', { key: created })).status).toBe(401);
  });

  it('adds a folder as a library from settings (typed path) and its files appear in the library', async () => {
    const folder = tempDir('mi-e2e-library-');
    try {
      fs.mkdirSync(path.join(folder, 'trip'));
      fs.copyFileSync(corpus('office/a-text.docx'), path.join(folder, 'trip/itinerary.docx'));
      fs.copyFileSync(corpus('docs/a-text.pdf'), path.join(folder, 'tickets.pdf'));
      fs.writeFileSync(path.join(folder, 'trip/skipped.bin'), 'not a supported type');
      const old = new Date(Date.now() - 60_000);
      for (const f of ['trip/itinerary.docx', 'tickets.pdf']) fs.utimesSync(path.join(folder, f), old, old);
      const { page, shot } = await app.open(app.t.key('settings-library'), '#/settings');
      await page.getByTestId('libraries').waitFor();
      await page.getByLabel('folder path').fill(folder);
      await page.getByRole('button', { name: 'Add folder' }).click();
      const row = page.locator('[data-library]', { hasText: fs.realpathSync(folder) });
      await row.waitFor();
      await row.getByTestId('library-state').filter({ hasText: 'up to date, watching' }).waitFor({ timeout: 120_000 });
      expect(await row.locator('td').nth(2).textContent()).toBe('2');
      // The files it did not take in are "skipped" (a file taken in whose indexing failed is a problem of the top bar's panel).
      expect(await page.getByRole('columnheader', { name: 'Skipped' }).count()).toBe(1);
      await row.getByRole('button', { name: '1' }).click();
      await row.getByText('files of type .bin are not supported').waitFor();
      await shot('settings-libraries');
      // A file dropped into the watched folder while the screen is shown is counted without a reload.
      fs.writeFileSync(path.join(folder, 'notes.txt'), 'Train times for the trip.\n');
      fs.utimesSync(path.join(folder, 'notes.txt'), old, old);
      await expect.poll(() => row.locator('td').nth(2).textContent(), { timeout: 30_000 }).toBe('3');
      await page.getByRole('link', { name: 'Library' }).click();
      await page.locator('[data-asset][data-name="itinerary.docx"]').waitFor();
      await page.locator('[data-asset][data-name="tickets.pdf"]').waitFor();
      // Its drive unplugged: the files stay in the library, marked offline, and the info says why.
      fs.renameSync(folder, `${folder}-away`);
      const tickets = page.locator('[data-asset][data-name="tickets.pdf"]');
      await page.reload();
      await expect.poll(async () => (await page.reload(), await tickets.getAttribute('aria-label')), { timeout: 30_000 }).toMatch(/offline/);
      expect(await tickets.locator('.badge-offline').count()).toBe(1);
      await shot('library-offline');
      await tickets.dblclick();
      await page.getByTestId('info-offline').waitFor();
      expect(await page.getByTestId('info-offline').textContent()).toMatch(/^its folder's drive is not connected/);
    } finally {
      if (fs.existsSync(`${folder}-away`)) fs.renameSync(`${folder}-away`, folder);
      fs.rmSync(folder, { recursive: true, force: true });
    }
  }, 180_000);

  it('stacks a camera RAW under the JPEG of the same shot: one photo in the library, the RAW named in its info', async () => {
    const folder = tempDir('mi-e2e-stack-');
    try {
      // A real Canon CR2 (exiftool's test set) with a full preview written in, and the camera's JPEG of the same shot.
      const raw = path.join(folder, 'IMG_0042.CR2');
      fs.copyFileSync(path.join(await cameraFiles(), 'CanonRaw.cr2'), raw);
      execFileSync('exiftool', ['-q', '-m', '-overwrite_original', `-PreviewImage<=${corpus('scenes/opencv/fruits.jpg')}`, raw]);
      await sharp(corpus('scenes/opencv/fruits.jpg')).jpeg({ quality: 90 }).toFile(path.join(folder, 'IMG_0042.JPG'));
      const old = new Date(Date.now() - 60_000);
      for (const f of ['IMG_0042.CR2', 'IMG_0042.JPG']) fs.utimesSync(path.join(folder, f), old, old);
      const { page, shot } = await app.open(app.t.key('settings-stack'), '#/settings');
      await page.getByTestId('libraries').waitFor();
      await page.getByLabel('folder path').fill(folder);
      expect(await page.getByLabel('RAW + JPEG as one').isChecked()).toBe(true);
      await page.getByRole('button', { name: 'Add folder' }).click();
      const row = page.locator('[data-library]', { hasText: fs.realpathSync(folder) });
      await row.getByTestId('library-state').filter({ hasText: 'up to date, watching' }).waitFor({ timeout: 120_000 });
      // The row's counts follow the scan's (polled): one asset for the two files.
      await expect.poll(() => row.locator('td').nth(2).textContent(), { timeout: 60_000 }).toBe('1');
      await page.getByRole('link', { name: 'Library' }).click();
      const card = page.locator('[data-asset][data-name="IMG_0042.JPG"]');
      await card.waitFor();
      expect(await page.locator('[data-asset]').count()).toBe(1);
      await card.click();
      await page.getByTestId('viewer').waitFor();
      const info = page.getByTestId('info');
      await info.getByText(path.join(fs.realpathSync(folder), 'IMG_0042.CR2')).waitFor();
      expect(await info.locator('dt', { hasText: 'RAW' }).count()).toBe(1);
      await shot('viewer-raw-stack');
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  }, 180_000);
});
