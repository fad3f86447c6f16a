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
