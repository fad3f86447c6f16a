// A picture decoded once: its pixels, handed from step to step of a stage instead of a file or an
// encoded image that each step would decode again (the OCR of a photo reads it five to seven times:
// the text detector, the tilt, the look around the text, the reading itself).
import sharp, { type Sharp, type SharpOptions } from 'sharp';

export interface Pixels {
  data: Buffer;
  width: number;
  height: number;
  channels: 1 | 2 | 3 | 4;
}

/** A file, an encoded image, or pixels already decoded. */
export type Picture = Buffer | string | Pixels;

export const isPixels = (p: Picture): p is Pixels => typeof p === 'object' && !Buffer.isBuffer(p);

/** The picture as a sharp pipeline (pixels carry no EXIF: they are stored the way up they were decoded). */
export function open(p: Picture, options?: SharpOptions): Sharp {
  return isPixels(p) ? sharp(p.data, { raw: { width: p.width, height: p.height, channels: p.channels } }) : sharp(p, options);
}

/** The pipeline's output as pixels. */
export async function pixelsOf(image: Sharp): Promise<Pixels> {
  const { data, info } = await image.raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, channels: info.channels };
}
