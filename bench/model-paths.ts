// The cost of each optional model's code path apart from the network itself: decoding, feature
// extraction (log-mel, filter banks), image preprocessing, generation and post-processing, timed
// with the generated stand-in models of the tests (whose networks cost next to nothing). A real
// model adds its own inference time on top. One process, warm.
// Usage: npm run bench -- model-paths
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import {
  installTinyAudioTagger,
  installTinyCaptioner,
  installTinyClip,
  installTinyOpenVocabularyDetector,
  installTinySpeakerEmbedder,
  installTinyWhisper,
  seededTable,
  TINY_CLIP_FEATURES,
  TINY_DETECTOR,
} from '../test/helpers/tiny-onnx.ts';
import { transcribe } from '../server/ml/whisper.ts';
import { soundEvents } from '../server/ml/audio-tags.ts';
import { speakerEmbeddings } from '../server/ml/speaker-embeddings.ts';
import { embedPictures, embedClipTexts } from '../server/ml/clip.ts';
import { caption } from '../server/ml/captions.ts';
import { detectPhrases } from '../server/ml/open-vocabulary.ts';
import { findFfmpeg } from '../server/media/ffmpeg.ts';
import { spread, timedRuns, writeResults } from './report.ts';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const META = path.resolve(HERE, '../../shared/models-meta/Xenova');
const CORPUS = path.resolve(HERE, '../../shared/corpus');

/** Median ms of at least three timed calls, after an untimed one. */
async function perItem(n: number, fn: () => Promise<unknown>): Promise<number> {
  return spread(await timedRuns(n, fn)).median;
}

const data = fs.mkdtempSync(path.join(os.tmpdir(), 'mi-bench-models-'));
const models = path.join(data, 'models');
const whisperNext = new Map([
  [50359, 50364],
  [50364, 16004],
  [16004, 6263],
  [6263, 50364 + 75],
]);
installTinyWhisper(models, 'whisper-tiny', path.join(META, 'whisper-tiny'), whisperNext);
installTinyAudioTagger(models, 'ast-audioset', ['Speech', 'Silence'], Float32Array.of(1, -1), Float32Array.of(0, 0));
installTinySpeakerEmbedder(models, 'wespeaker-voxceleb-resnet34');
installTinyClip(models, 'clip-vit-base-patch32', path.join(META, 'clip-vit-base-patch32'), seededTable(49408, TINY_CLIP_FEATURES, 5));
installTinyCaptioner(models, 'vit-gpt2-image-captioning', { cat: seededTable(1, 48, 1), bowl: seededTable(1, 48, 2) });
installTinyOpenVocabularyDetector(models, 'owlv2-base-patch16', path.join(META, 'clip-vit-base-patch32'), seededTable(49408, TINY_DETECTOR.features, 9));

const raw = execFileSync(
  findFfmpeg()!.ffmpeg,
  [
    '-v',
    'error',
    '-stream_loop',
    '4',
    '-i',
    path.join(CORPUS, 'audio/librivox/sense_and_sensibility_01_austen_64kb-0870.wav'),
    '-f',
    'f32le',
    '-ac',
    '1',
    '-ar',
    '16000',
    '-',
  ],
  { maxBuffer: 1 << 28 },
);
const audio = new Float32Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength)).subarray(0, 30 * 16000);
const { data: px, info } = await sharp(path.join(CORPUS, 'scenes/skimage/chelsea.png')).removeAlpha().raw().toBuffer({ resolveWithObject: true });
const picture = { data: px, width: info.width, height: info.height };
const side = Math.max(info.width, info.height);
const square = await sharp(path.join(CORPUS, 'scenes/skimage/chelsea.png'))
  .removeAlpha()
  .extend({ right: side - info.width, bottom: side - info.height })
  .raw()
  .toBuffer();

const results: Record<string, number | string> = { machine: `${os.cpus()[0]?.model ?? 'cpu'} x${os.availableParallelism()}` };
results.transcript_ms_per_30s_window = await perItem(3, () => transcribe(data, 'whisper-tiny', audio, [{ start_s: 0, end_s: 30 }], 'en'));
results.transcript_language_detection_ms = Math.round(
  (await perItem(3, () => transcribe(data, 'whisper-tiny', audio, [{ start_s: 0, end_s: 30 }], 'auto'))) - (results.transcript_ms_per_30s_window as number),
);
results.sounds_ms_per_10s_window = Math.round(((await perItem(3, () => soundEvents(models, 'ast-audioset', audio, 0.25))) / 3) * 10) / 10;
results.speakers_ms_per_1_5s_window = await perItem(20, () => speakerEmbeddings(models, 'wespeaker-voxceleb-resnet34', audio, [{ start_s: 0, end_s: 1.5 }]));
results.clip_ms_per_picture = await perItem(10, () => embedPictures(models, 'clip-vit-base-patch32', [picture]));
results.clip_ms_per_query = await perItem(20, () => embedClipTexts(models, 'clip-vit-base-patch32', ['a cat on a sofa']));
results.captions_ms_per_picture = await perItem(10, () => caption(models, 'vit-gpt2-image-captioning', picture));
results.open_vocabulary_ms_per_picture_10_phrases = await perItem(5, () =>
  detectPhrases(
    models,
    'owlv2-base-patch16',
    { data: square, side },
    ['logo', 'sign', 'screen', 'flag', 'chart', 'diagram', 'map', 'poster', 'helmet', 'fur'],
    0.45,
  ),
);
fs.rmSync(data, { recursive: true, force: true });
writeResults('model-paths', 'Code-path cost of the optional models apart from their networks (stand-in models), one process, warm', results);
process.exit(0);
