// Speech on real weights, on this machine's CPU, as the app runs it (server/ml/whisper.ts,
// server/ml/ge2e.ts, server/ml/diarize.ts), with the models fetched and converted by
// scripts/real-models.ts and imported into a scratch data folder:
// - Whisper base and tiny.en: word error rate on the corpus's readings (five LibriVox passages and
//   TIMIT's SA1; normalised: case, punctuation, numbers), base also on two French prompts (Asterisk's
//   June Wallack), and transcription speed as × real time (seconds of speech per second of work,
//   median of --rounds over all readings, the model loaded first).
// - GE2E (resemblyzer): embedding speed (× real time), and the grouping of speakers on mixtures of
//   the four Asterisk voices, every pair A B A B A B twice over (the set the grouping settings were
//   chosen on): diarization error rate (10 ms frames, 0.25 s collar) and how often two speakers are
//   found, for the settings in use and around them; then on the corpus's two voices (held out).
// - With --long S: one recording of S seconds (Allison Smith's English prompts one after another,
//   0.5 s apart) through the VAD and whisper-base in one run, as the transcript stage does it:
//   × real time, windows, segments, and the process's peak resident memory.
// Usage: npm run bench -- speech [-- --rounds 3] [-- --long 600]
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { fetchResemblyzer, fetchWhisper } from '../scripts/real-models.ts';
import { modelsDir } from '../server/ml/models.ts';
import { speechWindows as speechWindowsOf, transcribe } from '../server/ml/whisper.ts';
import { readPcmWav, speechSegments } from '../server/ml/vad.ts';
import { ge2eConfig, ge2eEmbeddings } from '../server/ml/ge2e.ts';
import { absorbMinor, clusterSpeakers, groupingOf, speechWindows, turnsOf } from '../server/ml/diarize.ts';
import { wordErrorRate } from '../test/helpers/wer.ts';
import { diarizationErrorRate, type Labelled } from '../test/helpers/der.ts';
import { FRENCH_PROMPTS, VOICES, voicePrompts } from '../test/helpers/voices.ts';
import { arg, median, writeResults } from './report.ts';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const CORPUS = path.resolve(HERE, '../../shared/corpus');
const CLI = path.resolve(HERE, '../bin/media-index.js');
const ROUNDS = arg('rounds', 3);
const LONG = arg('long', 0);
const GE2E = 'ge2e-resemblyzer';

const data = fs.mkdtempSync(path.join(os.tmpdir(), 'mi-bench-speech-'));
try {
  const env = { ...process.env, MEDIA_INDEX_MODELS: '', MEDIA_INDEX_MODEL_MANIFEST: '' };
  const install = async (name: string, from: string) =>
    execFileSync(process.execPath, [CLI, 'models', 'import', name, '--from', from, '--data', data], { env, stdio: 'ignore' });
  await install('whisper-base', await fetchWhisper('whisper-base'));
  await install('whisper-tiny.en', await fetchWhisper('whisper-tiny.en'));
  await install(GE2E, await fetchResemblyzer());
  const results: Record<string, number | string> = {};

  /** 16 kHz mono samples of any recording. */
  const pcm = async (file: string) => {
    const out = path.join(data, `${path.basename(file)}.wav`);
    execFileSync('ffmpeg', ['-nostdin', '-v', 'error', '-y', '-i', file, '-ac', '1', '-ar', '16000', '-c:a', 'pcm_s16le', out]);
    return readPcmWav(out);
  };
  const readings: Array<{ audio: Float32Array; truth: string }> = [];
  for (const line of fs.readFileSync(path.join(CORPUS, 'audio/librivox/transcripts.tsv'), 'utf8').trim().split('\n')) {
    const [file, truth] = line.split('\t');
    readings.push({ audio: await pcm(path.join(CORPUS, 'audio/librivox', file)), truth });
  }
  readings.push({
    audio: await pcm(path.join(CORPUS, 'audio/timit-sa1/sa1.wav')),
    truth: fs.readFileSync(path.join(CORPUS, 'audio/timit-sa1/transcript.tsv'), 'utf8').trim().split('\t')[1],
  });
  const seconds = readings.reduce((s, r) => s + r.audio.length / 16000, 0);
  const whole = (a: Float32Array) => [{ start_s: 0, end_s: a.length / 16000 }];

  for (const model of ['whisper-base', 'whisper-tiny.en']) {
    const heard: string[] = [];
    for (const r of readings) heard.push((await transcribe(data, model, r.audio, whole(r.audio), 'en')).segments.map((s) => s.text).join(' '));
    results[`${model} WER, corpus readings (${readings.length}, English)`] = wordErrorRate(
      readings.map((r, i) => ({ truth: r.truth, heard: heard[i] })),
    ).toFixed(3);
    const speeds: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const t0 = performance.now();
      for (const r of readings) await transcribe(data, model, r.audio, whole(r.audio), 'en');
      speeds.push(seconds / ((performance.now() - t0) / 1000));
    }
    results[`${model} × real time (${seconds.toFixed(0)} s of speech, median of ${ROUNDS})`] = median(speeds).toFixed(2);
  }
  const french = await voicePrompts('fr');
  const frenchPairs: Array<{ truth: string; heard: string }> = [];
  let frenchLanguage = '';
  for (const [name, truth] of Object.entries(FRENCH_PROMPTS)) {
    const audio = await readPcmWav(path.join(french, `${name}.wav`));
    const t = await transcribe(data, 'whisper-base', audio, await speechSegments(audio), 'auto');
    frenchLanguage += `${t.language} `;
    frenchPairs.push({ truth, heard: t.segments.map((s) => s.text).join(' ') });
  }
  results['whisper-base WER, French prompts (2), language auto'] = wordErrorRate(frenchPairs).toFixed(3);
  results['whisper-base language heard for the French prompts'] = frenchLanguage.trim();

  if (LONG > 0) {
    const prompts = await voicePrompts('en');
    const files = fs
      .readdirSync(prompts)
      .filter((f) => f.endsWith('.wav') && !f.startsWith('tt-'))
      .sort();
    const pieces: Float32Array[] = [];
    let total = 0;
    for (let i = 0; total < LONG * 16000; i++) {
      const a = await readPcmWav(path.join(prompts, files[i % files.length]));
      pieces.push(a, new Float32Array(8000));
      total += a.length + 8000;
    }
    const long = new Float32Array(total);
    pieces.reduce((o, p) => (long.set(p, o), o + p.length), 0);
    const t0 = performance.now();
    const speech = await speechSegments(long);
    const t = await transcribe(data, 'whisper-base', long, speech, 'en');
    const s = (performance.now() - t0) / 1000;
    results[`whisper-base, one recording of ${(total / 16000).toFixed(0)} s (VAD and transcript in one run)`] =
      `${(total / 16000 / s).toFixed(2)}× real time, ${speechWindowsOf(speech).length} windows, ${t.segments.length} segments, peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`;
  }

  // Speakers.
  const dir = path.join(modelsDir(data), GE2E);
  const config = ge2eConfig(dir)!;
  const embedSpeeds: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const t0 = performance.now();
    for (const r of readings) await ge2eEmbeddings(dir, config, r.audio, speechWindows(whole(r.audio)));
    embedSpeeds.push(seconds / ((performance.now() - t0) / 1000));
  }
  results[`${GE2E} embeddings × real time (1.5 s windows every 0.75 s, median of ${ROUNDS})`] = median(embedSpeeds).toFixed(1);

  type Mix = { audio: Float32Array; truth: Labelled[] };
  /** Recordings one after another with 0.5 s between; the truth is where each one's own speech lies. */
  const mix = async (parts: Array<{ audio: Float32Array; speaker: string }>): Promise<Mix> => {
    const gap = 8000;
    const audio = new Float32Array(parts.reduce((n, p) => n + p.audio.length + gap, gap));
    const truth: Labelled[] = [];
    let at = gap;
    for (const p of parts) {
      audio.set(p.audio, at);
      for (const s of await speechSegments(p.audio)) truth.push({ start_s: at / 16000 + s.start_s, end_s: at / 16000 + s.end_s, speaker: p.speaker });
      at += p.audio.length + gap;
    }
    return { audio, truth };
  };
  const prepare = async (m: Mix) => {
    const speech = await speechSegments(m.audio);
    const windows = speechWindows(speech);
    return { ...m, speech, windows, vectors: await ge2eEmbeddings(dir, config, m.audio, windows, speech) };
  };
  const grade = (set: Array<Awaited<ReturnType<typeof prepare>>>, sameSpeaker: number, minorShare: number) => {
    const ders: number[] = [];
    let two = 0;
    for (const p of set) {
      const labels = absorbMinor(p.vectors, clusterSpeakers(p.vectors, { threshold: sameSpeaker }), minorShare);
      ders.push(diarizationErrorRate(p.truth, turnsOf(p.windows, labels, p.speech)));
      if (new Set(labels).size === 2) two++;
    }
    return `DER mean ${(ders.reduce((a, b) => a + b, 0) / ders.length).toFixed(3)}, max ${Math.max(...ders).toFixed(3)}; two speakers in ${two}/${set.length}`;
  };

  const voices: Array<{ name: string; files: string[] }> = [];
  for (const lang of Object.keys(VOICES) as Array<keyof typeof VOICES>) {
    const folder = await voicePrompts(lang);
    // The thirty longest prompts after the ten longest (the longest are menus with pauses), no jokes.
    const files = fs
      .readdirSync(folder)
      .filter((f) => f.endsWith('.wav') && !f.startsWith('tt-')) // tt-monkeys and tt-weasels are animals, not a voice
      .map((f) => path.join(folder, f))
      .sort((a, b) => fs.statSync(b).size - fs.statSync(a).size || a.localeCompare(b))
      .slice(10, 40);
    voices.push({ name: VOICES[lang].voice, files });
  }
  const tuning = [];
  for (let i = 0; i < voices.length; i++)
    for (let j = i + 1; j < voices.length; j++)
      for (const first of [0, 6]) {
        const parts = [];
        for (let k = 0; k < 6; k++) {
          const v = k % 2 ? voices[j] : voices[i];
          parts.push({ audio: await readPcmWav(v.files[first + Math.floor(k / 2)]), speaker: v.name });
        }
        tuning.push(await prepare(await mix(parts)));
      }
  const used = groupingOf(GE2E);
  for (const same of [used.sameSpeaker - 0.04, used.sameSpeaker - 0.02, used.sameSpeaker, used.sameSpeaker + 0.02, used.sameSpeaker + 0.04])
    results[
      `tuning set (${tuning.length} mixtures of 4 Asterisk voices), same speaker ${same.toFixed(2)}, minor share ${used.minorShare}${same === used.sameSpeaker ? ' (in use)' : ''}`
    ] = grade(tuning, same, used.minorShare);
  results[`tuning set, same speaker ${used.sameSpeaker}, no minor groups absorbed`] = grade(tuning, used.sameSpeaker, 0);
  const held = [];
  for (const [a, b] of [
    [
      ['0870', '0890', '0920'],
      ['005', '002', '004'],
    ],
    [
      ['0880', '0930', '0870'],
      ['001', '003', '005'],
    ],
  ]) {
    const parts = [];
    for (let k = 0; k < 6; k++)
      parts.push(
        k % 2
          ? { audio: await pcm(path.join(CORPUS, `audio/cards/${b[Math.floor(k / 2)]}.wav`)), speaker: 'cards' }
          : { audio: await pcm(path.join(CORPUS, `audio/librivox/sense_and_sensibility_01_austen_64kb-${a[Math.floor(k / 2)]}.wav`)), speaker: 'librivox' },
      );
    held.push(await prepare(await mix(parts)));
  }
  results[`held out (2 mixtures of the corpus's LibriVox reader and card caller), settings in use`] = grade(held, used.sameSpeaker, used.minorShare);
  writeResults('speech', 'Speech on real weights (npm run bench -- speech)', results);
} finally {
  fs.rmSync(data, { recursive: true, force: true });
}
