// Text in photos and video frames read by PP-OCR (the `ppocr-v6` model, imported from a folder: its
// text detector, recognizer and line classifier as ONNX) — chosen over tesseract where it is
// installed and the languages asked for are written in Latin letters (Devanagari has no PP-OCR model
// here). Measured on the held-out half of 36 real photos transcribed by hand (bench/photo-text.ts,
// docs/performance.md): tesseract misses most of a page photographed on a curve or at an angle and
// much of the text of street scenes, PP-OCR reads them.
// The detector finds each line (text-detect.ts: its direction and, on a curved page, its bend); each
// line is cut out along them, read, and read turned too where the classifier takes it for upside
// down (text-recognize.ts). Lines are gathered into paragraphs in reading order.
import path from 'node:path';
import { textLines, type DetectorModel } from './text-detect.ts';
import { readLines, unclipped, type OrientedBox, type RecognizerModel } from './text-recognize.ts';
import { open, pixelsOf, type Pixels } from './pixels.ts';
import type { OcrLine, OcrParagraph } from './ocr.ts';
import { PHOTO_TEXT_MODEL } from './catalogue.ts';
import { RECTIFIED_LONG_SIDE, insideQuad, lineInPicture, pageQuad, rectify } from './page-perspective.ts';

/**
 * Long side the detector looks at; smaller pictures are enlarged up to twice (small print in a
 * 512 px photo is found only then). Chosen on the tuning half: 1600 and 2048 px read no more words.
 */
export const PHOTO_TEXT_LONG_SIDE = 1024;
/** How much a line is widened before reading (chosen on the tuning half: word recall 0.932 at 1.0, 0.940 at 1.3). */
const STRETCH = 1.3;
/** Lines read with less mean confidence than this are dropped (mostly texture taken for text). */
export const MIN_LINE_CONFIDENCE = 0.5;
/** A line of at most three letters and digits needs this (a brick, a leaf, a wheel read as "8", "IT", "AaD"). */
const MIN_SHORT_LINE_CONFIDENCE = 0.9;

/**
 * Whether a line read is text worth keeping: sure enough (more so when short), and written mostly
 * in Latin letters and digits — the languages asked for are; the recognizer also knows Chinese, and
 * reads patterns of photos without text as Chinese characters.
 */
export function worthKeeping(text: string, confidence: number): boolean {
  const signs = [...text.replace(/[^\p{L}\p{N}]/gu, '')];
  if (signs.length === 0 || confidence < MIN_LINE_CONFIDENCE) return false;
  const latin = signs.filter((c) => /[\p{Script=Latin}\p{N}]/u.test(c)).length;
  if (latin < signs.length / 2) return false;
  return latin > 3 || confidence >= MIN_SHORT_LINE_CONFIDENCE;
}

export interface PhotoTextModels {
  detector: DetectorModel;
  recognizer: RecognizerModel;
}

/** The files of the imported model (models/manifest.json `ppocr-v6`) in the models folder. */
export function photoTextModels(modelsDir: string): PhotoTextModels {
  const dir = path.join(modelsDir, PHOTO_TEXT_MODEL);
  return {
    detector: { file: path.join(dir, 'PP-OCRv6_det_small.onnx'), mean: [0.5, 0.5, 0.5], std: [0.5, 0.5, 0.5] },
    recognizer: {
      file: path.join(dir, 'PP-OCRv6_rec_small.onnx'),
      keys: path.join(dir, 'keys.txt'),
      classifier: path.join(dir, 'ch_ppocr_mobile_v2.0_cls_mobile.onnx'),
    },
  };
}

/** A line read, with where it is: the line as the detector found it, and the bounds of its text (grown back) in pixels. */
export interface LineFound extends OcrLine {
  line: OrientedBox;
}

/**
 * The lines of text of a picture (upright), read, sure enough, in reading order; boxes in its
 * pixels. A page photographed at a slant (page-perspective.ts) has its text block drawn again as a
 * rectangle and read there too, the lines found outside the block read where they are; of the two
 * readings, the one with more characters read, weighed by how sure the recognizer is of each, is
 * kept (a block drawn from margins found wrong reads worse, and a slant the recognizer takes in its
 * stride reads as well as drawn again). `perspective: false` reads every line where it is.
 */
export async function readPhotoLines(image: Pixels, models: PhotoTextModels, opts: { perspective?: boolean } = {}): Promise<LineFound[]> {
  const rgb = image.channels === 3 ? image : await pixelsOf(open(image).removeAlpha().toColourspace('srgb'));
  const size = { width: rgb.width, height: rgb.height };
  const boxes = await textLines(rgb, size, { model: models.detector, longSide: PHOTO_TEXT_LONG_SIDE, enlarge: true });
  const asFound = await readHere(rgb, boxes, models, size);
  const quad = opts.perspective === false ? null : pageQuad(boxes, size);
  const page = quad ? rectify(rgb, quad, RECTIFIED_LONG_SIDE) : null;
  if (!quad || !page) return inReadingOrder(asFound, (l) => l.line);
  const inBlock = await readHere(page, await textLines(page, page, { model: models.detector, longSide: PHOTO_TEXT_LONG_SIDE, enlarge: true }), models, page);
  // Each line once: from the block drawn again where its middle is in the block, else as found.
  const drawnAgain = [
    ...inBlock
      .map((l) => {
        const line = lineInPicture(l.line, page.toPicture);
        return { ...l, line, bbox: bounds(unclipped(line), size) };
      })
      .filter((l) => insideQuad(quad, [l.line.cx, l.line.cy])),
    ...asFound.filter((l) => !insideQuad(quad, [l.line.cx, l.line.cy])),
  ];
  return inReadingOrder(sureCharacters(drawnAgain) > sureCharacters(asFound) ? drawnAgain : asFound, (l) => l.line);
}

/** Characters read (spaces aside), each weighed by the line's confidence. */
function sureCharacters(lines: LineFound[]): number {
  return lines.reduce((n, l) => n + (l.confidence / 100) * l.text.replace(/\s/g, '').length, 0);
}

/** The lines of `boxes` read in `rgb`, those worth keeping, with their bounds in it. */
async function readHere(rgb: Pixels, boxes: OrientedBox[], models: PhotoTextModels, size: { width: number; height: number }): Promise<LineFound[]> {
  const read = boxes.length ? await readLines(rgb, boxes, models.recognizer, STRETCH) : [];
  const found: LineFound[] = [];
  boxes.forEach((line, i) => {
    const { text, confidence } = read[i];
    if (!worthKeeping(text, confidence)) return;
    found.push({ text, confidence: confidence * 100, bbox: bounds(unclipped(line), size), line });
  });
  return found;
}

/** The axis-aligned bounds of a turned box, inside the picture. */
function bounds(b: OrientedBox, size: { width: number; height: number }): OcrLine['bbox'] {
  const [c, s] = [Math.cos(b.angle), Math.sin(b.angle)];
  const [hx, hy] = [Math.abs(c) * b.length + Math.abs(s) * b.thickness, Math.abs(s) * b.length + Math.abs(c) * b.thickness].map((v) => v / 2);
  const bend = b.bend ? Math.max(...b.bend.map(Math.abs)) : 0;
  return {
    x0: Math.max(0, b.cx - hx - bend * Math.abs(s)),
    y0: Math.max(0, b.cy - hy - bend * Math.abs(c)),
    x1: Math.min(size.width, b.cx + hx + bend * Math.abs(s)),
    y1: Math.min(size.height, b.cy + hy + bend * Math.abs(c)),
  };
}

/** Lines top to bottom by their middles, left to right where two share a line's height (`place`: where each is). */
export function inReadingOrder<T>(lines: T[], place: (line: T) => { cx: number; cy: number; thickness: number }): T[] {
  return [...lines].sort((x, y) => {
    const [a, b] = [place(x), place(y)];
    return Math.abs(a.cy - b.cy) < Math.min(a.thickness, b.thickness) / 2 ? a.cx - b.cx : a.cy - b.cy;
  });
}

/**
 * Lines in reading order gathered into paragraphs: a line joins the paragraph above it when it
 * starts under it (their spans across overlap) and no more than one and a half of its thickness
 * below it; else it starts a paragraph of its own.
 */
export function paragraphsOf(lines: LineFound[]): OcrParagraph[] {
  const out: Array<OcrParagraph & { last: LineFound }> = [];
  for (const l of lines) {
    const near = out.find((p) => {
      const a = p.last.bbox;
      const gap = l.bbox.y0 - a.y1;
      return l.bbox.x0 < a.x1 && a.x0 < l.bbox.x1 && gap < 1.5 * l.line.thickness && gap > -l.line.thickness;
    });
    if (near) {
      near.lines.push(l);
      near.last = l;
      near.bbox = {
        x0: Math.min(near.bbox.x0, l.bbox.x0),
        y0: Math.min(near.bbox.y0, l.bbox.y0),
        x1: Math.max(near.bbox.x1, l.bbox.x1),
        y1: Math.max(near.bbox.y1, l.bbox.y1),
      };
    } else out.push({ text: '', bbox: { ...l.bbox }, lines: [l], last: l });
  }
  return out.map(({ bbox, lines: ls }) => ({
    text: ls.map((l) => l.text).join('\n'),
    bbox,
    lines: ls.map(({ text, bbox: b, confidence }) => ({ text, bbox: b, confidence })),
  }));
}
