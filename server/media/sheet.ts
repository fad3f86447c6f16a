// A picture of a synthetic page (Word, slides, sheets, e-books, HTML, text: formats with text but
// no layout of their own, see layout.ts): its passages drawn where the layout put them, on a white
// sheet of the page's proportions. Used for the thumbnail of such documents' first page, drawn on
// its first request from the passages stored (render.worker.ts), not while the file is indexed.
import path from 'node:path';
import { createRequire } from 'node:module';
import { createCanvas, GlobalFonts } from '@napi-rs/canvas';
import type { Box } from '../contract/common.ts';

/** What a sheet is drawn from: the page's size in the layout's units and its passages, boxes relative to the page. */
export interface SheetPage {
  width: number;
  height: number;
  passages: ReadonlyArray<{ text: string; bbox: Box }>;
}

// The text is drawn in Liberation Sans, which pdf.js ships: the same on every machine, with or
// without system fonts.
const FAMILY = 'Media Index Sheet';
let registered = false;
function font(): string {
  if (!registered) {
    const dir = path.join(path.dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json')), 'standard_fonts');
    GlobalFonts.registerFromPath(path.join(dir, 'LiberationSans-Regular.ttf'), FAMILY);
    registered = true;
  }
  return FAMILY;
}

/** JPEG of the page, `width` pixels wide. */
export function drawSheet(page: SheetPage, width = 320): Buffer {
  const height = Math.round((width * page.height) / page.width);
  const canvas = createCanvas(width, height);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(0, 0, width, height);
  // The layout gives each passage 90 characters a line; the font is sized to fit that (a letter
  // ≈ 0.55 of the font's size), and lines are broken by that count, not measured (a measure of each
  // line as it grows took half of a small file's drawing; a line a little wide is drawn narrower).
  const px = Math.max(4, (width * 0.84) / 90 / 0.55);
  ctx.font = `${px}px '${font()}', sans-serif`;
  ctx.fillStyle = '#1d1d1f';
  ctx.textBaseline = 'top';
  for (const p of page.passages) {
    const x = p.bbox.x * width;
    const maxW = p.bbox.w * width;
    let y = p.bbox.y * height;
    const bottom = Math.min(height, (p.bbox.y + p.bbox.h) * height + px);
    const perLine = Math.max(1, Math.floor(maxW / (px * 0.55)));
    let line = '';
    for (const word of p.text.split(/\s+/)) {
      const next = line ? `${line} ${word}` : word;
      if (line && next.length > perLine) {
        ctx.fillText(line, x, y, maxW);
        y += px * 1.3;
        if (y > bottom) break;
        line = word;
      } else line = next;
    }
    if (line && y <= bottom) ctx.fillText(line, x, y, maxW);
  }
  return canvas.toBuffer('image/jpeg', 85);
}
