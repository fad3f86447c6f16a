// Photos: decoded once with sharp (EXIF orientation applied), written as the normalized frame the
// stages read and a thumbnail. BMP and HEIC/HEIF, which sharp's bundled libvips does not decode,
// go through ffmpeg (BMP) and heic-decode (HEIC/HEIF) first.
import fs from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { createRequire } from 'node:module';
import sharp, { type Sharp } from 'sharp';
import { limits } from '../config.ts';
import { findFfmpeg, ffmpegFailure, runTool } from './ffmpeg.ts';
import { ExtractError, THUMB_LONG_SIDE, type ExtractOutput } from './types.ts';

const require = createRequire(import.meta.url);

export const FRAME_LONG_SIDE = 2048;
/** Decoded pixels above this are refused (decompression bombs). */

sharp.concurrency(1); // one libvips thread per indexer process: the pool already uses every core
sharp.cache(false);

async function decodeWithFallback(file: string, ext: string, scratch: string): Promise<Sharp> {
  if (ext === '.heic' || ext === '.heif') {
    const decode = require('heic-decode') as (o: { buffer: Buffer }) => Promise<{ width: number; height: number; data: Uint8ClampedArray }>;
    try {
      const img = await decode({ buffer: await fs.promises.readFile(file) });
      if (img.width * img.height > limits.maxPixels) throw new ExtractError('too_large', `${img.width}x${img.height} pixels`);
      return sharp(Buffer.from(img.data.buffer), { raw: { width: img.width, height: img.height, channels: 4 } });
    } catch (err) {
      if (err instanceof ExtractError) throw err;
      throw new ExtractError('corrupt', `HEIC decode failed (${(err as Error).message})`);
    }
  }
  if (ext === '.bmp') {
    const tools = findFfmpeg();
    if (!tools) throw new ExtractError('decoder_missing', 'BMP needs ffmpeg, which was not found');
    const png = path.join(scratch, 'decoded.png');
    const r = await runTool(tools.ffmpeg, ['-v', 'error', '-y', '-i', file, '-frames:v', '1', png], { timeoutMs: 60_000 });
    if (r.code !== 0) throw ffmpegFailure(r.stderr);
    return sharp(await fs.promises.readFile(png), { limitInputPixels: limits.maxPixels });
  }
  return sharp(file, { limitInputPixels: limits.maxPixels, failOn: 'error', animated: false });
}

export async function extractImage(file: string, ext: string, assetDir: string): Promise<ExtractOutput> {
  await fs.promises.mkdir(assetDir, { recursive: true });
  const scratch = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'mi-img-'));
  try {
    let img: Sharp;
    let width: number;
    let height: number;
    let normalized: Buffer;
    try {
      img = (await decodeWithFallback(file, ext, scratch)).rotate();
      const frame = await img
        .clone()
        .resize({ width: FRAME_LONG_SIDE, height: FRAME_LONG_SIDE, fit: 'inside', withoutEnlargement: true })
        .flatten({ background: '#ffffff' })
        .jpeg({ quality: 88 })
        .toBuffer({ resolveWithObject: true });
      normalized = frame.data;
      const meta = await img.metadata();
      const swap = (meta.orientation ?? 1) >= 5;
      width = (swap ? meta.height : meta.width) ?? frame.info.width;
      height = (swap ? meta.width : meta.height) ?? frame.info.height;
    } catch (err) {
      if (err instanceof ExtractError) throw err;
      const msg = (err as Error).message;
      if (/pixel limit/i.test(msg)) throw new ExtractError('too_large', `the image has more than ${limits.maxPixels} pixels`);
      throw new ExtractError('corrupt', `${msg}`);
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
      details: {},
    };
  } finally {
    await fs.promises.rm(scratch, { recursive: true, force: true });
  }
}
