// Layout helpers: lines into passages for laid-out pages, and a synthetic page layout for formats
// that have text but no layout (Word, slides, sheets, e-books, HTML, Markdown, plain text).
//
// Synthetic convention: a page is a 1000 x 1414 sheet (A4 proportions) with 8% margins; each
// passage gets a full-width box whose height follows its estimated number of 90-character lines.
// Pages are cut at about 3000 characters, at paragraph boundaries, and a heading starts a new page
// once the current one is half full, so the boxes always fit on their page.
import { clampBox, unionBox } from '../geometry.ts';
import type { ExtractedPage, Passage, TextLine } from './types.ts';

export const SYNTHETIC_PAGE = { width: 1000, height: 1414 };
const MARGIN_X = 0.08;
const MARGIN_Y = 0.06;
const CHARS_PER_LINE = 90;
const LINE_H = (1 - 2 * MARGIN_Y) / 62;
export const PAGE_CHARS = 3000;

export function normalizeSpace(text: string): string {
  return text.replace(/[\u00a0\s]+/g, ' ').trim();
}

export interface Block {
  text: string;
  heading?: boolean;
}

/** Splits blocks into pages of about PAGE_CHARS characters (headings start pages when useful). */
export function paginate(blocks: Block[], opts: { breakAt?: number[] } = {}): Block[][] {
  const pages: Block[][] = [];
  let current: Block[] = [];
  let size = 0;
  const forced = new Set(opts.breakAt ?? []);
  blocks.forEach((block, i) => {
    const len = block.text.length;
    const full = size > 0 && (size + len > PAGE_CHARS || (block.heading && size > PAGE_CHARS / 2) || forced.has(i));
    if (full) {
      pages.push(current);
      current = [];
      size = 0;
    }
    // A single block longer than a page is cut at sentence or word boundaries.
    let rest = block.text;
    while (rest.length > PAGE_CHARS) {
      let cut = rest.lastIndexOf('. ', PAGE_CHARS);
      if (cut < PAGE_CHARS / 2) cut = rest.lastIndexOf(' ', PAGE_CHARS);
      if (cut < PAGE_CHARS / 2) cut = PAGE_CHARS;
      current.push({ text: rest.slice(0, cut + 1).trim(), heading: block.heading });
      pages.push(current);
      current = [];
      size = 0;
      rest = rest.slice(cut + 1).trim();
    }
    if (rest) {
      current.push({ text: rest, heading: block.heading });
      size += rest.length;
    }
  });
  if (current.length > 0 || pages.length === 0) pages.push(current);
  return pages;
}

/** Lays passages out top to bottom on a synthetic page. */
export function syntheticPage(page: number, blocks: Block[]): ExtractedPage {
  const heights = blocks.map((b) => Math.max(1, Math.ceil(b.text.length / CHARS_PER_LINE)) * LINE_H);
  const total = heights.reduce((a, h) => a + h, 0) + LINE_H * 0.5 * Math.max(0, blocks.length - 1);
  const room = 1 - 2 * MARGIN_Y;
  const scale = total > room ? room / total : 1;
  let y = MARGIN_Y;
  const passages: Passage[] = blocks.map((b, idx) => {
    const h = heights[idx] * scale;
    const bbox = clampBox({ x: MARGIN_X, y, w: 1 - 2 * MARGIN_X, h });
    y += h + LINE_H * 0.5 * scale;
    return { idx, text: b.text, bbox };
  });
  return {
    page,
    width: SYNTHETIC_PAGE.width,
    height: SYNTHETIC_PAGE.height,
    text: blocks.map((b) => b.text).join('\n\n'),
    passages,
    lines: [],
    render: null,
    pictureArea: 0,
    needsOcr: false,
    textSource: blocks.length > 0 ? 'text' : 'none',
  };
}

export function syntheticDocument(blocks: Block[], opts: { breakAt?: number[] } = {}): ExtractedPage[] {
  const clean = blocks.map((b) => ({ ...b, text: normalizeSpace(b.text) })).filter((b) => b.text.length > 0);
  return paginate(clean, opts).map((p, i) => syntheticPage(i + 1, p));
}

/**
 * Groups text lines (in reading order) into passages: a new passage starts at a vertical gap
 * larger than the line spacing, at a change of text size, or at a first-line indent.
 */
export function linesToPassages(lines: Array<TextLine & { size: number }>): Passage[] {
  const groups: Array<Array<TextLine & { size: number }>> = [];
  let prev: (TextLine & { size: number }) | null = null;
  for (const line of lines) {
    let startNew = prev === null;
    if (prev) {
      const gap = line.bbox.y - (prev.bbox.y + prev.bbox.h);
      const sizeRatio = line.size / prev.size;
      const spacing = Math.max(prev.bbox.h, line.bbox.h);
      startNew =
        gap > spacing * 0.6 ||
        gap < -spacing * 2 || // jumped back up: a new column
        sizeRatio > 1.2 ||
        sizeRatio < 0.83 ||
        line.bbox.x - prev.bbox.x > line.bbox.h * 1.2; // first-line indent
    }
    if (startNew) groups.push([line]);
    else groups[groups.length - 1].push(line);
    prev = line;
  }
  return groups.map((g, idx) => ({
    idx,
    text: joinLines(g.map((l) => l.text)),
    bbox: unionBox(g.map((l) => l.bbox)),
  }));
}

function joinLines(lines: string[]): string {
  let out = '';
  for (const l of lines) {
    const t = l.trim();
    if (!t) continue;
    if (out.endsWith('-') && /^[a-z]/.test(t))
      out = out.slice(0, -1) + t; // hyphenated word
    else out = out ? `${out} ${t}` : t;
  }
  return out;
}

/** A character that cannot be real text: replacement, control (other than white space), private-use or unassigned. */
export const NOT_TEXT = /[\uFFFD\p{Co}\p{Cn}]|(?![\t\n\v\f\r])\p{Cc}/u;
