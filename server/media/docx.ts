// The text of a Word document (.docx, WordprocessingML, ECMA-376 part 1 §17), streamed from its main
// part: a paragraph is a block (a heading when its style is "heading 1" to "heading 3"), a table row
// one block of its cells' texts joined by " | ", and the footnotes and endnotes follow the body.
// Text is what a reader sees: runs' text, tabs and breaks; deleted text, field codes, comments,
// headers and footers are not read, and of alternative content (a text box drawn two ways) only the
// first form is.
import { ExtractError } from './types.ts';
import type { Block } from './layout.ts';
import type { Zip } from './zip.ts';
import { relationships, streamXml, targetOf } from './xml-stream.ts';

const HEADING_STYLE = /^heading [1-3]$/i;

/** Style id → whether it is a heading, from the styles part (a style is known in the body by its id, not its name). */
async function headingStyles(zip: Zip, part: string | undefined): Promise<Set<string>> {
  const out = new Set<string>();
  if (!part || !zip.has(part)) return out;
  let id: string | null = null;
  await streamXml(zip, part, {
    open(tag, a) {
      if (tag === 'style') id = a.styleId ?? null;
      else if (tag === 'name' && id && HEADING_STYLE.test(a.val ?? '')) out.add(id);
    },
    close(tag) {
      if (tag === 'style') id = null;
    },
    text() {},
  });
  return out;
}

/**
 * The blocks of one part (the body, or the notes), in document order. `within` names the element
 * whose content is read (`body`; `footnote`/`endnote`, leaving out their separators).
 */
async function partBlocks(zip: Zip, part: string, within: string, headings: Set<string>): Promise<Block[]> {
  const blocks: Block[] = [];
  let inside = 0;
  /** Open paragraphs (a text box's paragraphs sit inside one): their text and whether a heading. */
  const paragraphs: Array<{ text: string; heading: boolean }> = [];
  /** Open tables' rows, and their cells' text (a cell holds paragraphs, and perhaps a table). */
  const rows: string[][] = [];
  const cells: string[] = [];
  let inText = false;
  /** Inside content not read: an alternative form, a deleted or moved-away run. */
  let skip = 0;
  const append = (text: string) => {
    if (paragraphs.length) paragraphs[paragraphs.length - 1].text += text;
  };
  const emit = (text: string, heading = false) => {
    if (cells.length) cells[cells.length - 1] += ` ${text}`;
    else if (text.trim()) blocks.push({ text, heading });
  };
  await streamXml(zip, part, {
    open(tag, a) {
      if (tag === within && !['separator', 'continuationSeparator', 'continuationNotice'].includes(a.type ?? '')) inside++;
      if (!inside) return;
      if (skip || tag === 'Fallback' || tag === 'del' || tag === 'moveFrom') {
        skip++;
        return;
      }
      switch (tag) {
        case 'p':
          paragraphs.push({ text: '', heading: false });
          break;
        case 'pStyle':
          if (paragraphs.length && headings.has(a.val ?? '')) paragraphs[paragraphs.length - 1].heading = true;
          break;
        case 't':
          inText = true;
          break;
        case 'tab':
          append('\t');
          break;
        case 'br':
        case 'cr':
          append(' ');
          break;
        case 'noBreakHyphen':
          append('-');
          break;
        case 'tr':
          rows.push([]);
          break;
        case 'tc':
          cells.push('');
          break;
      }
    },
    close(tag) {
      if (!inside) return;
      if (skip) {
        skip--;
        return;
      }
      switch (tag) {
        case 't':
          inText = false;
          break;
        case 'p': {
          const p = paragraphs.pop();
          if (p) emit(p.text, p.heading);
          break;
        }
        case 'tc': {
          const text = cells.pop() ?? '';
          rows[rows.length - 1]?.push(text.replace(/\s+/g, ' ').trim());
          break;
        }
        case 'tr': {
          const row = (rows.pop() ?? []).filter(Boolean);
          if (row.length) emit(row.join(' | '));
          break;
        }
      }
      if (tag === within) inside--;
    },
    text(text) {
      if (inside && inText && !skip) append(text);
    },
  });
  return blocks;
}

/** A Word document's blocks: its body, then its footnotes and endnotes. */
export async function readDocx(zip: Zip): Promise<Block[]> {
  const main = targetOf(await relationships(zip, ''), '/officeDocument') ?? 'word/document.xml';
  if (!zip.has(main)) throw new ExtractError('corrupt', 'the document part is missing');
  const rels = await relationships(zip, main);
  const headings = await headingStyles(zip, targetOf(rels, '/styles'));
  const blocks = await partBlocks(zip, main, 'body', headings);
  for (const [suffix, within] of [
    ['/footnotes', 'footnote'],
    ['/endnotes', 'endnote'],
  ] as const) {
    const part = targetOf(rels, suffix);
    if (part && zip.has(part)) blocks.push(...(await partBlocks(zip, part, within, headings)));
  }
  return blocks;
}
