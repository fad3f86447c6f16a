// Signing in: the key prompt refuses a wrong key, and a link carrying a key opens the app with it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type App } from './harness.ts';

describe('signing in', () => {
  let app: App;
  beforeAll(async () => {
    app = await startApp();
  }, 120_000);
  afterAll(async () => app?.close());

  it('asks for a key, refuses a wrong one, and opens with the one from the link', async () => {
    const { t } = app;
    const { page, shot } = await app.open(null);
    await page.getByLabel('API key').fill('mi_aaaaaaaaaaaaaaaaaaaa_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb');
    await page.getByRole('button', { name: 'Open' }).click();
    await page.getByRole('alert').waitFor();
    expect(await page.getByRole('alert').textContent()).toMatch(/not valid/);
    await shot('connect');
    await page.goto('about:blank');
    await page.goto(`${t.url}/#key=${t.key('connect')}`);
    await page.getByTestId('library').waitFor();
    expect(page.url()).not.toContain('key=');
    // The library's first page arrives after the screen itself: wait for what it says.
    await page.getByText('Nothing indexed yet').waitFor();
    expect(await page.getByText('Nothing indexed yet').count()).toBe(1);
    // In a browser, what is added is sent as copies: the way to index folders where they are is named, and one step away.
    expect(await page.locator('.empty').textContent()).toMatch(/copies of them.*Settings › Libraries/);
    await shot('library-empty');
    await page.getByRole('link', { name: 'Settings › Libraries' }).click();
    await page.getByTestId('libraries').waitFor();
    expect(page.url()).toMatch(/#\/settings$/);
  });
});
