// PDF pages through PDFium (WebAssembly, @embedpdf/pdfium): text lines and passages with boxes from
// the text layer, the share of each page drawn as pictures, page renders, the document's information,
// and a flag on pages that need OCR (little text, or a text layer whose glyphs map to no real
// letters). One PDFium per process (or drawing thread), loaded on first use.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import sharp, { type Sharp } from 'sharp';
import type { WrappedPdfiumModule } from '@embedpdf/pdfium';
import { NOT_TEXT, linesToPassages, markRunningHeads, normalizeSpace } from './layout.ts';
import { pixelArea, relativeBox, type PixelArea } from '../geometry.ts';
import { ExtractError, PICTURE_PAGE_AREA, THUMB_LONG_SIDE, type ExtractedPage } from './types.ts';
import { COMPLEX_SCRIPT, type PdfLine } from './pdf-js-text.ts';
import { BLANK_INK, INK_WIDTH, inkBox, inkShareOfRgba } from './ink.ts';
import { entryModule } from '../paths.ts';
import { runInThread } from '../thread.ts';

const require = createRequire(import.meta.url);

/** Long side of a page render, in pixels. */
export const RENDER_LONG_SIDE = 1280;

/** A page drawn for reading: the part `area` of the page drawn `page.width` × `page.height` pixels, as a grey PNG. */
export interface DrawnForReading {
  png: Buffer;
  area: PixelArea;
  page: { width: number; height: number };
  /** The whole page drawn INK_WIDTH pixels wide (RGBA), where its ink was measured: enough to tell how its lines are tilted. */
  small: { data: Buffer; width: number; height: number; channels: 4 };
}

/**
 * Margin kept around what a page holds when it is drawn for reading, as a share of its long side
 * (≈ 43 px at 2,900: tesseract reads badly up to the edge of a picture).
 */
const READING_MARGIN = 0.015;

/** Pages with fewer letters than this in their text layer are treated as scans. */
const MIN_LETTERS = 20;
/** Share of a page's lines whose glyphs map to no real letters above which its layer counts as broken. */
const BROKEN_LINES = 0.1;

// PDFium's constants (fpdfview.h, fpdf_edit.h).
const FPDF_ANNOT = 0x01;
const FPDF_REVERSE_BYTE_ORDER = 0x10;
const FPDF_ERR_PASSWORD = 4;
const FPDF_PAGEOBJ_IMAGE = 3;
const FPDF_PAGEOBJ_FORM = 5;
/** What PDFium puts for a hyphen that ends a line (U+FFFE, or U+0002 in some fonts): a hyphen. */
const LINE_END_HYPHENS = new Set([0xfffe, 0x0002]);

interface Heap {
  HEAPU8: Uint8Array;
  HEAPF32: Float32Array;
  HEAPF64: Float64Array;
}

function heap(lib: WrappedPdfiumModule): Heap {
  // The module's memory views: Emscripten puts them on the module object, and the package's types
  // (its own subset of Emscripten's) leave them out.
  return lib.pdfium as unknown as Heap;
}

let pdfiumPromise: Promise<WrappedPdfiumModule> | null = null;
/** Compiles and initialises PDFium ahead of the first document (an indexer process told documents are coming). */
export const warmPdfium = async (): Promise<void> => void (await pdfium());
/** PDFium, compiled and initialised once (≈ 70 ms). */
function pdfium(): Promise<WrappedPdfiumModule> {
  pdfiumPromise ??= (async () => {
    const { init } = await import('@embedpdf/pdfium');
    const wasmBinary = await fs.promises.readFile(require.resolve('@embedpdf/pdfium/pdfium.wasm'));
    const lib = await init({ wasmBinary: wasmBinary.buffer.slice(wasmBinary.byteOffset, wasmBinary.byteOffset + wasmBinary.byteLength) });
    lib.PDFiumExt_Init();
    return lib;
  })();
  return pdfiumPromise;
}

/**
 * After an error that is not a reading of the file (a trap or abort inside PDFium's WebAssembly, on
 * a hostile file), the module's memory may be inconsistent: documents opened from then on get a
 * new one. Returns the error, for `throw`.
 */
function faulted(err: unknown): unknown {
  if (!(err instanceof ExtractError)) pdfiumPromise = null;
  return err;
}

/**
 * Scratch memory in PDFium's heap for the numbers its functions write back (boxes, matrices): one
 * block per open document, read through fresh views (the heap's buffer changes as it grows).
 */
class Scratch {
  readonly ptr: number;
  constructor(private readonly lib: WrappedPdfiumModule) {
    this.ptr = lib.pdfium.wasmExports.malloc(64);
  }
  private get heap(): Heap {
    return heap(this.lib);
  }
  f64(i: number): number {
    return this.heap.HEAPF64[(this.ptr >> 3) + i];
  }
  f32(i: number): number {
    return this.heap.HEAPF32[(this.ptr >> 2) + i];
  }
  i32(i: number): number {
    return new Int32Array(this.heap.HEAPU8.buffer, this.ptr, 16)[i];
  }
}

/** The letters in `text`, counted up to `max`. */
function lettersUpTo(text: string, max: number): number {
  const letter = /\p{L}/gu;
  let n = 0;
  while (n < max && letter.exec(text)) n++;
  return n;
}

/** PDFium's per-glyph text functions, called as exported (the wrapped ones convert every argument: ≈ 3× slower per call). */
interface RawText {
  GetUnicode(text: number, i: number): number;
  IsGenerated(text: number, i: number): number;
  HasUnicodeMapError(text: number, i: number): number;
  GetLooseCharBox(text: number, i: number, rect: number): number;
  GetCharOrigin(text: number, i: number, x: number, y: number): number;
}
const rawTexts = new WeakMap<WrappedPdfiumModule, RawText>();
function rawText(lib: WrappedPdfiumModule): RawText {
  let raw = rawTexts.get(lib);
  if (!raw) {
    // The package types the exports it re-exports (malloc, free); PDFium's own are there as well.
    const exports = lib.pdfium.wasmExports as unknown as Record<string, (...args: number[]) => number>;
    const fn = (name: string) => {
      const f = exports[`FPDFText_${name}`];
      if (typeof f !== 'function') throw new Error(`PDFium has no FPDFText_${name}`);
      return f;
    };
    raw = {
      GetUnicode: fn('GetUnicode'),
      IsGenerated: fn('IsGenerated'),
      HasUnicodeMapError: fn('HasUnicodeMapError'),
      GetLooseCharBox: fn('GetLooseCharBox'),
      GetCharOrigin: fn('GetCharOrigin'),
    };
    rawTexts.set(lib, raw);
  }
  return raw;
}

/** An open document: its bytes live in PDFium's heap for as long as it is open. */
class PdfDoc {
  private closed = false;
  private constructor(
    readonly lib: WrappedPdfiumModule,
    private readonly handle: number,
    private readonly bytesPtr: number,
    readonly scratch: Scratch,
  ) {}

  static async open(file: string, bytes?: Buffer): Promise<PdfDoc> {
    const lib = await pdfium();
    const data = bytes ?? (await fs.promises.readFile(file));
    const { malloc, free } = lib.pdfium.wasmExports;
    let ptr = 0;
    try {
      ptr = malloc(Math.max(1, data.length));
    } catch {
      // PDFium's memory could not grow to hold the file (its WebAssembly memory has a ceiling).
    }
    if (!ptr) throw new ExtractError('too_large', `${data.length} bytes: more than the PDF reader's memory holds`);
    heap(lib).HEAPU8.set(data, ptr);
    const handle = lib.FPDF_LoadMemDocument(ptr, data.length, '');
    if (!handle) {
      const code = lib.FPDF_GetLastError();
      free(ptr);
      if (code === FPDF_ERR_PASSWORD) throw new ExtractError('encrypted', 'the PDF needs a password to open');
      throw new ExtractError('corrupt', 'not a readable PDF');
    }
    return new PdfDoc(lib, handle, ptr, new Scratch(lib));
  }

  get pageCount(): number {
    return this.lib.FPDF_GetPageCount(this.handle);
  }

  /** Page `n` (1-based); closed by the caller. */
  page(n: number): PdfPage {
    const handle = this.lib.FPDF_LoadPage(this.handle, n - 1);
    if (!handle) throw new ExtractError('corrupt', `page ${n} cannot be read`);
    return new PdfPage(this, handle);
  }

  /** One entry of the document information dictionary, or '' where it has none. */
  metaText(tag: string): string {
    const { lib } = this;
    const size = lib.FPDF_GetMetaText(this.handle, tag, 0, 0);
    if (size <= 2) return '';
    const { malloc, free } = lib.pdfium.wasmExports;
    const buf = malloc(size);
    try {
      lib.FPDF_GetMetaText(this.handle, tag, buf, size);
      return lib.pdfium.UTF16ToString(buf);
    } finally {
      free(buf);
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.lib.FPDF_CloseDocument(this.handle);
    this.lib.pdfium.wasmExports.free(this.bytesPtr);
    this.lib.pdfium.wasmExports.free(this.scratch.ptr);
  }
}

class PdfPage {
  /** Size in points as displayed (the page's rotation applied). */
  readonly width: number;
  readonly height: number;

  constructor(
    private readonly doc: PdfDoc,
    private readonly handle: number,
  ) {
    this.width = doc.lib.FPDF_GetPageWidthF(handle);
    this.height = doc.lib.FPDF_GetPageHeightF(handle);
  }

  /**
   * PDF user space to the displayed page, in points from its top left corner: PDFium's own mapping
   * (crop box and rotation) read at three points, as an affine transform.
   */
  private toDisplay(): [ox: number, oy: number, m0: number, m1: number, m2: number, m3: number] {
    const { lib, scratch } = this.doc;
    const K = 64; // device pixels a point: the mapping answers in whole pixels
    const at = (x: number, y: number): [number, number] => {
      lib.FPDF_PageToDevice(this.handle, 0, 0, Math.round(this.width * K), Math.round(this.height * K), 0, x, y, scratch.ptr, scratch.ptr + 4);
      return [scratch.i32(0) / K, scratch.i32(1) / K];
    };
    const [ox, oy] = at(0, 0);
    const [ax, ay] = at(1000, 0);
    const [bx, by] = at(0, 1000);
    // (x, y) → (ox + m0·x + m2·y, oy + m1·x + m3·y)
    return [ox, oy, (ax - ox) / 1000, (ay - oy) / 1000, (bx - ox) / 1000, (by - oy) / 1000];
  }

  /**
   * The text layer as lines, in PDFium's reading order (it starts a line where the text does and
   * puts spaces where words part). A line's box is the union of its glyphs' loose boxes (the font's
   * ascent to descent, so lines of one size are of one height). `broken`: the line holds a glyph
   * whose font maps it to no Unicode letter, or a control or private-use character.
   */
  lines(): PdfLine[] {
    const { lib, scratch } = this.doc;
    const text = lib.FPDFText_LoadPage(this.handle);
    if (!text) return [];
    const raw = rawText(lib);
    // The mapping to the displayed page, as numbers: this loop runs once a glyph (≈ 2,000 a page)
    // and allocates nothing of its own but the lines it ends.
    const [ox, oy, m0, m1, m2, m3] = this.toDisplay();
    const out: PdfLine[] = [];
    const page = { width: this.width, height: this.height };
    try {
      const count = lib.FPDFText_CountChars(text);
      let chars = '';
      // The line's box so far (none while x0 > x1).
      let x0 = Infinity;
      let y0 = Infinity;
      let x1 = -Infinity;
      let y1 = -Infinity;
      let broken = false;
      let size = 0;
      const end = (): void => {
        const str = normalizeSpace(chars);
        if (str && x0 <= x1) {
          out.push({ text: str, bbox: relativeBox({ x0, y0, x1, y1 }, page), size, broken: broken || NOT_TEXT.test(str) });
        }
        chars = '';
        x0 = y0 = Infinity;
        x1 = y1 = -Infinity;
        broken = false;
        size = 0;
      };
      // The size of a glyph's text: its font size under the glyph's matrix, asked again only where
      // the glyph's loose box changes height (a new font or size).
      let lastLoose = -1;
      let lastSize = 0;
      for (let i = 0; i < count; i++) {
        const code = raw.GetUnicode(text, i);
        if (code === 0x0d || code === 0x0a) {
          if (chars.length) end();
          continue;
        }
        const hyphen = LINE_END_HYPHENS.has(code);
        chars += hyphen ? '-' : String.fromCodePoint(code);
        if (code !== 0x20 && !raw.IsGenerated(text, i)) {
          if (raw.HasUnicodeMapError(text, i) === 1) broken = true;
          // A glyph's extent across the line: its loose box (FS_RECTF: left, top, right, bottom).
          if (raw.GetLooseCharBox(text, i, scratch.ptr)) {
            const left = scratch.f32(0);
            const top = scratch.f32(1);
            const right = scratch.f32(2);
            const bottom = scratch.f32(3);
            const ax = ox + m0 * left + m2 * top;
            const bx = ox + m0 * right + m2 * bottom;
            if (ax !== bx) {
              // As a line is set: from its baseline, 0.8 of the size above and 0.2 below.
              const loose = Math.abs(top - bottom);
              if (loose !== lastLoose) {
                lastLoose = loose;
                const fontSize = lib.FPDFText_GetFontSize(text, i);
                lastSize = lib.FPDFText_GetMatrix(text, i, scratch.ptr) ? fontSize * Math.hypot(scratch.f32(2), scratch.f32(3)) : loose;
                if (!(lastSize > 0)) lastSize = loose;
              }
              const glyph = lastSize;
              raw.GetCharOrigin(text, i, scratch.ptr, scratch.ptr + 8);
              const baseline = oy + m1 * scratch.f64(0) + m3 * scratch.f64(1);
              size = Math.max(size, glyph);
              x0 = Math.min(x0, ax, bx);
              x1 = Math.max(x1, ax, bx);
              y0 = Math.min(y0, baseline - glyph * 0.8);
              y1 = Math.max(y1, baseline + glyph * 0.2);
            }
          }
        }
        // PDFium runs a word hyphenated at the end of a line on into the next line's text: the
        // line ends at its hyphen, as it does on the page.
        if (hyphen) end();
      }
      if (chars.length) end();
    } finally {
      lib.FPDFText_ClosePage(text);
    }
    return out;
  }

  /**
   * Share of the page covered by images: the area of each image's unit square under its matrix and
   * those of the forms that hold it, over the page's.
   */
  pictureArea(): number {
    const { lib, scratch } = this.doc;
    const det = (obj: number): number => {
      if (!lib.FPDFPageObj_GetMatrix(obj, scratch.ptr)) return 0;
      // FS_MATRIX: a, b, c, d, e, f as floats.
      return Math.abs(scratch.f32(0) * scratch.f32(3) - scratch.f32(1) * scratch.f32(2));
    };
    const walk = (count: number, get: (i: number) => number, scale: number, depth: number): number => {
      let area = 0;
      for (let i = 0; i < count; i++) {
        const obj = get(i);
        const type = lib.FPDFPageObj_GetType(obj);
        if (type === FPDF_PAGEOBJ_IMAGE) area += det(obj) * scale;
        else if (type === FPDF_PAGEOBJ_FORM && depth < 8) {
          area += walk(lib.FPDFFormObj_CountObjects(obj), (k) => lib.FPDFFormObj_GetObject(obj, k), scale * det(obj), depth + 1);
        }
      }
      return area;
    };
    const area = walk(lib.FPDFPage_CountObjects(this.handle), (i) => lib.FPDFPage_GetObject(this.handle, i), 1, 0);
    return Math.round(Math.min(1, area / (this.width * this.height)) * 1000) / 1000;
  }

  /**
   * The page drawn `pageWidth` × `pageHeight` pixels on white, as RGBx (the fourth byte of each
   * pixel unused); only the part `area` of that drawing where one is given.
   */
  draw(pageWidth: number, pageHeight: number, area: PixelArea = { left: 0, top: 0, width: pageWidth, height: pageHeight }): Buffer {
    const { lib } = this.doc;
    const { width, height } = area;
    const bitmap = lib.FPDFBitmap_Create(width, height, 0);
    if (!bitmap) throw new ExtractError('corrupt', `cannot draw a page ${width}×${height}`);
    try {
      lib.FPDFBitmap_FillRect(bitmap, 0, 0, width, height, 0xffffffff);
      lib.FPDF_RenderPageBitmap(bitmap, this.handle, -area.left, -area.top, pageWidth, pageHeight, 0, FPDF_ANNOT | FPDF_REVERSE_BYTE_ORDER);
      const start = lib.FPDFBitmap_GetBuffer(bitmap);
      const stride = lib.FPDFBitmap_GetStride(bitmap);
      const pixels = heap(lib).HEAPU8;
      const row = width * 4;
      // The fourth byte of PDFium's BGRx (RGBx here) is unused: removed or ignored by the callers.
      if (stride === row) return Buffer.from(pixels.slice(start, start + row * height).buffer);
      const rgba = Buffer.allocUnsafe(row * height);
      for (let y = 0; y < height; y++) rgba.set(pixels.subarray(start + y * stride, start + y * stride + row), y * row);
      return rgba;
    } finally {
      lib.FPDFBitmap_Destroy(bitmap);
    }
  }

  /** Pixel size with the long side `longSide`, in the page's proportions. */
  sizeFor(longSide: number): { width: number; height: number } {
    const scale = longSide / Math.max(1e-3, this.width, this.height);
    return { width: Math.max(1, Math.round(this.width * scale)), height: Math.max(1, Math.round(this.height * scale)) };
  }

  /** Drawn `longSide` pixels on its long side (only the part `area` of it where one is given), as RGB pixels for sharp to encode. */
  private drawn(longSide: number, area?: PixelArea): Sharp {
    const size = this.sizeFor(longSide);
    const { width, height } = area ?? size;
    return sharp(this.draw(size.width, size.height, area), { raw: { width, height, channels: 4 } }).removeAlpha();
  }

  /** Drawn `longSide` pixels on its long side, encoded as JPEG. */
  async render(longSide: number): Promise<Buffer> {
    return this.drawn(longSide).jpeg({ quality: 82 }).toBuffer();
  }

  /** Drawn `longSide` pixels on its long side, as a lightly compressed PNG (lossless, for a reader). */
  async renderPng(longSide: number): Promise<Buffer> {
    return this.drawn(longSide).png({ compressionLevel: 1 }).toBuffer();
  }

  /**
   * The page to be read by OCR: its ink measured as `ink` measures it, and where it is not under
   * `blankBelow`, the part of it that holds anything (its white margins left out, a margin of
   * READING_MARGIN kept around) drawn `longSide` pixels on the page's long side, as a lightly
   * compressed grey PNG that goes straight to the reader. A blank page is not drawn. Grey, as the
   * reader sees it anyway: a third of the pixels to encode and for the reader to decode (a page
   * holding a photograph read in 115 ms against 240, a page of text 1,350 against 1,450; the same
   * words, one more read right).
   */
  async drawForReading(longSide: number, blankBelow: number): Promise<{ ink: number; drawn: DrawnForReading | null }> {
    const small = this.drawnSmall();
    const ink = inkShareOfRgba(small.rgba);
    if (ink < blankBelow) return { ink, drawn: null };
    const page = this.sizeFor(longSide);
    const held = inkBox(small.rgba, small.width, small.height) ?? { x0: 0, y0: 0, x1: 1, y1: 1 };
    // The margin, the same number of pixels on every side, as shares of the page's width and height.
    const margin = READING_MARGIN * Math.max(page.width, page.height);
    const [mx, my] = [margin / page.width, margin / page.height];
    const [x0, y0] = [Math.max(0, held.x0 - mx), Math.max(0, held.y0 - my)];
    const area = pixelArea({ x: x0, y: y0, w: Math.min(1, held.x1 + mx) - x0, h: Math.min(1, held.y1 + my) - y0 }, page.width, page.height);
    const png = await this.drawn(longSide, area).grayscale().toColourspace('b-w').png({ compressionLevel: 1 }).toBuffer();
    return { ink, drawn: { png, area, page, small: { data: small.rgba, width: small.width, height: small.height, channels: 4 } } };
  }

  /** Share of the page that is ink, measured on a copy drawn INK_WIDTH pixels wide (as `inkShare` measures a picture). */
  ink(): number {
    return inkShareOfRgba(this.drawnSmall().rgba);
  }

  /** The page drawn INK_WIDTH pixels wide, where its ink is measured. */
  private drawnSmall(): { rgba: Buffer; width: number; height: number } {
    const width = INK_WIDTH;
    // A page of no width, or a strip many times taller than wide, is measured on at most 8 widths of height.
    const height = Math.max(1, Math.min(8 * INK_WIDTH, Math.round((this.height / Math.max(1e-3, this.width)) * INK_WIDTH)));
    return { rgba: this.draw(width, height), width, height };
  }

  close(): void {
    this.doc.lib.FPDF_ClosePage(this.handle);
  }
}

/** The document information dictionary of a PDF (Title, Author, Subject, Keywords, CreationDate…), entries it has. */
export async function pdfInfo(file: string): Promise<Record<string, string>> {
  const doc = await PdfDoc.open(file);
  try {
    const info: Record<string, string> = {};
    for (const tag of ['Title', 'Author', 'Subject', 'Keywords', 'Creator', 'Producer', 'CreationDate', 'ModDate']) {
      const value = doc.metaText(tag);
      if (value) info[tag] = value;
    }
    return info;
  } catch (err) {
    throw faulted(err);
  } finally {
    doc.close();
  }
}

/** What `fn` makes of each of the given pages (1-based), yielded as each is done. */
async function* eachPage<T>(file: string, pages: number[], fn: (page: PdfPage) => Promise<T>): AsyncGenerator<{ page: number } & T> {
  const doc = await PdfDoc.open(file);
  try {
    for (const n of pages) {
      const page = doc.page(n);
      let made: T;
      try {
        made = await fn(page);
      } finally {
        page.close();
      }
      yield { page: n, ...made };
    }
  } catch (err) {
    throw faulted(err);
  } finally {
    doc.close();
  }
}

/** The given pages (1-based) drawn whole, `longSide` pixels on their long side, as PNGs. */
export function renderPdfPages(file: string, pages: number[], longSide: number): AsyncGenerator<{ page: number; png: Buffer }> {
  return eachPage(file, pages, async (p) => ({ png: await p.renderPng(longSide) }));
}

/** The given pages (1-based) drawn for reading by OCR (PdfPage.drawForReading), yielded as each is drawn. */
export function pagesForReading(
  file: string,
  pages: number[],
  longSide: number,
  blankBelow: number,
): AsyncGenerator<{ page: number; ink: number; drawn: DrawnForReading | null }> {
  return eachPage(file, pages, (p) => p.drawForReading(longSide, blankBelow));
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
      this.open = { file, mtimeMs, doc: PdfDoc.open(file) };
    }
    let doc: PdfDoc;
    try {
      doc = await this.open.doc;
    } catch (err) {
      this.open = null;
      throw err;
    }
    if (pageNumber < 1 || pageNumber > doc.pageCount) throw new ExtractError('no_page', `no page ${pageNumber}`);
    const page = doc.page(pageNumber);
    let jpeg: Buffer;
    try {
      jpeg = await page.render(RENDER_LONG_SIDE);
    } catch (err) {
      // The document kept open belongs to a module that may be broken: it is let go.
      if (!(err instanceof ExtractError)) this.open = null;
      throw faulted(err);
    } finally {
      page.close();
    }
    const tmp = `${out}.${process.pid}.tmp`;
    await fs.promises.mkdir(path.dirname(out), { recursive: true });
    await fs.promises.writeFile(tmp, jpeg);
    await fs.promises.rename(tmp, out);
  }

  async close(): Promise<void> {
    const open = this.open;
    this.open = null;
    if (open) await open.doc.then((d) => d.close()).catch(() => undefined);
  }
}

export interface PdfOptions {
  /** Folder of the asset; renders go to `pages/` inside it. */
  assetDir: string;
  /** Draw every page now (true) or only the first (false; the others are drawn when first needed). */
  renderAll: boolean;
  maxPages: number;
  /** Pages from which a document's last pages are read by a second thread (default PARALLEL_PAGES). */
  parallelFrom?: number;
  /** Pages the first thread reads more than the second, which starts later (default THREAD_START_PAGES). */
  threadStartPages?: number;
}

/**
 * A document of at least this many pages has its last pages read by a second thread. A page takes
 * ≈ 2.5 ms here; a thread with a PDFium of its own starts in ≈ 0.3 s (its WebAssembly compiled
 * and warmed): the time of ≈ THREAD_START_PAGES pages, which the first thread reads meanwhile.
 * Measured through the CLI on 498 pages (six copies of the corpus's book in one file): searchable
 * in 2.85 s against 3.08 s (medians of 6, interleaved): most of the rest is storing its 498 pages.
 */
export const PARALLEL_PAGES = 300;
const THREAD_START_PAGES = 100;
/** Pages read between two turns of the event loop (the process keeps answering its host). */
const PAGES_A_TURN = 25;

/**
 * One page of a PDF as read, before its lines are judged: text lines, the pictures' share, and its
 * ink where it has few letters and is no picture page (picture pages go to OCR, which measures them).
 */
export interface ReadPage {
  width: number;
  height: number;
  pictureArea: number;
  lines: PdfLine[];
  /** Share of ink, measured only on pages with fewer than MIN_LETTERS readable letters that are no picture pages. */
  ink: number | null;
}

/** What the second thread answers. */
type LastPagesRead = { ok: boolean; pages?: ReadPage[] };

async function readPages(doc: PdfDoc, from: number, to: number): Promise<ReadPage[]> {
  const out: ReadPage[] = [];
  for (let n = from; n <= to; n++) {
    if ((n - from) % PAGES_A_TURN === PAGES_A_TURN - 1) await new Promise((resolve) => setImmediate(resolve));
    const page = doc.page(n);
    try {
      const lines = page.lines();
      const readable = lines.filter((l) => !l.broken).map((l) => l.text);
      const few = lettersUpTo(readable.join('\n'), MIN_LETTERS) < MIN_LETTERS;
      const pictureArea = page.pictureArea();
      out.push({ width: page.width, height: page.height, pictureArea, lines, ink: few && pictureArea < PICTURE_PAGE_AREA ? page.ink() : null });
    } finally {
      page.close();
    }
  }
  return out;
}

/** Pages `from`..`to` (1-based) of a PDF read by a PDFium of the calling thread's own (the second thread: pdf-pages.worker.ts). */
export async function readPdfPages(file: string, from: number, to: number): Promise<ReadPage[]> {
  const doc = await PdfDoc.open(file);
  try {
    return await readPages(doc, from, to);
  } catch (err) {
    throw faulted(err);
  } finally {
    doc.close();
  }
}

/**
 * The pages of a PDF, and its thumbnail (`thumb.jpg` in the asset folder, drawn from page 1). A
 * long document is read by two threads, the second starting later and reading fewer pages.
 */
export async function extractPdf(
  file: string,
  opts: PdfOptions,
): Promise<{ pages: ExtractedPage[]; details: Record<string, unknown>; thumbnail: string | null }> {
  const bytes = await fs.promises.readFile(file);
  const doc = await PdfDoc.open(file, bytes);
  try {
    const pageCount = doc.pageCount;
    if (pageCount > opts.maxPages) throw new ExtractError('too_many_pages', `${pageCount} pages; the limit is ${opts.maxPages}`);
    const parallel = pageCount >= (opts.parallelFrom ?? PARALLEL_PAGES) && os.availableParallelism() > 1;
    const split = parallel ? Math.min(pageCount - 1, Math.ceil((pageCount + (opts.threadStartPages ?? THREAD_START_PAGES)) / 2)) : pageCount;
    const lastPages =
      split < pageCount
        ? runInThread<LastPagesRead>(entryModule('media/pdf-pages.worker'), { file, from: split + 1, to: pageCount }).catch((): LastPagesRead => ({
            ok: false,
          }))
        : null;
    const pagesDir = path.join(opts.assetDir, 'pages');
    await fs.promises.mkdir(pagesDir, { recursive: true });
    // Every page has a render path; the file is drawn now for the first page only (shown while the
    // original is offline too): extraction is phase 1 of indexing, which makes the document
    // searchable. Picture pages are drawn by the picture stages that look at them (phase 2,
    // indexer/pictures.ts), the others on first request; OCR draws its own, larger. The thumbnail
    // is drawn at its own size.
    let rendered = 0;
    if (pageCount > 0) {
      const first = doc.page(1);
      try {
        await fs.promises.writeFile(path.join(pagesDir, pageRenderName(1)), await first.render(RENDER_LONG_SIDE));
        await fs.promises.writeFile(path.join(opts.assetDir, 'thumb.jpg'), await first.render(THUMB_LONG_SIDE));
        rendered++;
      } finally {
        first.close();
      }
    }
    for (let n = 2; opts.renderAll && n <= pageCount; n++) {
      const page = doc.page(n);
      try {
        await fs.promises.writeFile(path.join(pagesDir, pageRenderName(n)), await page.render(RENDER_LONG_SIDE));
        rendered++;
      } finally {
        page.close();
      }
    }
    const read = await readPages(doc, 1, split);
    // Pages the second thread read: a thread that could not read them (it failed to start, or a
    // page failed there) leaves them to this one, where the same page fails the same way.
    const theirs = lastPages ? await lastPages : null;
    const byThread = theirs?.ok && theirs.pages ? theirs.pages : null;
    if (split < pageCount) read.push(...(byThread ?? (await readPages(doc, split + 1, pageCount))));
    // Pages in complex scripts are read again by pdf.js, which reads them better (its module loaded
    // and compiled the first time: ≈ 0.45 s of the process).
    const complex = read.flatMap((p, i) => (p.lines.some((l) => COMPLEX_SCRIPT.test(l.text)) ? [i + 1] : []));
    if (complex.length > 0) {
      const { pdfJsLines } = await import('./pdf-js-text.ts');
      for (const [n, lines] of await pdfJsLines(bytes, complex)) read[n - 1].lines = lines;
    }
    const pages: ExtractedPage[] = [];
    let ocrPages = 0;
    let blankPages = 0;
    for (const [i, p] of read.entries()) {
      const n = i + 1;
      // Lines whose glyphs map to no letters (fonts without a usable Unicode map, common for Indic
      // scripts, read as Latin gibberish or control characters) are dropped, and where they are
      // more than a few the page goes to OCR.
      const lines = p.lines.filter((l) => !l.broken);
      const text = lines.map((l) => l.text).join('\n');
      const broken = (p.lines.length - lines.length) / Math.max(1, p.lines.length) > BROKEN_LINES;
      let needsOcr = lettersUpTo(text, MIN_LETTERS) < MIN_LETTERS || broken;
      // A page with few letters and almost no ink (the end of a chapter under its running header)
      // has nothing more for OCR to find: measured on a small copy of the page, not on a render.
      // A picture page is not measured here: drawing it means decoding its pictures (a photograph
      // ≈ 10 ms), work for phase 2, where OCR measures the copy it draws anyway and skips it if blank.
      if (needsOcr && !broken && p.pictureArea < PICTURE_PAGE_AREA && (p.ink ?? inkOf(doc, n)) < BLANK_INK) {
        needsOcr = false;
        blankPages++;
      }
      if (needsOcr) ocrPages++;
      pages.push({
        page: n,
        width: p.width,
        height: p.height,
        pictureArea: p.pictureArea,
        text,
        passages: linesToPassages(lines),
        lines: lines.map(({ text: t, bbox }) => ({ text: t, bbox })),
        render: path.join('pages', pageRenderName(n)),
        needsOcr,
        textSource: lines.length > 0 ? 'text_layer' : 'none',
      });
    }
    const runningHeads = markRunningHeads(pages);
    const details = {
      pages_needing_ocr: ocrPages,
      pages_rendered: rendered,
      ...(runningHeads ? { running_heads: runningHeads } : {}),
      ...(blankPages ? { blank_pages: blankPages } : {}),
      ...(byThread ? { threads: 2 } : {}),
      ...(complex.length ? { pages_read_by_pdfjs: complex.length } : {}),
    };
    return { pages, details, thumbnail: pageCount > 0 ? 'thumb.jpg' : null };
  } catch (err) {
    throw faulted(err);
  } finally {
    doc.close();
  }
}

function inkOf(doc: PdfDoc, n: number): number {
  const page = doc.page(n);
  try {
    return page.ink();
  } finally {
    page.close();
  }
}
