// ocr: text with boxes, read by tesseract (English by default, Hindi when asked).
// Photos: the normalized frame. Documents: pages extract marked `needs_ocr` (scans, broken text
// layers), rendered again at reading resolution; their text and passages are replaced and the
// text-layer lines of those pages are superseded. Videos: frames sampled at `fps`.
// Writes text regions, page text/passages (documents) and search entries.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { prepareForReading, readingScale, recognize, type OcrLanguage, type OcrParagraph } from '../../ml/ocr.ts';
import { renderPdfPages } from '../../media/pdf.ts';
import { sampleFrames } from '../../media/video.ts';
import { ExtractError } from '../../media/types.ts';
import { clampBox } from '../../media/layout.ts';
import { FRAME_LONG_SIDE } from '../../media/image.ts';
import { BLANK_INK, inkShare } from '../../media/ink.ts';
import type { Box } from '../../contract/common.ts';
import type { NewEntry } from '../../store/search.repo.ts';
import { ALWAYS_AVAILABLE, failed, notApplicable, ok, type StageDefinition } from '../stage.ts';

/** Long side, in pixels, at which document pages are drawn for reading (about 250 dpi for A4). */
export const OCR_PAGE_LONG_SIDE = 2900;

interface ReadLine { text: string; box: Box; confidence: number }
interface ReadParagraph { text: string; box: Box; lines: ReadLine[] }
interface ReadFrame { timestamp: number; page: number | null; paragraphs: ReadParagraph[] }
interface OcrOutput { kind: 'video' | 'image' | 'document'; frames: ReadFrame[] }

function normalize(paragraphs: OcrParagraph[], w: number, h: number): ReadParagraph[] {
  const box = (b: { x0: number; y0: number; x1: number; y1: number }) => clampBox({ x: b.x0 / w, y: b.y0 / h, w: (b.x1 - b.x0) / w, h: (b.y1 - b.y0) / h });
  return paragraphs.map((p) => ({
    text: p.text,
    box: box(p.bbox),
    lines: p.lines.map((l) => ({ text: l.text, box: box(l.bbox), confidence: l.confidence / 100 })),
  }));
}

/** Long side of the first, quick look at a photo or frame: most pictures hold no text at all. */
const PROBE_LONG_SIDE = 1024;

/**
 * Reads an image; boxes come back normalized to it. Photos and frames are prepared first, and read
 * in full (enlarged or at 1600 px) only when a quick look at 1024 px, not enlarged, finds any text:
 * a picture without text costs a quarter to a tenth of a full reading (measured on the corpus: no
 * text image lost its text).
 */
async function read(image: Buffer | string, languages: OcrLanguage[], prepare: 'photo' | 'frame' | 'page'): Promise<ReadParagraph[]> {
  const meta = await sharp(image).metadata();
  const [w, h] = [meta.width ?? 1, meta.height ?? 1];
  if (prepare === 'page') return normalize(await recognize(image, languages), w, h);
  const full = { upscale: prepare === 'photo' };
  const quick = { upscale: false, longSide: PROBE_LONG_SIDE };
  // Where the quick look would be most of a full reading (a 1280 px frame), the picture is read once.
  if (readingScale(w, h, quick) / readingScale(w, h, full) < 0.75) {
    const probe = await recognize(await prepareForReading(image, quick), languages);
    if (probe.length === 0) return [];
  }
  const input = await prepareForReading(image, full);
  const size = await sharp(input).metadata();
  return normalize(await recognize(input, languages, { wholeBlock: prepare === 'photo' }), size.width ?? 1, size.height ?? 1);
}

/** Formats read straight from the original (no lossy re-encoding between the camera and the reader). */
const NATIVE = new Set(['.png', '.jpg', '.jpeg', '.webp', '.tif', '.tiff', '.gif', '.avif']);

/**
 * What to read of a photo: the original, oriented and on white, when sharp reads it and it is no
 * larger than the stored frame (small print suffers from the frame's JPEG re-encoding: CER 0.19 →
 * 0.13 on page.png); else the stored frame.
 */
async function photoToRead(file: string, ext: string, assetDir: string): Promise<Buffer | string> {
  const frame = path.join(assetDir, 'frame.jpg');
  if (!NATIVE.has(ext)) return frame;
  try {
    const meta = await sharp(file, { animated: false }).metadata();
    if (Math.max(meta.width ?? Infinity, meta.height ?? Infinity) > FRAME_LONG_SIDE) return frame;
    return await sharp(file, { animated: false, failOn: 'error' }).rotate().flatten({ background: '#ffffff' }).png().toBuffer();
  } catch {
    return frame;
  }
}

export const ocrStage: StageDefinition = {
  name: 'ocr',
  version: 1,
  kinds: ['video', 'image', 'document'],
  dependsOn: ['extract'],
  model: 'tesseract LSTM eng+hin (bundled)',
  availability: ALWAYS_AVAILABLE,
  prepare: (store, assetId) => store.media.pagesNeedingOcr(assetId),
  async run({ asset, options, assetDir, input }) {
    const languages = (options.languages as OcrLanguage[] | undefined) ?? ['en'];
    const frames: ReadFrame[] = [];
    let blankPages = 0;
    try {
      if (asset.kind === 'image') {
        frames.push({ timestamp: 0, page: null, paragraphs: await read(await photoToRead(asset.filePath, asset.ext, assetDir), languages, 'photo') });
      } else if (asset.kind === 'document') {
        const pages = (input as number[] | undefined) ?? [];
        if (pages.length === 0) return notApplicable('every page has a usable text layer');
        if (asset.ext !== '.pdf') return notApplicable('only PDF pages are read by OCR');
        for await (const { page, png } of renderPdfPages(asset.filePath, pages, OCR_PAGE_LONG_SIDE)) {
          // A page with almost no ink (blank, or a lone page number) has nothing worth reading.
          const blank = (await inkShare(png)) < BLANK_INK;
          frames.push({ timestamp: page - 1, page, paragraphs: blank ? [] : await read(png, languages, 'page') });
          if (blank) blankPages++;
        }
      } else {
        const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'mi-ocr-'));
        try {
          for (const f of await sampleFrames(asset.filePath, Number(options.fps ?? 0.5), dir)) {
            frames.push({ timestamp: f.timestamp, page: null, paragraphs: await read(f.file, languages, 'frame') });
          }
        } finally {
          await fs.promises.rm(dir, { recursive: true, force: true });
        }
      }
    } catch (err) {
      if (err instanceof ExtractError) return failed(err.reason);
      throw err;
    }
    const lines = frames.reduce((n, f) => n + f.paragraphs.reduce((m, p) => m + p.lines.length, 0), 0);
    const chars = frames.reduce((n, f) => n + f.paragraphs.reduce((m, p) => m + p.text.length, 0), 0);
    const output: OcrOutput = { kind: asset.kind, frames };
    return ok({ frames: frames.length, lines, chars, ...(blankPages ? { blank_pages: blankPages } : {}) }, output, { languages });
  },
  save(store, assetId, output) {
    const out = output as OcrOutput;
    const regions = out.frames.flatMap((f) =>
      f.paragraphs.flatMap((p) =>
        p.lines.map((l) => ({
          timestamp: f.timestamp, kind: 'text' as const, ...l.box, label: null, text: l.text,
          confidence: l.confidence, quality: null, person_id: null, source: 'ocr',
        })),
      ),
    );
    const ids = store.regions.replaceForStage(assetId, 'ocr', regions);
    const entries: NewEntry[] = [];
    if (out.kind === 'document') {
      for (const f of out.frames) {
        const page = f.page as number;
        const passages = f.paragraphs.map((p, idx) => ({ idx, text: p.text, ...p.box, source: 'ocr' }));
        store.media.replacePageText(assetId, page, f.paragraphs.map((p) => p.text).join('\n\n'), 'ocr', passages);
        store.regions.deleteAt(assetId, 'extract', f.timestamp);
        store.search.deleteForPage(assetId, 'extract', page);
        passages.forEach((p) => entries.push({ modality: 'passage', timestamp: f.timestamp, page, ref: p.idx, region_id: null, text: p.text }));
      }
    } else {
      // A caption on screen for many seconds is one piece of evidence, at its first appearance.
      let previous = new Set<string>();
      let i = 0;
      for (const f of out.frames) {
        const seen = new Set<string>();
        for (const p of f.paragraphs) {
          for (const l of p.lines) {
            const key = l.text.toLowerCase();
            seen.add(key);
            if (!previous.has(key)) entries.push({ modality: 'ocr', timestamp: f.timestamp, page: null, ref: null, region_id: ids[i], text: l.text });
            i++;
          }
        }
        previous = seen;
      }
    }
    store.search.replaceForStage(assetId, 'ocr', entries);
  },
};
