// OCR through tesseract.js with the traineddata shipped in @tesseract.js-data/{eng,hin} (LSTM
// "best_int" models), read from disk: nothing is fetched. One tesseract worker at a time, kept while
// it is used (see readerFor and idleEndMs).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { createWorker, OEM, PSM, type Worker } from 'tesseract.js';
import { unionCorners } from '../geometry.ts';
import { open, type Picture } from './pixels.ts';

const require = createRequire(import.meta.url);

export const OCR_LANGUAGE_CODES = { en: 'eng', hi: 'hin' } as const;
export type OcrLanguage = keyof typeof OCR_LANGUAGE_CODES;
/** Words below this confidence are dropped; lines keep only their confident words. */
export const MIN_WORD_CONFIDENCE = 45;

export interface OcrLine {
  text: string;
  /** Pixels in the image read. */
  bbox: { x0: number; y0: number; x1: number; y1: number };
  confidence: number;
}

export interface OcrParagraph {
  text: string;
  bbox: { x0: number; y0: number; x1: number; y1: number };
  lines: OcrLine[];
}

/** tesseract.js reads all languages of a worker from one folder: link the packaged files into one. */
function languageFolder(): string {
  const dir = path.join(os.tmpdir(), `media-index-tessdata-${process.getuid?.() ?? 'u'}`);
  fs.mkdirSync(dir, { recursive: true });
  for (const code of Object.values(OCR_LANGUAGE_CODES)) {
    const src = path.join(path.dirname(require.resolve(`@tesseract.js-data/${code}/package.json`)), '4.0.0_best_int', `${code}.traineddata.gz`);
    const link = path.join(dir, `${code}.traineddata.gz`);
    try {
      if (fs.readlinkSync(link) === src) continue;
      fs.rmSync(link, { force: true });
    } catch {
      /* not there yet */
    }
    try {
      fs.symlinkSync(src, link);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  return dir;
}

interface Reader {
  /** Its language set (tesseract's codes, joined by +). */
  codes: string;
  worker: Promise<Worker>;
  /** The page layout mode the worker is set to now. */
  mode: PSM;
  /** The last reading asked of it: readings take turns, each in the mode it asked for. */
  turn: Promise<unknown>;
  /** Ends the worker once it has been idle for `idleEndMs`. */
  idle: NodeJS.Timeout | null;
}

const readers = new Map<string, Reader>();
/** Workers of another language set, ended once their readings are done. */
const retiring = new Set<Promise<unknown>>();

/**
 * A worker no reading has asked for in this long ends, and its memory (≈ 140 MiB with English and
 * Hindi) goes back while the process goes on with what needs no tesseract (photos without text,
 * faces, objects); the next reading loads one again (≈ 0.7 s). Pages and photos with text come
 * seconds apart, not tens of seconds, and keep it (at 5 s, a worker would be loaded again for many
 * of the fifth of photos that hold text).
 */
let idleEndMs = 30_000;
/** Sets the idle time after which a worker ends (tests). */
export function setOcrIdleEnd(ms: number): void {
  idleEndMs = ms;
}

/** Ends a worker once the readings asked of it are done. */
function retire(old: Reader): void {
  if (old.idle) clearTimeout(old.idle);
  const ending = old.turn.then(async () => (await old.worker).terminate()).catch(() => undefined);
  retiring.add(ending);
  void ending.finally(() => retiring.delete(ending));
}

/**
 * The worker of a language set, shared by the page layout modes: a reading in another mode than the
 * last sets it first. One worker at a time (about 100 MiB each, the more with each language): a
 * reading in another language set ends the last set's worker once its readings are done, and a
 * new one loads (≈ 0.7 s; an indexer process runs one stage at a time, and a library's files mostly
 * ask for the same languages).
 */
function readerFor(languages: readonly OcrLanguage[]): Reader {
  const codes = [...new Set(languages.map((l) => OCR_LANGUAGE_CODES[l]))].sort().join('+');
  let r = readers.get(codes);
  if (!r) {
    for (const [other, old] of readers) {
      readers.delete(other);
      retire(old);
    }
    const worker = createWorker(codes, OEM.LSTM_ONLY, { langPath: languageFolder(), cacheMethod: 'none', gzip: true }).then(async (w) => {
      await w.setParameters({ tessedit_pageseg_mode: PSM.AUTO, preserve_interword_spaces: '1', debug_file: '/dev/null' } as Parameters<
        Worker['setParameters']
      >[0]);
      return w;
    });
    r = { codes, worker, mode: PSM.AUTO, turn: Promise.resolve(), idle: null };
    readers.set(codes, r);
    // A worker that could not start is not remembered (unless another took its place): the next reading tries again.
    const mine = r;
    worker.catch(() => {
      if (readers.get(codes) === mine) readers.delete(codes);
    });
  }
  return r;
}

/** Runs `fn` on the language set's worker in `mode`, after the readings asked before it. */
function inMode<T>(languages: readonly OcrLanguage[], mode: PSM, fn: (worker: Worker) => Promise<T>): Promise<T> {
  const r = readerFor(languages);
  if (r.idle) clearTimeout(r.idle);
  r.idle = null;
  const run = r.turn.then(async () => {
    const worker = await r.worker;
    if (r.mode !== mode) {
      await worker.setParameters({ tessedit_pageseg_mode: mode });
      r.mode = mode;
    }
    return fn(worker);
  });
  const turn = (r.turn = run.catch(() => undefined));
  // Once the last reading asked of it is done, it ends unless another is asked for meanwhile.
  const last = () => r.turn === turn && readers.get(r.codes) === r;
  void turn.then(() => {
    if (!last()) return;
    r.idle = setTimeout(() => {
      if (!last()) return;
      readers.delete(r.codes);
      retire(r);
    }, idleEndMs);
    r.idle.unref();
  });
  return run;
}

interface TessWord {
  text: string;
  confidence: number;
  bbox: OcrLine['bbox'];
}
interface TessLine {
  text: string;
  confidence: number;
  bbox: OcrLine['bbox'];
  words: TessWord[];
}
interface TessParagraph {
  text: string;
  bbox: OcrLine['bbox'];
  lines: TessLine[];
}
interface TessBlock {
  paragraphs: TessParagraph[];
}

/** Characters read with confidence, and their mean confidence. */
function confidentText(paragraphs: OcrParagraph[]): { chars: number; confidence: number } {
  const lines = paragraphs.flatMap((p) => p.lines);
  const chars = lines.reduce((n, l) => n + l.text.length, 0);
  return { chars, confidence: chars ? lines.reduce((n, l) => n + l.text.length * l.confidence, 0) / chars : 0 };
}

/** A picture with at least this many lines found is mostly text: a page photographed, a slide. */
const TEXT_HEAVY_LINES = 3;

/**
 * Paragraphs and lines of text read from an image, without words the reader is unsure of.
 * With `wholeBlock`, a picture found to be mostly text is read a second time as one block of text
 * (tesseract's automatic layout loses the starts of lines in shadow on a photographed page), and
 * the reading with more confident characters is kept — measured on page.png: CER 0.33 → 0.13.
 */
export async function recognize(image: Buffer | string, languages: readonly OcrLanguage[], opts: { wholeBlock?: boolean } = {}): Promise<OcrParagraph[]> {
  const auto = await read(image, languages, PSM.AUTO);
  if (!opts.wholeBlock || auto.reduce((n, p) => n + p.lines.length, 0) < TEXT_HEAVY_LINES) return auto;
  const block = await read(image, languages, PSM.SINGLE_BLOCK);
  const [a, b] = [confidentText(auto), confidentText(block)];
  return b.chars > a.chars * 1.1 && b.confidence >= a.confidence - 5 ? block : auto;
}

async function read(image: Buffer | string, languages: readonly OcrLanguage[], mode: PSM): Promise<OcrParagraph[]> {
  const { data } = await inMode(languages, mode, (worker) => worker.recognize(image, {}, { blocks: true, text: false }));
  const out: OcrParagraph[] = [];
  // tesseract.js declares blocks as a generic tree; with `blocks: true` they hold paragraphs, lines and words as TessBlock says.
  for (const block of (data.blocks ?? []) as unknown as TessBlock[]) {
    for (const para of block.paragraphs) {
      const lines: OcrLine[] = [];
      for (const line of para.lines) {
        const words = line.words.filter((w) => w.confidence >= MIN_WORD_CONFIDENCE && /[\p{L}\p{N}]/u.test(w.text));
        if (words.length === 0) continue;
        const text = words
          .map((w) => w.text)
          .join(' ')
          .trim();
        lines.push({ text, bbox: unionCorners(words.map((w) => w.bbox)), confidence: Math.round(words.reduce((a, w) => a + w.confidence, 0) / words.length) });
      }
      if (lines.length) out.push({ text: lines.map((l) => l.text).join(' '), bbox: unionCorners(lines.map((l) => l.bbox)), lines });
    }
  }
  return out;
}

/**
 * Photos and video frames are read better enlarged (small text) and with local contrast evened out
 * (shadows, uneven light): grayscale, up to 3x for photos under 1000 px wide, larger pictures
 * brought down to 1600 px on the long side, then CLAHE.
 * Measured on the corpus: CER 0.011 -> 0.000 on imageTextN.png, 0.468 -> 0.328 on page.png (then
 * 0.13 with the whole-block reading of `recognize`).
 */
export const READ_LONG_SIDE = 1600;

export interface ReadingSize {
  /** Enlarge small photos (small print). */
  upscale: boolean;
  /** Larger pictures are brought down to this long side (default READ_LONG_SIDE). */
  longSide?: number;
}

/** The scale a picture of this size is read at. */
export function readingScale(width: number, height: number, opts: ReadingSize): number {
  // Small photos grow (small print); large ones shrink (text in photos is large, and reading time
  // grows with the pixels).
  const long = Math.max(width, height);
  const cap = opts.longSide ?? READ_LONG_SIDE;
  return opts.upscale && width < 1000 ? Math.min(3, 3000 / long) : long > cap ? cap / long : 1;
}

/** Side of the window over which contrast is evened out (CLAHE) before reading. */
const CONTRAST_WINDOW = 48;

export async function prepareForReading(image: Picture, opts: ReadingSize): Promise<Buffer> {
  const meta = await open(image).metadata();
  const width = meta.width ?? 1;
  const height = meta.height ?? 1;
  const scale = readingScale(width, height, opts);
  // Grey pixels handed on raw (not through a PNG), and the result written with light compression:
  // the same pixels, a fraction of the encoding time.
  const gray = await open(image)
    .rotate()
    .resize({ width: Math.round(width * scale) })
    .grayscale()
    .toColourspace('b-w')
    .raw()
    .toBuffer({ resolveWithObject: true });
  // The picture's resolution goes with it, as it did through the PNG: tesseract reads by it. The
  // contrast window fits inside the picture (a small part of a photo, around a word, may be
  // narrower than it: libvips refuses a window larger than the picture).
  const { width: w, height: h } = gray.info;
  return open({ data: gray.data, width: w, height: h, channels: gray.info.channels })
    .clahe({ width: Math.min(CONTRAST_WINDOW, w), height: Math.min(CONTRAST_WINDOW, h), maxSlope: 5 })
    .withMetadata({ density: meta.density ?? 72 })
    .png({ compressionLevel: 1 })
    .toBuffer();
}

/** Tilts under this many degrees are left alone (tesseract copes); the search spans ±MAX_SKEW. */
export const MIN_SKEW = 1;
export const MAX_SKEW = 15;
/** Long side of the grey copy the tilt is measured on. */
const SKEW_LONG_SIDE = 800;

/**
 * How far the lines of text in a picture are tilted, in degrees: the angle that, turned clockwise
 * (as `sharp().rotate(angle)` turns), makes them level. Measured by the projection profile: the
 * dark pixels of a small grey copy summed along rows at each candidate angle; level lines of text
 * give the sharpest profile (the largest sum of squared differences between neighbouring rows).
 * 0 where nothing is tilted by MIN_SKEW or more.
 */
export async function textSkew(image: Picture): Promise<number> {
  const { data, info } = await open(image)
    .autoOrient()
    .resize({ width: SKEW_LONG_SIDE, height: SKEW_LONG_SIDE, fit: 'inside', withoutEnlargement: true })
    .removeAlpha() // a page drawn by PDFium carries an unused fourth byte
    .grayscale()
    .raw()
    .toBuffer({ resolveWithObject: true });
  const { width, height } = info;
  let sum = 0;
  for (let i = 0; i < data.length; i++) sum += data[i];
  const threshold = (sum / data.length) * 0.75; // ink: clearly darker than the picture's mean
  let count = 0;
  for (let i = 0; i < data.length; i++) if (data[i] < threshold) count++;
  if (count < 50) return 0;
  const xs = new Float64Array(count);
  const ys = new Float64Array(count);
  for (let y = 0, k = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      if (data[y * width + x] < threshold) {
        xs[k] = x - width / 2;
        ys[k++] = y - height / 2;
      }
    }
  }
  const span = Math.ceil(Math.hypot(width, height));
  const rows = new Float64Array(span + 2);
  const sharpness = (deg: number) => {
    const a = (deg * Math.PI) / 180;
    const [c, sn] = [Math.cos(a), Math.sin(a)];
    const mid = span / 2 + 0.5;
    rows.fill(0);
    // floor(v + 0.5) is Math.round(v) for the non-negative v here, without the call.
    for (let i = 0; i < count; i++) rows[Math.floor(xs[i] * sn + ys[i] * c + mid) + 1]++;
    let score = 0;
    for (let r = 1; r < rows.length; r++) {
      const d = rows[r] - rows[r - 1];
      score += d * d;
    }
    return score;
  };
  let best = { deg: 0, score: sharpness(0) };
  for (let deg = -MAX_SKEW; deg <= MAX_SKEW; deg += 0.5) {
    const score = sharpness(deg);
    if (score > best.score * 1.0001) best = { deg, score };
  }
  for (let deg = best.deg - 0.4; deg <= best.deg + 0.4; deg += 0.1) {
    const score = sharpness(deg);
    if (score > best.score) best = { deg, score };
  }
  const angle = Math.round(best.deg * 10) / 10;
  return Math.abs(angle) >= MIN_SKEW ? angle : 0;
}

/** The language sets (tesseract codes) that have a worker now: one at most. */
export function ocrWorkerSets(): string[] {
  return [...readers.keys()];
}

export async function closeOcr(): Promise<void> {
  const all = [...readers.values()];
  for (const r of all) if (r.idle) clearTimeout(r.idle);
  readers.clear();
  await Promise.all([...all.map(async (r) => (await r.worker.catch(() => null))?.terminate()), ...retiring]);
}
