// Voice activity (Silero VAD, bundled) on real speech recordings.
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpus } from './helpers/corpus.ts';
import { startTestServer, tempDir, type TestServer } from './helpers/server.ts';
import { findFfmpeg } from '../server/media/ffmpeg.ts';
import { greyVideo } from './helpers/ffmpeg.ts';
import { speechSegments } from '../server/ml/vad.ts';

const LIBRIVOX = fs.readdirSync(corpus('audio/librivox')).filter((f) => f.endsWith('.wav'));

/** 16 kHz mono float samples of a recording with `silence` seconds of silence before it. */
function decode(file: string, silence: number): Float32Array {
  const raw = execFileSync(
    findFfmpeg()!.ffmpeg,
    ['-v', 'error', '-i', file, '-af', `adelay=${silence * 1000}`, '-f', 'f32le', '-ac', '1', '-ar', '16000', '-'],
    { maxBuffer: 1 << 28 },
  );
  return new Float32Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength));
}

describe('speech segments', () => {
  it.each(LIBRIVOX)('finds the speech of %s after two seconds of silence', async (name) => {
    const audio = decode(corpus(`audio/librivox/${name}`), 2);
    const segments = await speechSegments(audio);
    expect(segments.length).toBeGreaterThanOrEqual(1);
    const first = segments[0];
    const last = segments.at(-1)!;
    expect(first.start_s).toBeGreaterThan(1.5);
    expect(first.start_s).toBeLessThan(2.6);
    expect(last.end_s).toBeGreaterThan(audio.length / 16000 - 1.5);
    expect(last.end_s).toBeLessThanOrEqual(audio.length / 16000 + 0.01);
  });

  it('finds no speech in silence', async () => {
    expect(await speechSegments(new Float32Array(16000 * 3))).toEqual([]);
  });

  describe('as a stage of video indexing', () => {
    let t: TestServer;
    const scratch = tempDir('mi-speech-');
    beforeAll(async () => {
      t = await startTestServer({ workers: 1 });
    });
    afterAll(async () => {
      await t.close();
      fs.rmSync(scratch, { recursive: true, force: true });
    });

    it('records speech segments and makes "speech" searchable at that moment', async () => {
      const key = t.key('talks');
      const video = path.join(scratch, 'talk.mp4');
      greyVideo(video, 10, { file: corpus(`audio/librivox/${LIBRIVOX[0]}`), delayS: 3 });
      const up = await t.upload(key, video, { pipeline: 'arrow', options: JSON.stringify({ ocr: false, faces: false, people: false }) });
      const d = await t.waitCompleted(key, up.body.data.video_id);
      const speech = d.index.report.stages.speech;
      expect(speech.state).toBe('ok');
      expect(speech.counts.segments).toBeGreaterThanOrEqual(1);
      expect(speech.counts.speech_s).toBeGreaterThan(3);
      const segs = t.server.store.media.speech(d.video_id);
      expect(segs[0].start_s).toBeGreaterThan(2.5);
      expect(segs[0].start_s).toBeLessThan(3.6);
      const s = await t.api('POST', '/search', { key, json: { query: 'speech' } });
      // What was detected is indexed: the label, not words made up for it.
      expect(s.body.data.hits[0]).toMatchObject({ video_id: d.video_id, modality: 'sound', timestamp: segs[0].start_s, snippet: { text: 'speech' } });
      const found = async (query: string) =>
        (await t.api('POST', '/search', { key, json: { query, search_options: { interpret: false } } })).body.data.hits.some(
          (h: { video_id: string; modality: string }) => h.video_id === d.video_id && h.modality === 'sound',
        );
      const words = ['speech', 'talking', 'voice', 'speaking', 'talk', 'spoken', 'music'];
      const finds = Object.fromEntries(await Promise.all(words.map(async (w) => [w, await found(w)] as const)));
      console.log(`words that find the speech label: ${words.filter((w) => finds[w]).join(', ')}; not: ${words.filter((w) => !finds[w]).join(', ')}`);
      expect(finds.speech).toBe(true);
      expect(finds.music).toBe(false);

      const silent = await t.upload(key, corpus('video/opencv/vtest.avi'), {
        pipeline: 'arrow',
        options: JSON.stringify({ ocr: false, faces: false, people: false }),
      });
      const v = await t.waitCompleted(key, silent.body.data.video_id);
      expect(v.index.report.stages.speech).toMatchObject({ state: 'not_applicable', reason: 'the video has no audio track' });
    });
  });
});
