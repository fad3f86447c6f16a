// The text layer of PDF pages in complex scripts (Devanagari and the other Indic and Southeast Asian
// scripts) through pdf.js: PDFium reads a good Devanagari layer with its vowel signs out of place and
// its conjuncts flagged as unmapped, where pdf.js reads it as written (measured on the corpus's
// xetex-examples.pdf). Loaded only for such pages.
import path from 'node:path';
import { createRequire } from 'node:module';
import type { Box } from '../contract/common.ts';
import { NOT_TEXT, normalizeSpace } from './layout.ts';
import { relativeBox } from '../geometry.ts';
import type { TextLine } from './types.ts';

const require = createRequire(import.meta.url);
const PDFJS_DIR = path.dirname(require.resolve('pdfjs-dist/package.json'));
const STANDARD_FONTS = `${path.join(PDFJS_DIR, 'standard_fonts')}/`;
const CMAPS = `${path.join(PDFJS_DIR, 'cmaps')}/`;

/**
 * Scripts whose letters are reordered or joined when shown: their pages are read by pdf.js. Their
 * letters and vowel signs only: their punctuation and digits are neither reordered nor joined, and a
 * danda ("।") at the end of a broken layer's Latin gibberish does not make its page one to read again.
 */
export const COMPLEX_SCRIPT = /(?=[\p{L}\p{M}])[\u0900-\u0DFF\u0E00-\u0FFF\u1000-\u109F\u1780-\u17FF]/u;

type PdfJs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');
let pdfjsPromise: Promise<PdfJs> | null = null;
function pdfjs(): Promise<PdfJs> {
  pdfjsPromise ??= loadPdfJs();
  return pdfjsPromise;
}

/**
 * pdf.js's modules as loaded: the minified builds, typed by the readable build's declarations. The
 * worker's module is loaded for what it sets up (globalThis.pdfjsWorker, which the worker run in
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
 * Loads pdf.js (and its worker's module) and puts back the runtime's own built-ins that it
 * replaced: the legacy build carries core-js, which swaps in JavaScript versions of some natives
 * (Array's push, JSON's parse and stringify) for every module of the process, and pdf.js needs none
 * of the edge cases they cover.
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

export type PdfLine = TextLine & { size: number; broken: boolean };

function toLines(items: TextItem[], vt: number[], util: PdfJs['Util'], pageW: number, pageH: number): PdfLine[] {
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
      const text = normalizeSpace(l.parts.join(''));
      // Glyphs mapped to control or private-use characters come from fonts without a usable Unicode map.
      return { text, bbox, size: l.size, broken: NOT_TEXT.test(text) };
    })
    .filter((l) => l.text.length > 0);
}

/** The text lines of the given pages (1-based) of a PDF held in `bytes`, as pdf.js reads them. */
export async function pdfJsLines(bytes: Buffer, pages: number[]): Promise<Map<number, PdfLine[]>> {
  const lib = await pdfjs();
  const doc = await lib.getDocument({
    data: new Uint8Array(bytes),
    standardFontDataUrl: STANDARD_FONTS,
    cMapUrl: CMAPS,
    cMapPacked: true,
    isEvalSupported: false,
    useSystemFonts: false,
    verbosity: 0,
  }).promise;
  try {
    const out = new Map<number, PdfLine[]>();
    for (const n of pages) {
      const page = await doc.getPage(n);
      const viewport = page.getViewport({ scale: 1 });
      const content = await page.getTextContent();
      // The filter keeps text items (those with `str`), which pdf.js's union type cannot narrow by itself.
      const items = content.items.filter((i) => 'str' in i) as unknown as TextItem[];
      out.set(n, toLines(items, viewport.transform, lib.Util, viewport.width, viewport.height));
      page.cleanup();
    }
    return out;
  } finally {
    await doc.destroy();
  }
}
