// How much of a rendered page is ink: a page under BLANK_INK (blank, or a lone running header or
// page number) has nothing worth reading by OCR.

export const BLANK_INK = 0.002;

/** Width, in pixels, of the small copy on which ink is measured. */
export const INK_WIDTH = 300;

/** Share of dark pixels on a small grey copy of the picture (sharp is loaded here, on first use). */
export async function inkShare(picture: Buffer): Promise<number> {
  const { default: sharp } = await import('sharp');
  const { data } = await sharp(picture).grayscale().resize({ width: INK_WIDTH }).raw().toBuffer({ resolveWithObject: true });
  let dark = 0;
  for (const v of data) if (v < 128) dark++;
  return dark / data.length;
}

/** Share of dark pixels in RGBA pixels (a page drawn INK_WIDTH wide), grey as luma. */
export function inkShareOfRgba(rgba: Uint8Array | Uint8ClampedArray): number {
  let dark = 0;
  for (let i = 0; i < rgba.length; i += 4) if (0.2126 * rgba[i] + 0.7152 * rgba[i + 1] + 0.0722 * rgba[i + 2] < 128) dark++;
  return dark / Math.max(1, rgba.length / 4);
}

/** Grey (luma) under which a pixel is taken as something printed rather than paper, light grey print included. */
const PAPER = 230;

/**
 * The box of everything drawn on a page (a pixel darker than paper), as fractions of it, from its
 * RGBA pixels (a page drawn small); null where nothing is.
 */
export function inkBox(rgba: Uint8Array | Uint8ClampedArray, width: number, height: number): { x0: number; y0: number; x1: number; y1: number } | null {
  let x0 = width;
  let y0 = height;
  let x1 = -1;
  let y1 = -1;
  for (let y = 0; y < height; y++) {
    for (let x = 0, i = y * width * 4; x < width; x++, i += 4) {
      if (0.2126 * rgba[i] + 0.7152 * rgba[i + 1] + 0.0722 * rgba[i + 2] >= PAPER) continue;
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      y1 = y;
    }
  }
  return x1 < 0 ? null : { x0: x0 / width, y0: y0 / height, x1: (x1 + 1) / width, y1: (y1 + 1) / height };
}
