// A face cut out of its picture for a grid of faces: a square around the box with a margin of a
// quarter of the face on each side (kept inside the picture), shrunk to `size` px, as JPEG.
import fs from 'node:fs';
import path from 'node:path';
import type { Box } from '../contract/common.ts';

/** The square (in pixels of a `width` × `height` picture) a face crop shows. */
export function cropSquare(box: Box, width: number, height: number): { left: number; top: number; width: number; height: number } {
  const side = Math.min(width, height, Math.max(1, Math.round(Math.max(box.w * width, box.h * height) * 1.5)));
  const cx = (box.x + box.w / 2) * width;
  const cy = (box.y + box.h / 2) * height;
  const left = Math.round(Math.min(Math.max(0, cx - side / 2), width - side));
  const top = Math.round(Math.min(Math.max(0, cy - side / 2), height - side));
  return { left, top, width: side, height: side };
}

/**
 * Writes the crop to `out` (through a temporary file, so a reader never sees half of it). sharp is
 * loaded on the first crop: the service starts without any image or model library.
 */
export async function cropFace(picture: string, box: Box, size: number, out: string): Promise<void> {
  const { default: sharp } = await import('sharp');
  const image = sharp(picture, { failOn: 'none' });
  const { width, height } = await image.metadata();
  if (!width || !height) throw new Error('the picture has no size');
  fs.mkdirSync(path.dirname(out), { recursive: true, mode: 0o700 });
  const tmp = `${out}.${process.pid}.${Date.now()}.tmp`;
  try {
    await image
      .extract(cropSquare(box, width, height))
      .resize(size, size, { fit: 'fill' })
      .jpeg({ quality: 82, mozjpeg: true })
      .toFile(tmp);
    fs.renameSync(tmp, out);
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}
