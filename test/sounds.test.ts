// The sounds stage end to end: AST's weights cannot be had here, so a generated stand-in with the
// real feature extraction (128-bin log-mel filter bank, AudioSet normalization) runs through
// transformers.js. Its two labels follow the loudness of each 10.24 s window: "Speech" for a
// window of LibriVox reading, "Silence" for a silent one.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpus } from './helpers/corpus.ts';
import { startTestServer, tempDir, type TestServer } from './helpers/server.ts';
import { installTinyAudioTagger, writeManifest, useManifest } from './helpers/tiny-onnx.ts';
import { greyVideo } from './helpers/ffmpeg.ts';

describe('sounds (AudioSet tagger stand-in, real feature extraction)', () => {
  const data = tempDir('mi-sounds-');
  const scratch = tempDir('mi-sounds-files-');
  let restoreManifest = () => {};
  const video = path.join(scratch, 'quiet-reading.mp4');
  const mute = path.join(scratch, 'mute.mp4');
  let t: TestServer;
  let key: string;
  const only = { ocr: false, faces: false, people: false, transcript: false, labels: false };

  beforeAll(async () => {
    // Mean normalized log-mel of a silent window ≈ -1.27, of one mostly speech ≈ -0.6.
    const files = installTinyAudioTagger(
      path.join(data, 'models'),
      'ast-audioset',
      ['Speech', 'Silence'],
      Float32Array.of(10, -10),
      Float32Array.of(9.3, -9.3),
    );
    writeManifest(path.join(scratch, 'manifest.json'), 'ast-audioset', 'sounds', 'audio-classification', files);
    restoreManifest = useManifest(path.join(scratch, 'manifest.json'));
    // 12 s of silence, about 7 s of reading, 12 s of silence.
    greyVideo(video, 31, { file: corpus('audio/librivox/sense_and_sensibility_01_austen_64kb-0870.wav'), delayS: 12 });
    greyVideo(mute, 3);
    t = await startTestServer({ workers: 1 }, data);
    key = t.key('sounds');
  });
  afterAll(async () => {
    await t.close();
    fs.rmSync(scratch, { recursive: true, force: true });
    restoreManifest();
  });

  it('tags each window, joins nothing across a change, and makes the sounds searchable', async () => {
    const d = await t.index(key, video, only);
    const stage = d.index.report.stages.sounds;
    expect(stage).toMatchObject({
      state: 'ok',
      counts: { events: 3, labels: 2, windows: 3 },
      details: { model: 'ast-audioset', provider: 'cpu', labels: ['Silence', 'Speech'] },
    });
    const s = await t.api('POST', '/search', { key, json: { query: 'silence', search_options: { modalities: ['sound'] } } });
    expect(s.status).toBe(200);
    expect(s.body.data.hits[0]).toMatchObject({ video_id: d.video_id, modality: 'sound', timestamp: 0, snippet: { text: 'Silence' } });
  });

  it('keeps only labels at or above min_confidence', async () => {
    const d = await t.index(key, video, { ...only, sounds: { min_confidence: 0.999 } });
    expect(d.index.report.stages.sounds).toMatchObject({ state: 'ok', counts: { events: 0, windows: 3 } });
  });

  it('is not applicable to a video without sound', async () => {
    const d = await t.index(key, mute, only);
    expect(d.index.report.stages.sounds).toMatchObject({ state: 'not_applicable', reason: 'the video has no audio track' });
  });
});
