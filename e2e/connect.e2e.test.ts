// Signing in: the key prompt refuses a wrong key, and a link carrying a key opens the app with it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { startApp, type App } from './harness.ts';

describe('signing in', () => {
  let app: App;
  let browser: Browser;
  beforeAll(async () => {
    app = await startApp();
    browser = await chromium.launch({ executablePath: process.env.MEDIA_INDEX_CHROMIUM ?? '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  it('asks for a key, refuses a wrong one, and opens with the one from the link', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const { t } = app;
    await page.goto(`${t.url}/`);
    await page.getByLabel('API key').fill('mi_aaaaaaaaaaaaaaaaaaaa_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb');
    await page.getByRole('button', { name: 'Open' }).click();
    await page.getByRole('alert').waitFor();
    expect(await page.getByRole('alert').textContent()).toMatch(/not valid/);
    await page.screenshot({ path: new URL('./screenshots/connect.png', import.meta.url).pathname });
    await page.goto('about:blank');
    await page.goto(`${t.url}/#key=${t.key('connect')}`);
    await page.getByTestId('library').waitFor();
    expect(page.url()).not.toContain('key=');
    // The library's first page arrives after the screen itself: wait for what it says.
    await page.getByText('Nothing indexed yet').waitFor();
    expect(await page.getByText('Nothing indexed yet').count()).toBe(1);
    await page.close();
  });
});
