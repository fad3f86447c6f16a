// ocr, the run: tesseract (ml/ocr.ts) on a photo, the pages of a document that need it (the part of
// each that holds anything, drawn at reading resolution) or frames sampled from a video. A page with
// almost no ink is not read. Photos and frames are read by PP-OCR instead (ml/photo-text.ts) where
// its model is installed and the languages asked for are written in Latin letters.
import path from 'node:path';
import sharp, { type SharpOptions } from 'sharp';
import { prepareForReading, readingScale, recognize, textSkew, type OcrLanguage, type OcrParagraph } from '../../ml/ocr.ts';
import { BUNDLED_DETECTOR, DETECT_LONG_SIDE, textRegions, textRegionsAndLines, type TextRegion } from '../../ml/text-detect.ts';
import type { OrientedBox } from '../../ml/text-recognize.ts';
import { MIN_PAGE_LINES, boundsInPicture, insideQuad, pageQuad, rectify, RECTIFIED_LONG_SIDE } from '../../ml/page-perspective.ts';
import { providerRan } from '../../ml/providers.ts';
import { pagesForReading, type DrawnForReading } from '../../media/pdf.ts';
import { sampledFrames } from '../../media/video.ts';
import { videoFps } from '../picture-input.ts';
import { changeBetween, overlaps, partsToRead, sketchOf, type Sketch } from '../../ml/frame-change.ts';
import { ExtractError } from '../../media/types.ts';
import { pixelArea, relativeBox, unrotate, type Box, type Corners } from '../../geometry.ts';
import { FRAME_LONG_SIDE } from '../../media/image.ts';
import { BLANK_INK } from '../../media/ink.ts';
import { markRunningHeads } from '../../media/layout.ts';
import { isPixels, open, pixelsOf, type Picture, type Pixels } from '../../ml/pixels.ts';
import { isInstalled, modelsDir } from '../../ml/models.ts';
import { PHOTO_TEXT_MODEL } from '../../ml/catalogue.ts';
import { paragraphsOf, photoTextModels, readPhotoLines, type PhotoTextModels } from '../../ml/photo-text.ts';
import { longSReader } from '../../ml/long-s.ts';
import { defineRunner, failedBecause, ok } from '../stage.ts';
import { ocrStage, type OcrOutput, type ReadFrame, type ReadParagraph } from './ocr.stage.ts';

/** Long side, in pixels, at which document pages are drawn for reading (about 250 dpi for A4). */
export const OCR_PAGE_LONG_SIDE = 2900;

function normalize(paragraphs: OcrParagraph[], w: number, h: number): ReadParagraph[] {
  const box = (b: Corners) => relativeBox(b, { width: w, height: h });
  return paragraphs.map((p) => ({
    text: p.text,
    box: box(p.bbox),
    lines: p.lines.map((l) => ({ text: l.text, box: box(l.bbox), confidence: l.confidence / 100 })),
  }));
}

/** Long side of the first, quick look at a photo or frame: most pictures hold no text at all. */
const PROBE_LONG_SIDE = 1024;

/** Paragraphs with every box scaled by `k` (from the pixels of a copy read to those of the picture). */
function scaled(paragraphs: OcrParagraph[], k: number, map = (b: Corners) => b): OcrParagraph[] {
  const box = (b: Corners) => map({ x0: b.x0 * k, y0: b.y0 * k, x1: b.x1 * k, y1: b.y1 * k });
  return paragraphs.map((p) => ({ ...p, bbox: box(p.bbox), lines: p.lines.map((l) => ({ ...l, bbox: box(l.bbox) })) }));
}

/** Whether a quick look costs much less than a full reading (not so for a 1280 px frame, read once). */
function worthALook(width: number, height: number, prepare: 'photo' | 'frame'): boolean {
  return readingScale(width, height, { upscale: false, longSide: PROBE_LONG_SIDE }) / readingScale(width, height, { upscale: prepare === 'photo' }) < 0.75;
}

/**
 * Reads a photo or frame; boxes in its pixels. It is prepared first, and read in full (enlarged or
 * at 1600 px) only when a quick look at 1024 px, not enlarged, finds any text: a picture without
 * text costs a quarter to a tenth of a full reading (measured on the corpus: no text image lost its
 * text).
 */
async function readPicture(
  image: Pixels,
  width: number,
  height: number,
  languages: OcrLanguage[],
  prepare: 'photo' | 'frame',
  looked = false,
): Promise<OcrParagraph[]> {
  const full = { upscale: prepare === 'photo' };
  const quick = { upscale: false, longSide: PROBE_LONG_SIDE };
  // Where the quick look would be most of a full reading (a 1280 px frame), the picture is read once.
  if (!looked && worthALook(width, height, prepare)) {
    const probe = await recognize(await prepareForReading(image, quick), languages);
    if (probe.length === 0) return [];
  }
  const input = await prepareForReading(image, full);
  const size = await sharp(input).metadata();
  return scaled(await recognize(input, languages, { wholeBlock: prepare === 'photo' }), width / (size.width ?? width));
}

/**
 * Reads an image; boxes come back normalized to it. A photo or frame in which the text detector
 * finds no text is not read at all (most pictures: on 200 varied photos, 162, and none of them
 * gave tesseract anything to read). A photo or frame whose lines of text are tilted
 * (a page photographed at an angle) is turned level first (tesseract reads a page tilted by 10°
 * as nothing: imageTextR.png), and the boxes found are mapped back onto the picture as stored.
 * A photo or frame is decoded once (upright, on white); every look after works on its pixels.
 */
async function read(picture: Picture, languages: OcrLanguage[], prepare: 'photo' | 'frame', ppocr: PhotoTextModels | null): Promise<ReadParagraph[]> {
  const image = isPixels(picture) ? picture : await uprightOnWhite(picture);
  const [w, h] = [image.width, image.height];
  const { regions, lines } = await textRegionsAndLines(image, { width: w, height: h });
  if (regions.length === 0) return [];
  if (ppocr) return normalize(paragraphsOf(await readPhotoLines(image, ppocr)), w, h);
  // The quick look, where one is worth it, reads only around the regions found.
  const looked = worthALook(w, h, prepare);
  if (looked && !(await textAround(image, w, h, regions, languages))) return [];
  const asFound = await readLevelled(image, languages, prepare, looked);
  return regions.length >= MIN_PAGE_LINES ? readSlantedPage(image, lines(), languages, prepare, asFound) : asFound;
}

/**
 * A document's page as drawn for reading (the part of it that holds anything), turned level first
 * where its lines of text are tilted (a page scanned or photographed askew, which tesseract reads
 * as nothing or in part from a few degrees on): its boxes taken back to the whole page. The tilt is
 * measured on the small copy of the page its ink was measured on (3–15 ms a page; on the whole
 * drawing, 50–135 ms, for the same angles on the corpus's pages).
 */
async function readPage({ png, area, page, small }: DrawnForReading, languages: OcrLanguage[]): Promise<ReadParagraph[]> {
  const shift = (b: Corners) => ({ x0: b.x0 + area.left, y0: b.y0 + area.top, x1: b.x1 + area.left, y1: b.y1 + area.top });
  const skew = await textSkew(small);
  if (skew === 0) return normalize(scaled(await recognize(png, languages), 1, shift), page.width, page.height);
  const { data, info } = await open(png).rotate(skew, { background: '#ffffff' }).png({ compressionLevel: 1 }).toBuffer({ resolveWithObject: true });
  const turned = { width: info.width, height: info.height };
  const back = (b: Corners) => shift(unrotate(b, skew, turned, { width: area.width, height: area.height }));
  return normalize(scaled(await recognize(data, languages), 1, back), page.width, page.height);
}

/** A photo or frame read by tesseract, turned level first where its lines of text are tilted. */
async function readLevelled(image: Pixels, languages: OcrLanguage[], prepare: 'photo' | 'frame', looked: boolean): Promise<ReadParagraph[]> {
  const [w, h] = [image.width, image.height];
  const skew = await textSkew(image);
  if (skew === 0) return normalize(await readPicture(image, w, h, languages, prepare, looked), w, h);
  const turned = await pixelsOf(open(image).rotate(skew, { background: '#ffffff' }));
  const size = { width: turned.width, height: turned.height };
  const paragraphs = await readPicture(turned, size.width, size.height, languages, prepare, looked);
  return normalize(
    scaled(paragraphs, 1, (b) => unrotate(b, skew, size, { width: w, height: h })),
    w,
    h,
  );
}

/**
 * A page photographed at a slant (ml/page-perspective.ts; `lines` as the detector found them): its text block drawn again as the
 * rectangle it was printed as and read there, its boxes taken back to the photo, with the
 * paragraphs read as found outside the block; kept where it reads more characters, weighed by
 * tesseract's confidence, than `asFound` (the reading as the photo is). Tesseract reads a page seen
 * at a slant badly: a page of Wonderland, 0.31 of its words as found, 0.68 drawn again.
 */
async function readSlantedPage(
  image: Pixels,
  lines: OrientedBox[],
  languages: OcrLanguage[],
  prepare: 'photo' | 'frame',
  asFound: ReadParagraph[],
): Promise<ReadParagraph[]> {
  const [w, h] = [image.width, image.height];
  const quad = pageQuad(lines, { width: w, height: h });
  const page = quad ? rectify(image, quad, RECTIFIED_LONG_SIDE) : null;
  if (!quad || !page) return asFound;
  const back = (b: Corners) => boundsInPicture(b, page.toPicture, { width: w, height: h });
  const drawn = scaled(await readPicture(page, page.width, page.height, languages, prepare, true), 1, back);
  // Each paragraph once: from the block drawn again where its middle is in the block, else as found.
  const inBlock = (p: ReadParagraph) => insideQuad(quad, [(p.box.x + p.box.w / 2) * w, (p.box.y + p.box.h / 2) * h]);
  const drawnAgain = [...normalize(drawn, w, h).filter(inBlock), ...asFound.filter((p) => !inBlock(p))];
  return sureCharacters(drawnAgain) > sureCharacters(asFound) ? drawnAgain : asFound;
}

/** Characters read (spaces aside), each weighed by its line's confidence. */
const sureCharacters = (paragraphs: ReadParagraph[]): number =>
  paragraphs.reduce((n, p) => n + p.lines.reduce((m, l) => m + l.confidence * l.text.replace(/\s/g, '').length, 0), 0);

/**
 * The quick look: whether tesseract reads anything in the part of the picture around the regions
 * of text found (their bounding box, with a margin of twice the tallest region — the detector
 * marks the core of each line — and 2% of the picture), levelled when tilted, at the scale the
 * whole picture would be looked at (1024 px on the long side, not enlarged). A busy photo in which
 * the detector takes a logo or a pattern for text costs a look at a small part of it.
 */
async function textAround(image: Pixels, width: number, height: number, regions: TextRegion[], languages: OcrLanguage[]): Promise<boolean> {
  const pad = Math.max(...regions.map((r) => r.h)) * 2;
  const [padX, padY] = [(pad * height) / width + 0.02, pad + 0.02];
  const x0 = Math.max(0, Math.min(...regions.map((r) => r.x)) - padX);
  const y0 = Math.max(0, Math.min(...regions.map((r) => r.y)) - padY);
  const x1 = Math.min(1, Math.max(...regions.map((r) => r.x + r.w)) + padX);
  const y1 = Math.min(1, Math.max(...regions.map((r) => r.y + r.h)) + padY);
  let part = await pixelsOf(open(image).extract(pixelArea({ x: x0, y: y0, w: x1 - x0, h: y1 - y0 }, width, height)));
  const skew = await textSkew(part);
  if (skew !== 0) part = await pixelsOf(open(part).rotate(skew, { background: '#ffffff' }));
  const k = readingScale(width, height, { upscale: false, longSide: PROBE_LONG_SIDE });
  const longSide = Math.max(1, Math.round(Math.max(part.width, part.height) * k));
  return (await recognize(await prepareForReading(part, { upscale: false, longSide }), languages)).length > 0;
}

/** Formats read straight from the original (no lossy re-encoding between the camera and the reader). */
const NATIVE = new Set(['.png', '.jpg', '.jpeg', '.webp', '.tif', '.tiff', '.gif', '.avif']);

/** The picture decoded: turned as its EXIF orientation says, transparency on white. */
const uprightOnWhite = (picture: Picture, options?: SharpOptions): Promise<Pixels> =>
  pixelsOf(open(picture, options).rotate().flatten({ background: '#ffffff' }));

/**
 * What to read of a photo: the original, oriented and on white, when sharp reads it and it is no
 * larger than the stored frame (small print suffers from the frame's JPEG re-encoding: CER 0.19 →
 * 0.13 on page.png); else the stored frame.
 */
async function photoToRead(file: string, ext: string, assetDir: string): Promise<Pixels> {
  const frame = path.join(assetDir, 'frame.jpg');
  if (!NATIVE.has(ext)) return uprightOnWhite(frame);
  try {
    const meta = await sharp(file, { animated: false }).metadata();
    if (Math.max(meta.width ?? Infinity, meta.height ?? Infinity) > FRAME_LONG_SIDE) return uprightOnWhite(frame);
    return await uprightOnWhite(file, { animated: false, failOn: 'error' });
  } catch {
    return uprightOnWhite(frame);
  }
}

/** What was read in the last video frame read, when, and the sketch of the frame before the next. */
interface LastRead {
  sketch: Sketch;
  readAt: number;
  paragraphs: ReadParagraph[];
}

/** Every frame this many seconds after the last frame read is read again (a change too slow to be seen from frame to frame). */
const REREAD_S = 30;

/** A frame is read whole where the parts of it to read again (partsToRead) cover more than this share of it. */
const MOST_CHANGED = 0.5;

/** Margin, in pixels of the frame, around a paragraph read again in part of a frame (tesseract reads badly up to the edge of a picture). */
const PART_MARGIN_PX = 12;

/**
 * What a video frame holds, read only where it changed since the frame before: the paragraphs of
 * the last frame read that stand away from what changed, and what is read now in the parts that
 * changed (grown to the whole of each paragraph they touch: partsToRead). Each part is looked at
 * alone by the text detector, at the scale the whole frame would be, and read (by tesseract as a
 * frame is, or by PP-OCR) only where the detector finds text. A camera that does not move sees
 * people come and go; a screen recording's pointer moves and a line is typed: the rest of the
 * frame is not read again (vtest.avi: 4 of its 40 frames read whole, 1 in part; movie-hello.mp4,
 * a terminal: 1 of 4 whole, 3 in part). Null, for a frame to be read whole, where the parts cover
 * more than half of it (a cut, a moving camera), and on a GPU, where the detector runs at a few
 * shapes only (text-detect.ts).
 */
async function readChanged(
  image: Pixels,
  sketch: Sketch,
  last: LastRead,
  languages: OcrLanguage[],
  ppocr: PhotoTextModels | null,
): Promise<{ paragraphs: ReadParagraph[]; parts: number } | null> {
  const change = changeBetween(last.sketch, sketch);
  if (change.boxes.length === 0) return { paragraphs: last.paragraphs, parts: 0 };
  if ((providerRan(path.basename(BUNDLED_DETECTOR.file)) ?? 'cpu') !== 'cpu') return null;
  const [W, H] = [image.width, image.height];
  const parts = partsToRead(
    change.boxes,
    last.paragraphs.map((p) => p.box),
    { x: PART_MARGIN_PX / W, y: PART_MARGIN_PX / H },
  );
  if (parts.reduce((n, b) => n + b.w * b.h, 0) > MOST_CHANGED) return null;
  const k = Math.min(1, DETECT_LONG_SIDE / Math.max(W, H));
  const paragraphs = last.paragraphs.filter((p) => !parts.some((b) => overlaps(b, p.box)));
  let read = 0;
  for (const b of parts) {
    const area = pixelArea(b, W, H);
    const part = await pixelsOf(open(image).extract(area));
    if ((await textRegions(part, Math.max(area.width, area.height) * k)).length === 0) continue;
    read++;
    const found = ppocr
      ? normalize(paragraphsOf(await readPhotoLines(part, ppocr)), part.width, part.height)
      : await readLevelled(part, languages, 'frame', true);
    const inFrame = (box: Box): Box => ({
      x: (area.left + box.x * area.width) / W,
      y: (area.top + box.y * area.height) / H,
      w: (box.w * area.width) / W,
      h: (box.h * area.height) / H,
    });
    paragraphs.push(...found.map((p) => ({ ...p, box: inFrame(p.box), lines: p.lines.map((l) => ({ ...l, box: inFrame(l.box) })) })));
  }
  return { paragraphs, parts: read };
}

/** A reading with the long s of old print read as s where the readers wrote an f (ml/long-s.ts), and how many words changed. */
function withLongS(read: ReadParagraph[]): { paragraphs: ReadParagraph[]; changed: number } {
  const reader = longSReader(read.flatMap((p) => p.lines.map((l) => l.text)));
  let changed = 0;
  const paragraphs = read.map((p) => ({
    ...p,
    text: reader(p.text).text,
    lines: p.lines.map((l) => {
      const r = reader(l.text);
      changed += r.changed;
      return { ...l, text: r.text };
    }),
  }));
  return { paragraphs, changed };
}

/** Languages PP-OCR's recognizer reads (Latin letters); Devanagari is left to tesseract. */
const PHOTO_TEXT_LANGUAGES: ReadonlySet<OcrLanguage> = new Set(['en']);

export const runOcr = defineRunner(ocrStage, async ({ asset, options, assetDir, input, dataDir, progress }) => {
  const languages: OcrLanguage[] = options.languages ?? ['en'];
  const installed = isInstalled(dataDir, PHOTO_TEXT_MODEL);
  const ppocr = installed && languages.every((l) => PHOTO_TEXT_LANGUAGES.has(l)) ? photoTextModels(modelsDir(dataDir)) : null;
  const frames: ReadFrame[] = [];
  let blankPages = 0;
  let framesReadWhole = 0;
  let framesReadInPart = 0;
  try {
    if (asset.kind === 'image') {
      frames.push({ timestamp: 0, page: null, paragraphs: await read(await photoToRead(asset.filePath, asset.ext, assetDir), languages, 'photo', ppocr) });
    } else if (asset.kind === 'document') {
      // A page with almost no ink (blank, or a lone page number) has nothing worth reading: not drawn.
      progress?.({ done: 0, total: input.length, unit: 'pages' });
      for await (const { page, drawn } of pagesForReading(asset.filePath, input, OCR_PAGE_LONG_SIDE, BLANK_INK)) {
        frames.push({ timestamp: page - 1, page, paragraphs: drawn ? await readPage(drawn, languages) : [] });
        if (!drawn) blankPages++;
        progress?.({ done: frames.length, total: input.length, unit: 'pages' });
      }
    } else {
      let last: LastRead | null = null;
      // Frames come upright (ffmpeg turns them as the video is shown) and without transparency.
      const duration = asset.durationS ?? 0;
      for await (const { timestamp, pixels: image } of sampledFrames(asset.filePath, assetDir, videoFps('ocr', options))) {
        if (duration > 0) progress?.({ done: Math.min(timestamp, duration), total: duration, unit: 'seconds' });
        const sketch = await sketchOf(image);
        const changed = last && timestamp - last.readAt < REREAD_S ? await readChanged(image, sketch, last, languages, ppocr) : null;
        if (last && changed) {
          last.sketch = sketch;
          last.paragraphs = changed.paragraphs;
          if (changed.parts > 0) framesReadInPart++;
        } else {
          framesReadWhole++;
          last = { sketch, readAt: timestamp, paragraphs: await read(image, languages, 'frame', ppocr) };
        }
        frames.push({ timestamp, page: null, paragraphs: last.paragraphs });
      }
    }
  } catch (err) {
    if (err instanceof ExtractError) return failedBecause(err);
    throw err;
  }
  // Each reading once: a video's frames share the reading of the frame before while it holds.
  let longS = 0;
  const corrected = new Map<ReadParagraph[], ReadParagraph[]>();
  for (const [i, f] of frames.entries()) {
    let paragraphs = corrected.get(f.paragraphs);
    if (!paragraphs) {
      const r = withLongS(f.paragraphs);
      corrected.set(f.paragraphs, r.paragraphs);
      paragraphs = r.paragraphs;
      longS += r.changed;
    }
    frames[i] = { ...f, paragraphs };
  }
  // A scanned book's running heads and feet ("52 CHAPTER 7. A MAD TEA-PARTY"), as a text layer's
  // are: searched on the first page they are read on only. Pages are placed by their number, so
  // that printed page numbers follow them.
  let runningHeads = 0;
  if (asset.kind === 'document' && frames.length > 0) {
    const pages: Array<{ passages: ReadParagraph[] }> = Array.from({ length: Math.max(...frames.map((f) => f.page ?? 0)) }, () => ({ passages: [] }));
    for (const f of frames) if (f.page) pages[f.page - 1] = { passages: f.paragraphs };
    runningHeads = markRunningHeads(pages);
  }
  const lines = frames.reduce((n, f) => n + f.paragraphs.reduce((m, p) => m + p.lines.length, 0), 0);
  const chars = frames.reduce((n, f) => n + f.paragraphs.reduce((m, p) => m + p.text.length, 0), 0);
  const output: OcrOutput = { kind: asset.kind, frames };
  // The reader of photos and frames, and the optional text models installed when it ran (a run
  // made before one was installed runs again once it is: the stage's `combines`).
  const reader = ppocr && asset.kind !== 'document' ? PHOTO_TEXT_MODEL : 'tesseract';
  return ok(
    {
      frames: frames.length,
      lines,
      chars,
      ...(blankPages ? { blank_pages: blankPages } : {}),
      ...(longS ? { long_s_words: longS } : {}),
      ...(runningHeads ? { running_heads: runningHeads } : {}),
    },
    output,
    {
      languages,
      ...(asset.kind === 'video' ? { frames_read: framesReadWhole, frames_read_in_part: framesReadInPart } : {}),
      reader,
      text_models: installed ? [PHOTO_TEXT_MODEL] : [],
      // The text detector's (tesseract and the document readers run on the CPU).
      provider: providerRan(path.basename(BUNDLED_DETECTOR.file)) ?? 'cpu',
    },
  );
});
