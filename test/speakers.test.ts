// The speakers stage end to end, as a plumbing test: WeSpeaker's weights cannot be had here, so a
// generated stand-in
// (the profile of the louder frames of each 1.5 s window against the window's average: the colour of
// a voice) runs on transformers.js's WeSpeaker feature extraction with the real model's settings,
// filter banks centred over each window. The video holds a LibriVox reader, a
// TIMIT speaker, the LibriVox reader again, with silence between; Whisper's stand-in (see
// transcript.test.ts) gives one transcript segment per stretch of speech. A real speaker encoder
// (resemblyzer's GE2E) tells real voices apart in test-real/speech.test.ts.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, tempDir, type TestServer } from './helpers/server.ts';
import { installTinySpeakerEmbedder, installTinyWhisper, writeManifestOf, useManifest } from './helpers/tiny-onnx.ts';
import { conversationVideo } from './helpers/ffmpeg.ts';
import { clusterSpeakers, speakerOf, speechWindows, turnsOf } from '../server/ml/diarize.ts';

const WHISPER_META = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../shared/models-meta/Xenova/whisper-tiny');
const unit = (...v: number[]) => {
  const n = Math.hypot(...v);
  return Float32Array.from(v, (x) => x / n);
};

describe('diarization', () => {
  it('cuts speech into 1.5 s windows every 0.75 s, keeping short stretches whole', () => {
    expect(
      speechWindows([
        { start_s: 1, end_s: 3 },
        { start_s: 5, end_s: 6 },
        { start_s: 8, end_s: 8.2 },
      ]),
    ).toEqual([
      { start_s: 1, end_s: 2.5 },
      { start_s: 1.5, end_s: 3 },
      { start_s: 5, end_s: 6 },
    ]);
  });

  it('groups alike voices, within min and max speakers', () => {
    const a = [unit(1, 0.1, 0), unit(1, 0, 0.1), unit(0.9, 0.1, 0.1)];
    const b = [unit(0, 1, 0.1), unit(0.1, 1, 0)];
    expect(clusterSpeakers([a[0], b[0], a[1], b[1], a[2]])).toEqual([0, 1, 0, 1, 0]);
    expect(clusterSpeakers([a[0], b[0], a[1], b[1], a[2]], { max: 1 })).toEqual([0, 0, 0, 0, 0]);
    expect(new Set(clusterSpeakers([a[0], b[0], a[1], b[1], a[2]], { min: 3 })).size).toBe(3);
    expect(clusterSpeakers([])).toEqual([]);
  });

  it('clusters an hour of speech: a sample is grouped, every window joins its nearest group', () => {
    const voices = [unit(1, 0.2, 0, 0), unit(0, 1, 0.2, 0), unit(0, 0, 1, 0.2)];
    const jitter = (v: Float32Array, i: number) => unit(...Array.from(v, (x, k) => x + 0.05 * Math.sin(i * 7 + k)));
    const windows = Array.from({ length: 4800 }, (_, i) => jitter(voices[Math.floor(i / 100) % 3], i));
    const t0 = performance.now();
    const labels = clusterSpeakers(windows);
    expect(performance.now() - t0).toBeLessThan(5000);
    expect(new Set(labels).size).toBe(3);
    labels.forEach((l, i) => expect(l).toBe(Math.floor(i / 100) % 3));
  });

  it('turns windows into turns and gives each segment its main speaker', () => {
    const speech = [{ start_s: 0, end_s: 3 }];
    const windows = speechWindows(speech);
    const turns = turnsOf(windows, [0, 0, 1], speech);
    expect(turns).toEqual([
      { speaker: 0, start_s: 0, end_s: 1.88 },
      { speaker: 1, start_s: 1.88, end_s: 3 },
    ]);
    expect(
      speakerOf(
        [
          { start_s: 0, end_s: 1 },
          { start_s: 2, end_s: 3 },
          { start_s: 5, end_s: 6 },
        ],
        turns,
      ),
    ).toEqual([0, 1, null]);
  });
});

describe('speakers (speaker-embedding stand-in, real feature extraction)', () => {
  const data = tempDir('mi-speakers-');
  const scratch = tempDir('mi-speakers-files-');
  let restoreManifest = () => {};
  const video = path.join(scratch, 'conversation.mp4');
  let t: TestServer;
  let key: string;
  let conversation: string;
  const only = { ocr: false, faces: false, people: false, labels: false, objects: false };

  beforeAll(async () => {
    const vocab = JSON.parse(fs.readFileSync(path.join(WHISPER_META, 'vocab.json'), 'utf8')) as Record<string, number>;
    // <|startoftranscript|> → <|en|>; <|transcribe|> → <|0.00|> " Hello" <|1.00|><|10.00|> " There"
    // <|11.00|><|15.00|> " Again" <|16.00|> (then the end): three timed segments in a window, as
    // Whisper answers for the speech of one 30 s window (A, B and A again here).
    const ts = (s: number) => 50364 + Math.round(s / 0.02);
    const next = new Map([
      [50258, 50259],
      [50359, ts(0)],
      [ts(0), vocab['ĠHello']],
      [vocab['ĠHello'], ts(1)],
      [ts(1), ts(10)],
      [ts(10), vocab['ĠThere']],
      [vocab['ĠThere'], ts(11)],
      [ts(11), ts(15)],
      [ts(15), vocab['ĠAgain']],
      [vocab['ĠAgain'], ts(16)],
    ]);
    writeManifestOf(path.join(scratch, 'manifest.json'), [
      {
        name: 'wespeaker-voxceleb-resnet34',
        stage: 'speakers',
        task: 'speaker-embedding',
        files: installTinySpeakerEmbedder(path.join(data, 'models'), 'wespeaker-voxceleb-resnet34'),
      },
      {
        name: 'whisper-tiny',
        stage: 'transcript',
        task: 'automatic-speech-recognition',
        files: installTinyWhisper(path.join(data, 'models'), 'whisper-tiny', WHISPER_META, next),
      },
    ]);
    restoreManifest = useManifest(path.join(scratch, 'manifest.json'));
    conversationVideo(video);
    t = await startTestServer({ workers: 1 }, data);
    key = t.key('speakers');
  });
  afterAll(async () => {
    await t.close();
    fs.rmSync(scratch, { recursive: true, force: true });
    restoreManifest();
  });

  const transcript = async (id: string) => {
    const r = await t.api('GET', `/videos/${id}/transcript`, { key });
    expect(r.status).toBe(200);
    return r.body.data;
  };

  it('finds two voices, A B A, and names the speaker of each transcript segment', async () => {
    const d = await t.index(key, video, only);
    conversation = d.video_id;
    const stage = d.index.report.stages.speakers;
    expect(stage).toMatchObject({ state: 'ok', counts: { speakers: 2 }, details: { model: 'wespeaker-voxceleb-resnet34', provider: 'cpu' } });
    const tr = await transcript(d.video_id);
    const who = tr.turns.map((x: { speaker: string }) => x.speaker);
    expect(who.filter((s: string, i: number) => s !== who[i - 1])).toEqual(['Speaker 1', 'Speaker 2', 'Speaker 1']);
    const b = tr.turns.find((x: { speaker: string }) => x.speaker === 'Speaker 2');
    expect(b.start_s).toBeGreaterThan(9);
    expect(b.end_s).toBeLessThan(14);
    expect(tr.segments.length).toBeGreaterThanOrEqual(3);
    for (const s of tr.segments)
      expect(s).toMatchObject({ text: expect.stringMatching(/^(Hello|There|Again)$/), speaker: expect.stringMatching(/^Speaker [12]$/) });
    expect(tr.segments.map((s: { speaker: string }) => s.speaker)).toEqual(['Speaker 1', 'Speaker 2', 'Speaker 1']);
    expect(tr.segments.find((s: { start_s: number }) => s.start_s > 9 && s.start_s < 14).speaker).toBe('Speaker 2');
    expect(tr.language).toBe('en');
    const s = await t.api('POST', '/search', { key, json: { query: 'speaker 2', search_options: { modalities: ['sound'] } } });
    expect(s.body.data.hits[0]).toMatchObject({ video_id: d.video_id, snippet: { text: 'speaker 2 speaking' } });
  });

  it('keeps to max_speakers and min_speakers', async () => {
    const one = await t.index(key, video, { ...only, speakers: { max_speakers: 1 } });
    expect(one.index.report.stages.speakers.counts.speakers).toBe(1);
    const three = await t.index(key, video, { ...only, speakers: { min_speakers: 3 } });
    expect(three.index.report.stages.speakers.counts.speakers).toBe(3);
  });

  it('names a voice: every turn and segment of it, typed search character finds it, the name survives the stage running again', async () => {
    const d = await t.index(key, video, only);
    const named = await t.api('PUT', `/videos/${d.video_id}/speakers/2`, { key, json: { name: '  Ada Lovelace ' } });
    expect(named.status).toBe(200);
    expect(named.body.data).toEqual({ video_id: d.video_id, speaker: 2, name: 'Ada Lovelace', label: 'Ada Lovelace', turns: 1 });
    const tr = await transcript(d.video_id);
    const labels = tr.turns.map((x: { speaker: string }) => x.speaker);
    expect(new Set(labels)).toEqual(new Set(['Speaker 1', 'Ada Lovelace']));
    const ada = tr.turns.find((x: { speaker: string }) => x.speaker === 'Ada Lovelace');
    expect(tr.segments.map((x: { speaker: string }) => x.speaker)).toEqual(['Speaker 1', 'Ada Lovelace', 'Speaker 1']);
    const found = await t.api('POST', '/search/character', { key, json: { query: 'Ada Lovelace' } });
    expect(found.status).toBe(200);
    expect(found.body.data.hits[0]).toMatchObject({ video_id: d.video_id, modality: 'person', timestamp: ada.start_s });
    // The stage again: the name is kept, and still found.
    const re = await t.api('POST', `/videos/${d.video_id}/reindex`, { key, json: { stages: ['speakers'] } });
    expect(re.status).toBe(202);
    await t.waitCompleted(key, d.video_id);
    expect((await t.api('POST', '/search/character', { key, json: { query: 'Ada Lovelace' } })).body.data.hits[0]).toMatchObject({ video_id: d.video_id });
    expect((await transcript(d.video_id)).segments[1].speaker).toBe('Ada Lovelace');
    // Errors: no such speaker, a read key, another workspace, a bad name; nothing changed by them.
    expect((await t.api('PUT', `/videos/${d.video_id}/speakers/7`, { key, json: { name: 'X' } })).status).toBe(404);
    expect((await t.api('PUT', `/videos/${d.video_id}/speakers/1`, { key: t.key('speakers', ['read']), json: { name: 'X' } })).status).toBe(403);
    expect((await t.api('PUT', `/videos/${d.video_id}/speakers/1`, { key: t.key('elsewhere'), json: { name: 'X' } })).status).toBe(404);
    expect((await t.api('PUT', `/videos/${d.video_id}/speakers/1`, { key, json: { name: '' } })).status).toBe(422);
    expect((await t.api('PUT', `/videos/${d.video_id}/speakers/0`, { key, json: { name: 'X' } })).status).toBe(422);
    expect((await transcript(d.video_id)).segments.map((x: { speaker: string }) => x.speaker)).toEqual(['Speaker 1', 'Ada Lovelace', 'Speaker 1']);
    // null takes the name away: the voice is "speaker 2" again, not found by the name.
    expect((await t.api('PUT', `/videos/${d.video_id}/speakers/2`, { key, json: { name: null } })).body.data.label).toBe('Speaker 2');
    expect((await transcript(d.video_id)).segments[1].speaker).toBe('Speaker 2');
    const gone = await t.api('POST', '/search/character', { key, json: { query: 'Ada Lovelace' } });
    expect(gone.body.data.hits.filter((h: { video_id: string }) => h.video_id === d.video_id)).toEqual([]);
  });

  it('answers 404 for a video of another workspace', async () => {
    const r = await t.api('GET', `/videos/${conversation}/transcript`, { key: t.key('elsewhere') });
    expect(r.status).toBe(404);
  });
});
