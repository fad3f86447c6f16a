// Photos: decoded once with sharp (EXIF orientation applied), written as the normalized frame the
// stages read and a thumbnail. What sharp's bundled libvips does not decode goes through another
// decoder first: BMP through ffmpeg, HEIC/HEIF through heic-decode, JPEG XL through libjxl built to
// WebAssembly (@jsquash/jxl), camera RAW through the JPEG preview it embeds (media/raw.ts).
import fs from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { createRequire } from 'node:module';
import sharp, { type Sharp } from 'sharp';
import { limits } from '../config.ts';
import { RAW_EXTENSIONS } from '../contract/extensions.ts';
import { MIN_PREVIEW_SIDE, rawPreview } from './raw.ts';
import { findFfmpeg, ffmpegFailure, runTool } from './ffmpeg.ts';
import { ExtractError, THUMB_LONG_SIDE, type ExtractOutput } from './types.ts';

const require = createRequire(import.meta.url);

export const FRAME_LONG_SIDE = 2048;
/** Decoded pixels above this are refused (decompression bombs). */

sharp.concurrency(1); // one libvips thread per indexer process: the pool already uses every core
sharp.cache(false);

type Rgba = { width: number; height: number; data: Uint8ClampedArray };

let jxlDecoder: Promise<(data: ArrayBuffer) => Promise<Rgba>> | null = null;

/** libjxl's decoder (WebAssembly), compiled once per process. */
function decodeJxl(): Promise<(data: ArrayBuffer) => Promise<Rgba>> {
  jxlDecoder ??= (async () => {
    // Its glue returns an ImageData, which Node does not have.
    (globalThis as { ImageData?: unknown }).ImageData ??= class {
      constructor(
        readonly data: Uint8ClampedArray,
        readonly width: number,
        readonly height: number,
      ) {}
    };
    const mod = await import('@jsquash/jxl/decode.js');
    const wasm = await fs.promises.readFile(require.resolve('@jsquash/jxl/codec/dec/jxl_dec.wasm'));
    await mod.init(await WebAssembly.compile(wasm));
    // Its types promise a DOM ImageData; what comes back is the stand-in above, RGBA 8 bits.
    return mod.default as unknown as (data: ArrayBuffer) => Promise<Rgba>;
  })();
  return jxlDecoder;
}

/** The pixels of a decoder that gives RGBA, as sharp's input; too many of them are refused. */
function fromRgba(img: Rgba): Sharp {
  if (img.width * img.height > limits.maxPixels) throw new ExtractError('too_large', `${img.width}x${img.height} pixels`);
  return sharp(Buffer.from(img.data.buffer, img.data.byteOffset, img.data.byteLength), { raw: { width: img.width, height: img.height, channels: 4 } });
}

/** EXIF orientation (2–8) as sharp's turns and mirrors, for a picture that does not carry its own. */
function oriented(img: Sharp, orientation: number): Sharp {
  const turn = { 3: 180, 4: 180, 5: 90, 6: 90, 7: 270, 8: 270 }[orientation] ?? 0;
  const out = turn ? img.rotate(turn) : img;
  return [2, 4, 5, 7].includes(orientation) ? out.flop() : out;
}

/**
 * The decoded picture, not yet turned; `orientation` where it is not the picture's own EXIF
 * orientation (a RAW's preview takes the RAW's).
 */
async function decodeWithFallback(file: string, ext: string, scratch: string, lenient = false): Promise<{ img: Sharp; orientation?: number }> {
  if (ext === '.heic' || ext === '.heif') {
    const decode = require('heic-decode') as (o: { buffer: Buffer }) => Promise<Rgba>;
    try {
      return { img: fromRgba(await decode({ buffer: await fs.promises.readFile(file) })) };
    } catch (err) {
      if (err instanceof ExtractError) throw err;
      throw new ExtractError('corrupt', `HEIC decode failed (${(err as Error).message})`);
    }
  }
  if (ext === '.jxl') {
    try {
      const bytes = await fs.promises.readFile(file);
      return { img: fromRgba(await (await decodeJxl())(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength))) };
    } catch (err) {
      if (err instanceof ExtractError) throw err;
      throw new ExtractError('corrupt', `JPEG XL decode failed (${(err as Error).message})`);
    }
  }
  if (RAW_EXTENSIONS.includes(ext)) {
    const { jpeg, tag, orientation } = await rawPreview(file, scratch);
    const meta = await sharp(jpeg)
      .metadata()
      .catch((err: Error) => {
        throw new ExtractError('no_preview', `the RAW file's ${tag} is not a picture (${err.message})`);
      });
    const long = Math.max(meta.width ?? 0, meta.height ?? 0);
    if (long < MIN_PREVIEW_SIDE)
      throw new ExtractError('no_preview', `the RAW file's largest preview (${tag}) is ${meta.width}×${meta.height}, too small to index`);
    const img = sharp(jpeg, { limitInputPixels: limits.maxPixels, failOn: 'error' });
    // The preview's own orientation where it has one, else the RAW's.
    return { img, orientation: (meta.orientation ?? 1) > 1 ? meta.orientation : orientation };
  }
  if (ext === '.bmp') {
    const tools = findFfmpeg();
    if (!tools) throw new ExtractError('decoder_missing', 'BMP needs ffmpeg, which was not found');
    const png = path.join(scratch, 'decoded.png');
    const r = await runTool(tools.ffmpeg, ['-v', 'error', '-y', '-i', file, '-frames:v', '1', png], { timeoutMs: 60_000 });
    if (r.code !== 0) throw ffmpegFailure(r.stderr);
    return { img: sharp(await fs.promises.readFile(png), { limitInputPixels: limits.maxPixels }) };
  }
  return { img: sharp(file, { limitInputPixels: limits.maxPixels, failOn: lenient ? 'none' : 'error', animated: false }) };
}

/**
 * The largest share of a picture, from one of its edges inwards, that is one flat colour (within 2
 * levels): where a decoder filled what its data did not reach. The bottom of the stored picture,
 * which its turn may have brought to another edge.
 */
async function flatEdgeShare(jpeg: Buffer): Promise<number> {
  const { data, info } = await sharp(jpeg).raw().toBuffer({ resolveWithObject: true });
  const { width: w, height: h, channels: c } = info;
  // Whether the row (or column) at `i` is flat: every sample within 2 levels.
  const flat = (i: number, rows: boolean) => {
    let lo = 255;
    let hi = 0;
    for (let j = 0; j < (rows ? w : h); j++) {
      const at = rows ? (i * w + j) * c : (j * w + i) * c;
      for (let k = 0; k < c; k++) {
        lo = Math.min(lo, data[at + k]);
        hi = Math.max(hi, data[at + k]);
      }
    }
    return hi - lo <= 2;
  };
  const run = (from: number, step: number, n: number, rows: boolean) => {
    let count = 0;
    for (let i = from; count < n && flat(i, rows); i += step) count++;
    return count / n;
  };
  return Math.max(run(h - 1, -1, h, true), run(0, 1, h, true), run(0, 1, w, false), run(w - 1, -1, w, false));
}

/** What a decoder says of a file whose data stops before the picture's end (a copy cut short). */
const ENDS_EARLY = /premature end|truncated|unexpected end|end of (file|stream|data)/i;

/**
 * Whether a PNG stops before its end, which libpng does not say: it reads "read error" of a file
 * cut short as of a damaged chunk. A whole PNG ends with its IEND chunk (its length 0, its type,
 * its CRC: the last 12 bytes).
 */
async function pngCutShort(file: string, ext: string): Promise<boolean> {
  if (ext.toLowerCase() !== '.png') return false;
  const handle = await fs.promises.open(file, 'r');
  try {
    const { size } = await handle.stat();
    const tail = Buffer.alloc(Math.min(size, 12));
    await handle.read(tail, 0, tail.length, size - tail.length);
    return !tail.includes('IEND');
  } finally {
    await handle.close();
  }
}

export async function extractImage(file: string, ext: string, assetDir: string): Promise<ExtractOutput> {
  await fs.promises.mkdir(assetDir, { recursive: true });
  const scratch = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'mi-img-'));
  try {
    // The picture decoded, turned and brought down to the stored frame; `lenient`: as far as its data goes.
    const read = async (lenient: boolean) => {
      const decoded = await decodeWithFallback(file, ext, scratch, lenient);
      const img = decoded.orientation === undefined ? decoded.img.rotate() : oriented(decoded.img, decoded.orientation);
      const frame = await img
        .clone()
        .resize({ width: FRAME_LONG_SIDE, height: FRAME_LONG_SIDE, fit: 'inside', withoutEnlargement: true })
        .flatten({ background: '#ffffff' })
        .jpeg({ quality: 88 })
        .toBuffer({ resolveWithObject: true });
      const meta = await img.metadata();
      const swap = (decoded.orientation ?? meta.orientation ?? 1) >= 5;
      return {
        normalized: frame.data,
        width: (swap ? meta.height : meta.width) ?? frame.info.width,
        height: (swap ? meta.width : meta.height) ?? frame.info.height,
      };
    };
    let width: number;
    let height: number;
    let normalized: Buffer;
    let damaged: string | null = null;
    try {
      ({ normalized, width, height } = await read(false));
    } catch (err) {
      if (err instanceof ExtractError) throw err;
      const msg = (err as Error).message;
      if (/pixel limit/i.test(msg)) throw new ExtractError('too_large', `the image has more than ${limits.maxPixels} pixels`);
      // The decoder's first line, without its trailing colon ("Input file has corrupt header:").
      const why = `the file is damaged (${msg.split('\n')[0].replace(/[\s:]+$/, '')})`;
      // Cut short (a copy interrupted, a card pulled out): what is there is shown, as photo programs
      // show it, the rest grey (JPEG) or black (PNG); and said so. Anything else damaged is refused.
      if (!ENDS_EARLY.test(msg) && !(await pngCutShort(file, ext))) throw new ExtractError('corrupt', why);
      let shown: Awaited<ReturnType<typeof read>>;
      try {
        shown = await read(true);
      } catch {
        throw new ExtractError('corrupt', why);
      }
      // The decoder fills what is missing with one grey: nearly all of it, no picture to show.
      const missing = await flatEdgeShare(shown.normalized);
      if (missing > 0.9) throw new ExtractError('corrupt', why);
      ({ normalized, width, height } = shown);
      damaged = `the file ends early: ${missing >= 0.01 ? `${Math.round(missing * 100)} %` : 'some'} of the picture is missing (it may have been copied only in part)`;
    }
    await fs.promises.writeFile(path.join(assetDir, 'frame.jpg'), normalized);
    const thumb = await sharp(normalized)
      .resize({ width: THUMB_LONG_SIDE, height: THUMB_LONG_SIDE, fit: 'inside' })
      .jpeg({ quality: 80 })
      .toBuffer({ resolveWithObject: true });
    await fs.promises.writeFile(path.join(assetDir, 'thumb.jpg'), thumb.data);
    const frameMeta = await sharp(normalized).metadata();
    return {
      facts: { width, height },
      pages: [],
      shots: [],
      frames: [{ timestamp: 0, kind: 'frame', file: 'frame.jpg', width: frameMeta.width ?? 0, height: frameMeta.height ?? 0, shot: null }],
      audio: null,
      thumbnail: 'thumb.jpg',
      details: damaged ? { damaged } : {},
    };
  } finally {
    await fs.promises.rm(scratch, { recursive: true, force: true });
  }
}
