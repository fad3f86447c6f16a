// Text-only documents (SPEC 2.2: read as text; embedded pictures are not indexed), turned into
// synthetic pages (see layout.ts). Page convention: a slide is a page (pptx, odp), a sheet is a
// page (xlsx), 100 rows are a page (csv), an e-book chapter starts a page, everything else is cut
// by length at paragraph boundaries, a heading starting a new page once the current one is half full.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { XMLParser } from 'fast-xml-parser';
import { parse as parseHtml, NodeType, type HTMLElement, type Node } from 'node-html-parser';
import { ExtractError, type ExtractedPage } from './types.ts';
import { normalizeSpace, syntheticDocument, syntheticPage, type Block } from './layout.ts';
import { Zip } from './zip.ts';
import { readWorkbook } from './xlsx.ts';
import { readDocx } from './docx.ts';
import { streamXml } from './xml-stream.ts';

const require = createRequire(import.meta.url);

export const MAX_SHEET_ROWS = 5000;
export const CSV_ROWS_PER_PAGE = 100;
export const MAX_CSV_ROWS = 200_000;

const BLOCK_TAGS = new Set([
  'p',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'li',
  'pre',
  'blockquote',
  'tr',
  'dt',
  'dd',
  'caption',
  'figcaption',
  'address',
  'td',
  'th',
]);
const SKIP_TAGS = new Set(['script', 'style', 'noscript', 'template', 'head', 'svg', 'math', 'iframe', 'object']);
/** Elements that end the text before them and hold blocks of their own. */
const CONTAINER_TAGS = new Set([
  'div',
  'section',
  'article',
  'body',
  'main',
  'header',
  'footer',
  'nav',
  'aside',
  'figure',
  'details',
  'table',
  'ul',
  'ol',
  'dl',
]);
const MAX_DEPTH = 256;

/** Whether an element holds a block or a container (a list inside a list item, paragraphs inside a quotation), at most `depth` levels down. */
function holdsBlocks(el: HTMLElement, depth: number): boolean {
  if (depth > MAX_DEPTH) return false;
  for (const child of el.childNodes) {
    if (child.nodeType !== NodeType.ELEMENT_NODE) continue;
    const tag = (child as HTMLElement).rawTagName?.toLowerCase() ?? '';
    if (BLOCK_TAGS.has(tag) || CONTAINER_TAGS.has(tag) || holdsBlocks(child as HTMLElement, depth + 1)) return true;
  }
  return false;
}

/** Block-level text of an HTML document, in document order. */
export function htmlBlocks(html: string): Block[] {
  const markup = html.replace(/<\?xml[^>]*\?>/gi, '').replace(/<!DOCTYPE[^>]*>/gi, '');
  const root = parseHtml(markup, { comment: false, blockTextElements: { script: false, style: false, noscript: false, pre: true } });
  const blocks: Block[] = [];
  let inline = '';
  const flush = () => {
    if (inline.trim()) blocks.push({ text: inline });
    inline = '';
  };
  const walk = (node: Node, depth: number) => {
    if (node.nodeType === NodeType.TEXT_NODE) {
      inline += ` ${node.text}`;
      return;
    }
    if (node.nodeType !== NodeType.ELEMENT_NODE) return;
    const el = node as HTMLElement;
    const tag = el.rawTagName?.toLowerCase() ?? '';
    if (SKIP_TAGS.has(tag)) return;
    if (depth > MAX_DEPTH) {
      inline += ` ${el.textContent}`;
      return;
    }
    if (tag === 'tr') {
      flush();
      const cells = el
        .querySelectorAll('td, th')
        .map((c) => normalizeSpace(c.textContent))
        .filter(Boolean);
      if (cells.length) blocks.push({ text: cells.join(' | ') });
      return;
    }
    if (BLOCK_TAGS.has(tag)) {
      flush();
      // A block holding blocks (an e-book's table of contents: an entry and the list of its
      // sections; a list item or quotation of several paragraphs) gives its own text and each of
      // theirs apart, not all of it run together.
      if (!/^h[1-6]$/.test(tag) && tag !== 'pre' && holdsBlocks(el, depth)) {
        for (const child of el.childNodes) walk(child, depth + 1);
        flush();
        return;
      }
      const text = el.textContent;
      if (text.trim()) blocks.push({ text, heading: /^h[1-3]$/.test(tag) });
      return;
    }
    if (tag === 'br') inline += ' ';
    for (const child of el.childNodes) walk(child, depth + 1);
    if (CONTAINER_TAGS.has(tag)) flush();
  };
  walk(root, 0);
  flush();
  return blocks;
}

type XmlNode = Record<string, unknown> & { ':@'?: Record<string, string> };
const xml = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  trimValues: false,
  // Text stays text ("007" is not the number 7), and character references (&#x4E3B;) are decoded.
  parseTagValue: false,
  parseAttributeValue: false,
  processEntities: true,
  htmlEntities: true,
});

function children(node: XmlNode): XmlNode[] {
  for (const [k, v] of Object.entries(node)) if (k !== ':@' && Array.isArray(v)) return v as XmlNode[];
  return [];
}
function tagOf(node: XmlNode): string {
  return Object.keys(node).find((k) => k !== ':@') ?? '';
}

async function docx(file: string): Promise<ExtractedPage[]> {
  return syntheticDocument(await readDocx(await Zip.open(file)));
}

/** A run of spaces written as one element (`text:s`), at most this long (a hostile count is not honoured). */
const MAX_SPACES = 1000;

/**
 * The paragraphs of an XML part, streamed: the text of each element named in `paragraphs` with all
 * it holds (a paragraph inside one, as in a text box or a note, is part of it), a heading when named
 * in `headings`. With `page`, the paragraphs inside each element so named, page by page, and none
 * outside them; without, one list.
 */
async function streamParagraphs(zip: Zip, part: string, paragraphs: Set<string>, opts: { headings?: Set<string>; page?: string } = {}): Promise<Block[][]> {
  const out: Block[][] = opts.page ? [] : [[]];
  let pages = 0;
  let open = 0;
  let tabStops = 0;
  let text = '';
  let heading = false;
  await streamXml(zip, part, {
    open(tag, a) {
      if (tag === opts.page && pages++ === 0) out.push([]);
      if (paragraphs.has(tag)) {
        if (open++ === 0) {
          text = '';
          heading = opts.headings?.has(tag) ?? false;
        }
      } else if (tag === 'tabLst') tabStops++;
      else if (open && tag === 's') text += ' '.repeat(Math.min(Math.max(1, Math.floor(Number(a.c ?? 1)) || 1), MAX_SPACES));
      else if (open && tag === 'tab' && !tabStops) text += '\t';
      else if (open && (tag === 'line-break' || tag === 'br')) text += ' ';
    },
    close(tag) {
      if (tag === opts.page) pages--;
      else if (tag === 'tabLst') tabStops--;
      else if (paragraphs.has(tag) && open && --open === 0 && (pages || !opts.page)) out[out.length - 1].push({ text, heading });
    },
    text(t) {
      if (open) text += t;
    },
  });
  return out;
}

const spaced = (blocks: Block[]) => blocks.map((b) => ({ text: normalizeSpace(b.text) })).filter((b) => b.text);

async function pptx(file: string): Promise<ExtractedPage[]> {
  const zip = await Zip.open(file);
  const slides = zip
    .names()
    .map((name) => /^ppt\/slides\/slide(\d+)\.xml$/.exec(name))
    .filter((m): m is RegExpExecArray => m !== null)
    .sort((a, b) => Number(a[1]) - Number(b[1]));
  const pages: ExtractedPage[] = [];
  for (const [i, m] of slides.entries()) {
    const [blocks] = await streamParagraphs(zip, m[0], new Set(['p']));
    pages.push(syntheticPage(i + 1, spaced(blocks)));
  }
  return pages;
}

async function openDocument(file: string, perPage: boolean): Promise<ExtractedPage[]> {
  const zip = await Zip.open(file);
  const paragraphTags = new Set(['p', 'h']);
  if (!perPage) return syntheticDocument((await streamParagraphs(zip, 'content.xml', paragraphTags, { headings: new Set(['h']) }))[0]);
  return (await streamParagraphs(zip, 'content.xml', paragraphTags, { page: 'page' })).map((blocks, i) => syntheticPage(i + 1, spaced(blocks)));
}

async function xlsx(file: string): Promise<{ pages: ExtractedPage[]; details: Record<string, unknown> }> {
  const sheets = await readWorkbook(await Zip.open(file), MAX_SHEET_ROWS);
  const pages = sheets.map((sheet, i) => {
    const blocks: Block[] = [{ text: sheet.name, heading: true }];
    for (const cells of sheet.rows) {
      const text = cells.map(normalizeSpace).filter(Boolean).join(' | ');
      if (text) blocks.push({ text });
    }
    return syntheticPage(i + 1, blocks);
  });
  const truncated = sheets.filter((s) => s.truncated).map((s) => s.name);
  return { pages, details: truncated.length ? { sheets_truncated_at_rows: MAX_SHEET_ROWS, truncated_sheets: truncated } : {} };
}

async function csv(file: string): Promise<{ pages: ExtractedPage[]; details: Record<string, unknown> }> {
  const { parse } = await import('csv-parse');
  const parser = fs.createReadStream(file).pipe(parse({ relax_column_count: true, relax_quotes: true, skip_empty_lines: true, bom: true }));
  const pages: ExtractedPage[] = [];
  let rows: Block[] = [];
  let count = 0;
  let truncated = false;
  try {
    for await (const record of parser as AsyncIterable<string[]>) {
      if (++count > MAX_CSV_ROWS) {
        truncated = true;
        parser.destroy();
        break;
      }
      rows.push({ text: record.map(normalizeSpace).filter(Boolean).join(' | ') });
      if (rows.length === CSV_ROWS_PER_PAGE) {
        pages.push(
          syntheticPage(
            pages.length + 1,
            rows.filter((r) => r.text),
          ),
        );
        rows = [];
      }
    }
  } catch (err) {
    throw new ExtractError('corrupt', `${(err as Error).message}`);
  }
  if (rows.length || pages.length === 0)
    pages.push(
      syntheticPage(
        pages.length + 1,
        rows.filter((r) => r.text),
      ),
    );
  return { pages, details: truncated ? { rows_truncated_at: MAX_CSV_ROWS } : {} };
}

/** The elements named `tag` (any namespace prefix) anywhere under `nodes`. */
function elements(nodes: XmlNode[], tag: string): XmlNode[] {
  const found: XmlNode[] = [];
  const walk = (list: XmlNode[], depth: number) => {
    for (const n of list) {
      if (tagOf(n).replace(/^[^:]*:/, '') === tag) found.push(n);
      if (depth < MAX_DEPTH) walk(children(n), depth + 1);
    }
  };
  walk(nodes, 0);
  return found;
}

/** A path inside the archive, from an href relative to the folder `base` (URL-escaped, perhaps with a fragment). */
function archivePath(base: string, href: string): string {
  let name = href.split('#')[0];
  try {
    name = decodeURIComponent(name);
  } catch {
    /* kept as written */
  }
  return path.posix.normalize(path.posix.join(base, name)).replace(/^(\.\.\/)+/, '');
}

/** Media types of the spine's documents whose text is read (EPUB 2 and 3 content documents). */
const EPUB_TEXT_TYPES = new Set(['application/xhtml+xml', 'text/html', 'application/x-dtbook+xml']);

/**
 * An e-book's text, chapter by chapter in reading order: META-INF/container.xml names the package
 * document, whose spine lists the content documents (each from the manifest) in the order read.
 */
async function epub(file: string): Promise<ExtractedPage[]> {
  const zip = await Zip.open(file);
  const read = async (name: string) => {
    const text = await zip.text(name);
    try {
      return xml.parse(text) as XmlNode[];
    } catch (err) {
      throw new ExtractError('corrupt', `${name}: ${(err as Error).message}`);
    }
  };
  const rootfile = elements(await read('META-INF/container.xml'), 'rootfile').find((n) => n[':@']?.['full-path'])?.[':@']?.['full-path'];
  if (!rootfile) throw new ExtractError('corrupt', 'the e-book names no package document');
  const opf = await read(archivePath('', rootfile));
  const base = path.posix.dirname(archivePath('', rootfile));
  const manifest = new Map(elements(elements(opf, 'manifest').slice(0, 1), 'item').map((n) => [n[':@']?.id, n[':@'] ?? {}]));
  const blocks: Block[] = [];
  const breakAt: number[] = [];
  for (const ref of elements(elements(opf, 'spine').slice(0, 1), 'itemref')) {
    const item = manifest.get(ref[':@']?.idref);
    if (!item?.href || !EPUB_TEXT_TYPES.has((item['media-type'] ?? '').trim().toLowerCase())) continue; // a picture or a missing entry
    const name = archivePath(base, item.href);
    if (!zip.has(name)) continue;
    breakAt.push(blocks.length);
    blocks.push(...htmlBlocks(await zip.text(name)));
  }
  return syntheticDocument(blocks, { breakAt });
}

async function rtf(file: string): Promise<ExtractedPage[]> {
  const rtfToHtml = require('@iarna/rtf-to-html') as { fromString(s: string, cb: (err: Error | null, html: string) => void): void };
  const text = await fs.promises.readFile(file, 'latin1');
  const html = await new Promise<string>((resolve, reject) =>
    rtfToHtml.fromString(text, (err, out) => (err ? reject(new ExtractError('corrupt', `${err.message}`)) : resolve(out))),
  );
  return syntheticDocument(htmlBlocks(html));
}

async function readText(file: string): Promise<string> {
  const buf = await fs.promises.readFile(file);
  if (buf[0] === 0xff && buf[1] === 0xfe) return buf.subarray(2).toString('utf16le');
  if (buf[0] === 0xfe && buf[1] === 0xff) return Buffer.from(buf.subarray(2)).swap16().toString('utf16le');
  return new TextDecoder('utf-8').decode(buf);
}

function plainBlocks(text: string): Block[] {
  return text.split(/\r?\n\s*\r?\n/).map((t) => ({ text: t }));
}

export async function extractTextDocument(file: string, ext: string): Promise<{ pages: ExtractedPage[]; details: Record<string, unknown> }> {
  switch (ext) {
    case '.docx':
      return { pages: await docx(file), details: {} };
    case '.pptx':
      return { pages: await pptx(file), details: {} };
    case '.odt':
      return { pages: await openDocument(file, false), details: {} };
    case '.odp':
      return { pages: await openDocument(file, true), details: {} };
    case '.xlsx':
      return xlsx(file);
    case '.csv':
      return csv(file);
    case '.epub':
      return { pages: await epub(file), details: {} };
    case '.rtf':
      return { pages: await rtf(file), details: {} };
    case '.html':
      return { pages: syntheticDocument(htmlBlocks(await readText(file))), details: {} };
    case '.md': {
      const { marked } = await import('marked');
      return { pages: syntheticDocument(htmlBlocks(await marked.parse(await readText(file), { async: true }))), details: {} };
    }
    case '.txt':
      return { pages: syntheticDocument(plainBlocks(await readText(file))), details: {} };
    default:
      throw new ExtractError('unsupported', `no text reader for ${ext}`);
  }
}
