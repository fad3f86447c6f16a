// Per-stage model time on this machine, one process (the indexer runs one per core):
// OCR per photo and per scanned page, faces and objects per photo, voice activity per audio second.
// Usage: npm run bench -- stages
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { prepareForReading, recognize, closeOcr } from '../server/ml/ocr.ts';
import { detectFaces, detectObjects } from '../server/ml/human.ts';
import { speechSegments } from '../server/ml/vad.ts';
import { renderPdfPages } from '../server/media/pdf.ts';
import { findFfmpeg } from '../server/media/ffmpeg.ts';
import { record, timedRuns, writeResults } from './report.ts';

const CORPUS = path.resolve(fileURLToPath(new URL('.', import.meta.url)), '../../shared/corpus');
const c = (p: string) => path.join(CORPUS, p);

async function rgb(file: string) {
  const { data, info } = await sharp(file).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

const results: Record<string, number | string> = { machine: `${os.cpus()[0]?.model ?? 'cpu'} x${os.availableParallelism()}` };
const text = c('ocr/images/imageTextN.png');
record(results, 'ocr_ms_per_photo_imageTextN', await timedRuns(3, async () => recognize(await prepareForReading(text, { upscale: true }), ['en'])));
let scan: Buffer | null = null;
for await (const p of renderPdfPages(c('ocr/hindi-pdf/examples.pdf'), [1], 2900)) scan = p.png;
record(results, 'ocr_ms_per_scanned_page_en', await timedRuns(3, () => recognize(scan as Buffer, ['en'])));
record(results, 'ocr_ms_per_scanned_page_en_hi', await timedRuns(3, () => recognize(scan as Buffer, ['en', 'hi'])));
const group = await rgb(c('faces/face-api-samples/sample1.jpg'));
record(results, 'faces_ms_per_photo_1920x1280_3_faces', await timedRuns(3, () => detectFaces(group)));
const collage = await rgb(c('faces/dlib-faces/bald_guys.jpg'));
record(results, 'faces_ms_per_photo_collage_24_faces', await timedRuns(3, () => detectFaces(collage)));
const cat = await rgb(c('scenes/skimage/chelsea.png'));
const side = Math.max(cat.width, cat.height);
const { data } = await sharp(c('scenes/skimage/chelsea.png'))
  .removeAlpha()
  .extend({ right: side - cat.width, bottom: side - cat.height })
  .raw()
  .toBuffer({ resolveWithObject: true });
record(results, 'objects_ms_per_photo', await timedRuns(5, () => detectObjects(cat, { data, width: side, height: side })));
const raw = execFileSync(
  findFfmpeg()!.ffmpeg,
  ['-v', 'error', '-i', c('audio/librivox/sense_and_sensibility_01_austen_64kb-0870.wav'), '-f', 'f32le', '-ac', '1', '-ar', '16000', '-'],
  { maxBuffer: 1 << 28 },
);
const audio = new Float32Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength));
record(results, 'vad_ms_per_audio_second', await timedRuns(5, () => speechSegments(audio)), 1 / (audio.length / 16000));
await closeOcr();
writeResults('stages', 'Model time per item, one process, warm models', results);
process.exit(0);
