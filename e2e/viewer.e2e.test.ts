// The viewer of a video: it plays from the moment in the address, and a line of its transcript
// plays from where it was said (a Whisper stand-in that hears "Hello" at the start of each stretch
// of speech; see test/transcript.test.ts).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { helloChain, installHelloWhisper, installTinySpeakerEmbedder, installTinyWhisper, useManifest, writeManifestOf } from '../test/helpers/tiny-onnx.ts';
import { conversationVideo } from '../test/helpers/ffmpeg.ts';
import { corpus, startApp, type App } from './harness.ts';
import { holdingEnds } from '../test/helpers/launch.ts';

const WHISPER_META = fileURLToPath(new URL('../../shared/models-meta/Xenova/whisper-tiny', import.meta.url));

describe('the video viewer', () => {
  let app: App;
  beforeAll(async () => {
    app = await startApp({}, (data) => useManifest(installHelloWhisper(data, WHISPER_META)));
  }, 120_000);
  afterAll(async () => app?.close());

  it('plays a video from the moment it was opened at, and from a line of its transcript', async () => {
    const key = app.t.key('viewer-video');
    const video = await app.t.index(key, corpus('video/forensics/movie-hello.mp4'), { faces: false, people: false, ocr: false });
    const { page, shot } = await app.open(key, `#/view/${video.video_id}?t=4`);
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
  }, 180_000);

  it("plays a camera's AVI that a browser cannot decode (MPEG-4 Part 2), through the copy the service makes of it", async () => {
    const key = app.t.key('viewer-avi');
    const video = await app.t.index(key, corpus('video/opencv/vtest.avi'), { faces: false, people: false, ocr: false, objects: false, labels: false });
    const { page, shot } = await app.open(key, `#/view/${video.video_id}?t=30`);
    await page.locator('[data-testid=viewer][data-kind=video]').waitFor();
    await page.waitForFunction(
      (d) => {
        const v = document.querySelector('video.player') as HTMLVideoElement | null;
        return v !== null && v.readyState >= 2 && Math.abs(v.duration - d) < 1 && Math.abs(v.currentTime - 30) < 1;
      },
      video.duration_s,
      { timeout: 60_000 },
    );
    expect(await page.locator('.player-status').count()).toBe(0);
    await shot('viewer-video-avi');
  }, 180_000);
});

// Two voices (a stand-in speaker model over real voices, and the Hello stand-in of Whisper): the
// owner names one from the viewer, with the keyboard; the name is on its lines and stays on reload.
describe('the voices of a video', () => {
  let app: App;
  let video = '';
  beforeAll(async () => {
    app = await startApp({}, (data) => {
      const models = path.join(data, 'models');
      const manifest = path.join(data, 'manifest.json');
      writeManifestOf(manifest, [
        {
          name: 'whisper-tiny',
          stage: 'transcript',
          task: 'automatic-speech-recognition',
          files: installTinyWhisper(models, 'whisper-tiny', WHISPER_META, helloChain(WHISPER_META)),
        },
        {
          name: 'wespeaker-voxceleb-resnet34',
          stage: 'speakers',
          task: 'speaker-embedding',
          files: installTinySpeakerEmbedder(models, 'wespeaker-voxceleb-resnet34'),
        },
      ]);
      video = conversationVideo(path.join(data, 'conversation.mp4'));
      return useManifest(manifest);
    });
  }, 120_000);
  afterAll(async () => app?.close());

  it('lists the voices, names one with the keyboard, and shows the name on its lines after a reload', async () => {
    const key = app.t.key('viewer-voices');
    const d = await app.t.index(key, video, { faces: false, people: false, ocr: false });
    const { page, shot } = await app.open(key, `#/view/${d.video_id}`);
    const voices = page.getByRole('list', { name: 'voices' });
    await voices.waitFor();
    expect(await voices.locator('li').count()).toBe(2);
    // Keyboard only: focus "name Speaker 1", Enter, type, Enter.
    await page.getByRole('button', { name: 'name Speaker 1' }).focus();
    await page.keyboard.press('Enter');
    const input = page.getByRole('textbox', { name: 'name of speaker 1' });
    await input.waitFor();
    expect(await input.evaluate((el) => el === document.activeElement)).toBe(true);
    // Esc leaves without a change.
    await page.keyboard.press('Escape');
    // The keyboard is back on the voice's Name button.
    await page.waitForFunction(() => document.activeElement?.getAttribute('aria-label') === 'name Speaker 1');
    expect(page.url()).toContain(`#/view/${d.video_id}`);
    await page.getByRole('button', { name: 'name Speaker 1' }).focus();
    await page.keyboard.press('Enter');
    await page.keyboard.type('Ada Lovelace');
    await page.keyboard.press('Enter');
    await page.getByRole('button', { name: 'name Ada Lovelace' }).waitFor();
    await page.locator('ol.transcript li', { hasText: 'Ada Lovelace:' }).first().waitFor();
    await shot('viewer-voices');
    await page.reload();
    await page.getByRole('list', { name: 'voices' }).waitFor();
    expect(await page.getByRole('list', { name: 'voices' }).textContent()).toContain('Ada Lovelace');
    expect(await page.locator('ol.transcript li', { hasText: 'Ada Lovelace:' }).count()).toBeGreaterThan(0);
  }, 180_000);
});

describe('the video viewer while the video is indexed', () => {
  let app: App;
  const hold = holdingEnds('transcript');
  beforeAll(async () => {
    app = await startApp({}, (data) => useManifest(installHelloWhisper(data, WHISPER_META)), hold.launch);
  }, 120_000);
  afterAll(async () => {
    hold.release();
    await app?.close();
  });

  it('says the transcript is being made, then shows it when it is, without a reload', async () => {
    const key = app.t.key('viewer-indexing');
    const up = await app.t.upload(key, corpus('video/forensics/movie-hello.mp4'), { options: JSON.stringify({ faces: false, people: false, ocr: false }) });
    const id = up.body.data.video_id as string;
    const { page, shot } = await app.open(key, `#/view/${id}`);
    await page.locator('[data-testid=viewer][data-kind=video]').waitFor();
    await page.getByText('The transcript is being made.').waitFor();
    for (const end = Date.now() + 60_000; hold.held() === 0;) {
      expect(Date.now()).toBeLessThan(end);
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(await page.locator('ol.transcript li').count()).toBe(0);
    // The info panel names what runs and what is still to come, in the screens' words.
    await page
      .getByTestId('info-phase')
      .filter({ hasText: /^searchable; now .*speech/ })
      .waitFor({ timeout: 15_000 });
    expect(await page.getByTestId('info-phase').textContent()).not.toMatch(/\d/);
    await shot('viewer-transcript-being-made');
    hold.release();
    // The viewer looks again while the video is indexed: the line comes, and the wait's words go.
    const line = page.locator('ol.transcript li').first();
    await line.waitFor({ timeout: 30_000 });
    expect(await line.textContent()).toBe('0:00 Hello');
    expect(await page.getByText('The transcript is being made.').count()).toBe(0);
    await shot('viewer-transcript-made');
  }, 180_000);
});
