// Worker side of the picture stages: each picture they look at (a photo's normalized frame, the
// picture pages of a document, or frames sampled from a video at the stage's rate: those the shots
// pass kept, where it did), decoded at most once.
import fs from 'node:fs';
import path from 'node:path';
import sharp, { type Sharp } from 'sharp';
import { sampledFrames } from '../media/video.ts';
import type { RunProgress, StageAsset } from './stage.ts';
import type { PictureInput } from './picture-input.ts';
import type { PdfPageDrawer } from '../media/pdf.ts';
import { open, type Pixels } from '../ml/pixels.ts';

export interface Rgb {
  data: Buffer;
  width: number;
  height: number;
}

export interface Picture {
  timestamp: number;
  page: number | null;
  image: Sharp;
  /** Its width and height, read from the file's header. */
  size: { width: number; height: number };
  /** Its pixels, decoded on the first call (a stage that only resizes it, as objects' first look, never decodes it whole). */
  pixels(): Promise<Rgb>;
  /** Original pixels per analysed pixel. */
  scale: number;
}

async function decode(file: string, timestamp: number, page: number | null, scale: number): Promise<Picture> {
  const image = sharp(file).removeAlpha();
  const { width, height } = await image.metadata();
  if (!width || !height) throw new Error(`${path.basename(file)} has no size`);
  let rgb: Promise<Rgb> | null = null;
  const pixels = () =>
    (rgb ??= image
      .clone()
      .raw()
      .toBuffer({ resolveWithObject: true })
      .then(({ data, info }) => ({ data, width: info.width, height: info.height })));
  return { timestamp, page, image, size: { width, height }, pixels, scale };
}

/** A frame already decoded (a video's, from ffmpeg). */
function decoded(pixels: Pixels, timestamp: number): Picture {
  const rgb: Rgb = { data: pixels.data, width: pixels.width, height: pixels.height };
  return { timestamp, page: null, image: open(pixels), size: { width: rgb.width, height: rgb.height }, pixels: () => Promise.resolve(rgb), scale: 1 };
}

let drawer: PdfPageDrawer | null = null;

/**
 * A document's page drawn into its render file unless it is there (extraction draws the first page
 * only; the first picture stage to look at a page draws it, the others and the viewer find it). One
 * drawer per process keeps the last document open.
 */
export async function drawnPage(original: string, page: number, file: string): Promise<void> {
  if (fs.existsSync(file)) return;
  drawer ??= new (await import('../media/pdf.ts')).PdfPageDrawer();
  await drawer.draw(original, page, file);
}

/** Worker side: yields each picture (decoded at most once), then frees it. */
export async function* pictures(
  asset: StageAsset,
  assetDir: string,
  input: PictureInput,
  fps: number,
  progress?: (p: RunProgress) => void,
): AsyncGenerator<Picture> {
  if (asset.kind === 'image') {
    yield await decode(path.join(assetDir, 'frame.jpg'), 0, null, input.scale);
  } else if (asset.kind === 'document') {
    for (const [i, p] of input.pages.entries()) {
      // The pages looked at before this one.
      progress?.({ done: i, total: input.pages.length, unit: 'pages' });
      await drawnPage(asset.filePath, p.page, p.file);
      yield await decode(p.file, p.page - 1, p.page, 1);
    }
  } else {
    const duration = asset.durationS ?? 0;
    for await (const f of sampledFrames(asset.filePath, assetDir, fps)) {
      if (duration > 0) progress?.({ done: Math.min(f.timestamp, duration), total: duration, unit: 'seconds' });
      yield decoded(f.pixels, f.timestamp);
    }
  }
}
