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

/** The passages at each end of a page that may be its running head or foot. */
const PAGE_ENDS = 2;
/** A running head or foot is short, and met on this many pages or more. */
const RUNNING_CHARS = 80;
const RUNNING_PAGES = 3;

/** A passage's page number, printed at its start or end ("52 CHAPTER 7. …", "… TEA-PARTY 53", "53"), and the rest. */
function printedNumber(text: string): { n: number; rest: string } | null {
  const m = /^(\d{1,4})\s*(.*)$/s.exec(text) ?? /^(.*?)\s*(\d{1,4})$/s.exec(text);
  if (!m) return null;
  return /^\d/.test(text) ? { n: Number(m[1]), rest: m[2] } : { n: Number(m[2]), rest: m[1] };
}

/**
 * Marks running heads and feet: a short passage at the top or bottom of a page met at an end of
 * other pages, its page number aside ("52 CHAPTER 7. A MAD TEA-PARTY", "54 CHAPTER 7. …", a bare
 * page number). A number counts as the page's own where it follows the pages as most printed
 * numbers at their ends do (page 43 printed as 52): "Chapter 2" opening page 10 and "Chapter 3"
 * page 16 are not one heading. Each is searched on the first page it is met on, and marked
 * `repeated` on the others: repeated on every other page of a chapter, it filled a search for the
 * chapter's words with copies of itself, above the passages that hold them. Returns how many were
 * marked.
 */
export function markRunningHeads(pages: Array<{ passages: Array<Pick<Passage, 'text' | 'repeated'>> }>): number {
  const ends = <T>(passages: T[]) => [...new Set([...passages.slice(0, PAGE_ENDS), ...passages.slice(-PAGE_ENDS)])];
  // How printed page numbers follow the pages: the commonest difference, where it is common.
  const offsets = new Map<number, number>();
  pages.forEach((p, i) => {
    for (const x of ends(p.passages)) {
      const num = x.text.length <= RUNNING_CHARS ? printedNumber(x.text) : null;
      if (num) offsets.set(num.n - i, (offsets.get(num.n - i) ?? 0) + 1);
    }
  });
  const [offset, count] = [...offsets].sort((a, b) => b[1] - a[1])[0] ?? [0, 0];
  const keyOf = (text: string, i: number) => {
    if (text.length > RUNNING_CHARS) return null;
    const num = count >= RUNNING_PAGES ? printedNumber(text) : null;
    return normalizeSpace(num && num.n - i === offset ? num.rest : text).toLowerCase();
  };
  const pagesOf = new Map<string, number>();
  pages.forEach((p, i) => {
    for (const k of new Set(ends(p.passages).map((x) => keyOf(x.text, i)))) if (k !== null) pagesOf.set(k, (pagesOf.get(k) ?? 0) + 1);
  });
  const seen = new Set<string>();
  let marked = 0;
  pages.forEach((p, i) => {
    for (const x of ends(p.passages)) {
      const k = keyOf(x.text, i);
      if (k === null || (pagesOf.get(k) ?? 0) < RUNNING_PAGES) continue;
      if (seen.has(k)) {
        x.repeated = true;
        marked++;
      } else seen.add(k);
    }
  });
  return marked;
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
