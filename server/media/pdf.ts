// PDF pages through pdf.js (legacy build for Node): text lines and passages with boxes from the
// text layer, a page render through @napi-rs/canvas, and a flag on pages that need OCR.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import type { Box } from '../contract/common.ts';
import { garbageRatio, linesToPassages, normalizeSpace } from './layout.ts';
import { relativeBox } from '../geometry.ts';
import { ExtractError, THUMB_LONG_SIDE, type ExtractedPage, type TextLine } from './types.ts';
import { BLANK_INK, INK_WIDTH, inkShareOfRgba } from './ink.ts';

const require = createRequire(import.meta.url);
const PDFJS_DIR = path.dirname(require.resolve('pdfjs-dist/package.json'));
const STANDARD_FONTS = `${path.join(PDFJS_DIR, 'standard_fonts')}/`;
const CMAPS = `${path.join(PDFJS_DIR, 'cmaps')}/`;

/** Long side of a page render, in pixels. */
export const RENDER_LONG_SIDE = 1280;
/** Pages with fewer letters than this in their text layer are treated as scans. */
const MIN_LETTERS = 20;

type PdfJs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');
let pdfjsPromise: Promise<PdfJs> | null = null;
function pdfjs(): Promise<PdfJs> {
  pdfjsPromise ??= loadPdfJs();
  return pdfjsPromise;
}

/**
 * pdf.js's modules as loaded: the minified builds (the same code; a process compiles them in ≈ 70
 * ms against ≈ 90 for the readable ones, measured here), typed by the readable build's declarations.
 * The worker's module is loaded for what it sets up (globalThis.pdfjsWorker, which the worker run in
 * this thread then uses) and ships no types: hence names typed as plain strings.
 */
const PDFJS_MODULE: string = 'pdfjs-dist/legacy/build/pdf.min.mjs';
const PDFJS_WORKER_MODULE: string = 'pdfjs-dist/legacy/build/pdf.worker.min.mjs';

/** Built-ins that pdf.js's legacy build replaces where the runtime already has them. */
const KEPT_NATIVE: ReadonlyArray<readonly [object, string]> = [
  [Array.prototype, 'push'],
  [JSON, 'parse'],
  [JSON, 'stringify'],
];

/**
 * Loads pdf.js (and its worker's module, which the in-process worker then uses) and puts back the
 * runtime's own built-ins that it replaced. The legacy build carries core-js, which swaps in its
 * JavaScript versions of some natives where it judges them wrong in an edge case (Array's push on
 * array-likes past 2^32 items, JSON with source text): for every module of the process, for as
 * long as it runs. pdf.js needs none of those edge cases; measured on an 83-page book, the
 * JavaScript push alone was ≈ 15 % of text extraction. Methods it adds where the runtime has none
 * (Promise.withResolvers, Set's union…) stay.
 */
async function loadPdfJs(): Promise<PdfJs> {
  const natives = KEPT_NATIVE.map(([owner, key]) => [owner, key, Object.getOwnPropertyDescriptor(owner, key)] as const);
  try {
    const lib = (await import(PDFJS_MODULE)) as PdfJs;
    await import(PDFJS_WORKER_MODULE);
    return lib;
  } finally {
    for (const [owner, key, descriptor] of natives) if (descriptor) Object.defineProperty(owner, key, descriptor);
  }
}

interface TextItem {
  str: string;
  transform: number[];
  width: number;
  height: number;
  hasEOL: boolean;
}

type Line = TextLine & { size: number; baseline: number; right: number };

function toLines(items: TextItem[], vt: number[], util: PdfJs['Util'], pageW: number, pageH: number): Line[] {
  const lines: Array<{ parts: string[]; x0: number; x1: number; top: number; bottom: number; baseline: number; size: number }> = [];
  let cur: (typeof lines)[number] | null = null;
  let endLine = false;
  for (const item of items) {
    const t = util.transform(vt, item.transform);
    const size = Math.hypot(t[2], t[3]) || Math.abs(item.height) || 1;
    const x = t[4];
    const baseline = t[5];
    const w = Math.abs(item.width) * Math.hypot(vt[0], vt[1]);
    if (item.str.trim() === '') {
      if (item.hasEOL) endLine = true;
      else if (cur) cur.parts.push(' ');
      continue;
    }
    const sameLine = cur !== null && !endLine && Math.abs(baseline - cur.baseline) < size * 0.5 && x > cur.x0 - size * 0.5;
    if (!sameLine || !cur) {
      cur = { parts: [], x0: x, x1: x + w, top: baseline - size * 0.8, bottom: baseline + size * 0.2, baseline, size };
      lines.push(cur);
    } else if (x - cur.x1 > size * 0.15 && !cur.parts.at(-1)?.endsWith(' ') && !item.str.startsWith(' ')) {
      cur.parts.push(' ');
    }
    cur.parts.push(item.str);
    cur.x0 = Math.min(cur.x0, x);
    cur.x1 = Math.max(cur.x1, x + w);
    cur.top = Math.min(cur.top, baseline - size * 0.8);
    cur.bottom = Math.max(cur.bottom, baseline + size * 0.2);
    cur.size = Math.max(cur.size, size);
    endLine = item.hasEOL;
  }
  return lines
    .map((l) => {
      const bbox: Box = relativeBox({ x0: l.x0, y0: l.top, x1: l.x1, y1: l.bottom }, { width: pageW, height: pageH });
      return { text: normalizeSpace(l.parts.join('')), bbox, size: l.size, baseline: l.baseline, right: l.x1 };
    })
    .filter((l) => l.text.length > 0);
}

type PdfDoc = Awaited<ReturnType<PdfJs['getDocument']>['promise']>;
type PdfPage = Awaited<ReturnType<PdfDoc['getPage']>>;

/** Opens a PDF from its file, or from its bytes already read (which pdf.js then takes over). */
async function openPdf(file: string, bytes?: Buffer): Promise<PdfDoc> {
  const lib = await pdfjs();
  const data = new Uint8Array(bytes ?? (await fs.promises.readFile(file)));
  try {
    return await lib.getDocument({
      data,
      standardFontDataUrl: STANDARD_FONTS,
      cMapUrl: CMAPS,
      cMapPacked: true,
      isEvalSupported: false,
      useSystemFonts: false,
      verbosity: 0,
    }).promise;
  } catch (err) {
    const name = (err as Error)?.name;
    if (name === 'PasswordException') throw new ExtractError('encrypted', 'the PDF needs a password to open');
    if (name === 'InvalidPDFException') throw new ExtractError('corrupt', 'not a readable PDF');
    throw new ExtractError('corrupt', `${(err as Error)?.message ?? err}`);
  }
}

/** The document information dictionary of a PDF (Title, Author, Subject, Keywords, CreationDate…). */
export async function pdfInfo(file: string): Promise<Record<string, unknown>> {
  const doc = await openPdf(file);
  try {
    const { info } = await doc.getMetadata();
    return typeof info === 'object' && info !== null ? { ...info } : {};
  } finally {
    await doc.destroy();
  }
}

interface PageCanvas {
  canvas: { encode(fmt: 'jpeg' | 'png', q?: number): Promise<Buffer> };
  context: {
    fillStyle: string;
    fillRect(x: number, y: number, w: number, h: number): void;
    getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray };
  };
  w: number;
  h: number;
}

/** Draws one page on a white canvas at `scale` (1 = a point a pixel). */
async function drawPage(doc: PdfDoc, page: PdfPage, scale: number): Promise<PageCanvas> {
  const vp = page.getViewport({ scale });
  const w = Math.ceil(vp.width);
  const h = Math.ceil(vp.height);
  const factory = doc.canvasFactory as { create(w: number, h: number): { canvas: unknown; context: unknown } };
  const { canvas, context } = factory.create(w, h) as Pick<PageCanvas, 'canvas' | 'context'>;
  context.fillStyle = '#ffffff';
  context.fillRect(0, 0, w, h);
  // pdf.js types the canvas as the DOM's; @napi-rs/canvas implements the 2D context it draws with.
  await page.render({ canvasContext: context, viewport: vp, canvas } as unknown as Parameters<typeof page.render>[0]).promise;
  return { canvas, context, w, h };
}

/** Draws one page `longSide` pixels on its long side, encoded as JPEG or PNG. */
async function renderPage(doc: PdfDoc, page: PdfPage, longSide: number, format: 'jpeg' | 'png'): Promise<Buffer> {
  const base = page.getViewport({ scale: 1 });
  const { canvas } = await drawPage(doc, page, longSide / Math.max(base.width, base.height));
  return format === 'jpeg' ? canvas.encode('jpeg', 82) : canvas.encode('png');
}

/** Share of a page that is ink, measured on a copy drawn INK_WIDTH pixels wide (as `inkShare` measures a picture). */
async function pageInk(doc: PdfDoc, page: PdfPage): Promise<number> {
  const { context, w, h } = await drawPage(doc, page, INK_WIDTH / page.getViewport({ scale: 1 }).width);
  return inkShareOfRgba(context.getImageData(0, 0, w, h).data);
}

/** Renders the given pages (1-based) for reading by OCR; yields each as it is drawn. */
export async function* renderPdfPages(file: string, pages: number[], longSide: number): AsyncGenerator<{ page: number; png: Buffer }> {
  const doc = await openPdf(file);
  try {
    for (const n of pages) {
      const page = await doc.getPage(n);
      yield { page: n, png: await renderPage(doc, page, longSide, 'png') };
      page.cleanup();
    }
  } finally {
    await doc.destroy();
  }
}

/**
 * Share of the page covered by images: follows the graphics state through the operator list
 * (save/restore/transform) and adds the area of each image's unit square under the current matrix.
 */
async function pictureArea(page: PdfPage, lib: PdfJs, pageArea: number): Promise<number> {
  const ops = await page.getOperatorList();
  const O = lib.OPS;
  const imageOps = new Set<number>([O.paintImageXObject, O.paintInlineImageXObject, O.paintImageMaskXObject, O.paintImageXObjectRepeat]);
  let ctm = [1, 0, 0, 1, 0, 0];
  const stack: number[][] = [];
  let area = 0;
  for (let i = 0; i < ops.fnArray.length; i++) {
    const fn = ops.fnArray[i];
    if (fn === O.save) stack.push(ctm);
    else if (fn === O.restore) ctm = stack.pop() ?? [1, 0, 0, 1, 0, 0];
    else if (fn === O.transform) ctm = lib.Util.transform(ctm, ops.argsArray[i] as number[]);
    else if (imageOps.has(fn)) area += Math.abs(ctm[0] * ctm[3] - ctm[1] * ctm[2]);
  }
  return Math.round(Math.min(1, area / pageArea) * 1000) / 1000;
}

export function pageRenderName(page: number): string {
  return `p${String(page).padStart(5, '0')}.jpg`;
}

/**
 * Draws PDF pages into JPEG files (written beside, then moved into place), keeping the last document
 * open: a reader turning pages, or stepping through a document's hits, draws from one file, and
 * opening it is most of the first page's time.
 */
export class PdfPageDrawer {
  private open: { file: string; mtimeMs: number; doc: Promise<PdfDoc> } | null = null;

  async draw(file: string, pageNumber: number, out: string): Promise<void> {
    const { mtimeMs } = await fs.promises.stat(file);
    if (!this.open || this.open.file !== file || this.open.mtimeMs !== mtimeMs) {
      await this.close();
      this.open = { file, mtimeMs, doc: openPdf(file) };
    }
    let doc: PdfDoc;
    try {
      doc = await this.open.doc;
    } catch (err) {
      this.open = null;
      throw err;
    }
    if (pageNumber < 1 || pageNumber > doc.numPages) throw new ExtractError('no_page', `no page ${pageNumber}`);
    const page = await doc.getPage(pageNumber);
    try {
      const tmp = `${out}.${process.pid}.tmp`;
      await fs.promises.mkdir(path.dirname(out), { recursive: true });
      await fs.promises.writeFile(tmp, await renderPage(doc, page, RENDER_LONG_SIDE, 'jpeg'));
      await fs.promises.rename(tmp, out);
    } finally {
      page.cleanup();
    }
  }

  async close(): Promise<void> {
    const open = this.open;
    this.open = null;
    if (open) await open.doc.then((d) => d.destroy()).catch(() => undefined);
  }
}

export interface PdfOptions {
  /** Folder of the asset; renders go to `pages/` inside it. */
  assetDir: string;
  /** Draw every page now (true) or only the first (false; the others are drawn when first needed). */
  renderAll: boolean;
  maxPages: number;
}

/**
 * Whether a PDF's pages may draw image objects: its bytes name an XObject (image or form) or hold
 * object streams (compressed dictionaries, where such a name would not show). A file with neither
 * draws images only inline, within a page's content (small ones, by the format's advice).
 */
function mayDrawImageObjects(bytes: Buffer): boolean {
  return bytes.includes('/XObject') || bytes.includes('/ObjStm');
}

/** The pages of a PDF, and its thumbnail (`thumb.jpg` in the asset folder, drawn from page 1). */
export async function extractPdf(
  file: string,
  opts: PdfOptions,
): Promise<{ pages: ExtractedPage[]; details: Record<string, unknown>; thumbnail: string | null }> {
  const lib = await pdfjs();
  const bytes = await fs.promises.readFile(file);
  const imageObjects = mayDrawImageObjects(bytes);
  const doc = await openPdf(file, bytes);
  try {
    const pageCount = doc.numPages;
    if (pageCount > opts.maxPages) throw new ExtractError('too_many_pages', `${pageCount} pages; the limit is ${opts.maxPages}`);
    const pagesDir = path.join(opts.assetDir, 'pages');
    await fs.promises.mkdir(pagesDir, { recursive: true });
    const pages: ExtractedPage[] = [];
    let ocrPages = 0;
    let blankPages = 0;
    let rendered = 0;
    let thumbnail: string | null = null;
    for (let n = 1; n <= pageCount; n++) {
      const page = await doc.getPage(n);
      const viewport = page.getViewport({ scale: 1 });
      const content = await page.getTextContent();
      // The filter keeps text items (those with `str`), which pdf.js's union type cannot narrow by itself.
      const items = content.items.filter((i) => 'str' in i) as unknown as TextItem[];
      const allLines = toLines(items, viewport.transform, lib.Util, viewport.width, viewport.height);
      // Lines whose glyphs map to control or private-use characters come from fonts without a
      // usable Unicode map (common for Indic scripts): they are dropped and the page goes to OCR.
      const lines = allLines.filter((l) => garbageRatio(l.text) === 0);
      const text = lines.map((l) => l.text).join('\n');
      const letters = (text.match(/\p{L}/gu) ?? []).length;
      const broken = (allLines.length - lines.length) / Math.max(1, allLines.length) > 0.1;
      let needsOcr = letters < MIN_LETTERS || broken;
      // The pictures' share asks pdf.js for the page's whole list of drawing operations (≈ 40 % of
      // the time of a text page): skipped where the file has no image objects and the page has its
      // text (a page with little text, as a scan's, is still measured for inline images).
      const area = imageObjects || needsOcr ? await pictureArea(page, lib, viewport.width * viewport.height) : 0;
      // A page with few letters and almost no ink (the end of a chapter under its running header)
      // has nothing more for OCR to find: measured on a small copy of the page, not on a render.
      if (needsOcr && !broken && (await pageInk(doc, page)) < BLANK_INK) {
        needsOcr = false;
        blankPages++;
      }
      // Every page has a render path; the file is drawn now for the first page only (shown while the
      // original is offline too): extraction is phase 1 of indexing, which makes the document
      // searchable. Picture pages are drawn by the picture stages that look at them (phase 2,
      // indexer/pictures.ts), the others on first request; OCR draws its own, larger. The thumbnail
      // is drawn at its own size.
      const render = path.join('pages', pageRenderName(n));
      if (opts.renderAll || n === 1) {
        await fs.promises.writeFile(path.join(opts.assetDir, render), await renderPage(doc, page, RENDER_LONG_SIDE, 'jpeg'));
        rendered++;
      }
      if (n === 1) {
        thumbnail = 'thumb.jpg';
        await fs.promises.writeFile(path.join(opts.assetDir, thumbnail), await renderPage(doc, page, THUMB_LONG_SIDE, 'jpeg'));
      }
      if (needsOcr) ocrPages++;
      pages.push({
        page: n,
        width: viewport.width,
        height: viewport.height,
        pictureArea: area,
        text,
        passages: linesToPassages(lines),
        lines: lines.map(({ text: t, bbox }) => ({ text: t, bbox })),
        render,
        needsOcr,
        textSource: lines.length > 0 ? 'text_layer' : 'none',
      });
      page.cleanup();
    }
    return { pages, details: { pages_needing_ocr: ocrPages, pages_rendered: rendered, ...(blankPages ? { blank_pages: blankPages } : {}) }, thumbnail };
  } finally {
    await doc.destroy();
  }
}
