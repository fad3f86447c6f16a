// The viewer of a video: it plays from the moment in the address, and a line of its transcript
// plays from where it was said (a Whisper stand-in that hears "Hello" at the start of each stretch
// of speech; see test/transcript.test.ts).
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installHelloWhisper, useManifest } from '../test/helpers/tiny-onnx.ts';
import { corpus, startApp, type App } from './harness.ts';

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
});
