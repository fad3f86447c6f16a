// How much of a rendered page is ink: a page under BLANK_INK (blank, or a lone running header or
// page number) has nothing worth reading by OCR.
import sharp from 'sharp';

export const BLANK_INK = 0.002;

/** Share of dark pixels on a small grey copy of the picture. */
export async function inkShare(picture: Buffer): Promise<number> {
  const { data } = await sharp(picture).grayscale().resize({ width: 300 }).raw().toBuffer({ resolveWithObject: true });
  let dark = 0;
  for (const v of data) if (v < 128) dark++;
  return dark / data.length;
}
