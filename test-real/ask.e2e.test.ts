// The Ask screen in Chromium with the real small language model (Gemma 3 270M) and the real
// sentence encoder: the answer appears as it is written, ends with its cited moments, and Stop
// ends a long one. The screens are saved under e2e/screenshots/.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startTestServer, tempDir, type TestServer } from '../test/helpers/server.ts';
import { corpus } from '../test/helpers/corpus.ts';
import { importWithCli } from './helpers.ts';

const SHOTS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../e2e/screenshots');
const CHROMIUM = process.env.MEDIA_INDEX_CHROMIUM ?? '/usr/bin/chromium';

describe('Ask in Chromium with a real language model', () => {
  const data = tempDir('mi-real-ask-');
  let t: TestServer;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    await importWithCli('all-MiniLM-L6-v2', inject('minilm'), data);
    await importWithCli('gemma-3-270m-it', inject('gemma'), data);
    t = await startTestServer({ workers: 2 }, data);
    const key = t.key('e2e');
    await t.index(key, corpus('docs/carroll-wonderland.pdf'));
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] });
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.on('pageerror', (err) => {
      throw err;
    });
    await page.goto(`${t.url}/#key=${key}`);
    await page.getByTestId('library').waitFor();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    fs.rmSync(data, { recursive: true, force: true });
  });

  it('shows the answer as it is written, then the answer held to its cited moments', async () => {
    await page.evaluate(() => (window.location.hash = '#/ask?q=' + encodeURIComponent('Who was holding up the Lizard Bill?')));
    // Text on screen while the model is still writing: the stream, not a finished answer.
    await page.locator('.answer[data-state="asking"] [data-testid="answer-written"]').waitFor({ timeout: 60_000 });
    const partial = await page.getByTestId('answer-written').textContent();
    await shotNamed('ask-writing');
    await page.locator('.answer[data-state="done"]').waitFor({ timeout: 60_000 });
    const final = await page.getByTestId('answer-text').textContent();
    console.log(`while writing: "${partial}"\nanswer: "${final}"`);
    expect(partial!.length).toBeGreaterThan(0);
    expect(await page.getByTestId('answer-composer').textContent()).toMatch(/Written by the local language model/);
    const cites = await page.locator('.answer a.cite').count();
    const items = await page.getByLabel('evidence').locator('li').count();
    // Supported: each [n] a link to its moment, listed below. Not supported: refused, nothing cited.
    if (cites > 0) expect(items).toBeGreaterThanOrEqual(1);
    else expect(final).toMatch(/does not answer this/);
    await shotNamed('ask-answer');
  });

  it('stops an answer with Stop while the model is at work', async () => {
    await page.evaluate(() => (window.location.hash = '#/ask'));
    await page.getByLabel('question').fill('What did the Mock Turtle learn at school?');
    await page.getByLabel('question').press('Enter');
    // The evidence is in and the model has started (it reads the prompt for a second or more here).
    await page.getByText('Writing…').waitFor({ timeout: 60_000 });
    await page.getByRole('button', { name: 'stop the answer' }).click();
    await page.locator('.answer[data-state="stopped"]').waitFor();
    expect(await page.getByText('Stopped.').count()).toBe(1);
    expect(await page.getByTestId('answer-text').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Ask' }).count()).toBe(1);
    // Asked again, it answers: the model let the stopped answer go.
    await page.getByRole('button', { name: 'Ask' }).click();
    await page.locator('.answer[data-state="done"]').waitFor({ timeout: 60_000 });
  });

  async function shotNamed(name: string) {
    await page.screenshot({ path: path.join(SHOTS, `${name}.png`) });
  }
});
