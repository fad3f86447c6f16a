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
const MAX_DEPTH = 256;

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
      const text = el.textContent;
      if (text.trim()) blocks.push({ text, heading: /^h[1-3]$/.test(tag) });
      return;
    }
    if (tag === 'br') inline += ' ';
    for (const child of el.childNodes) walk(child, depth + 1);
    if (['div', 'section', 'article', 'body', 'main', 'header', 'footer', 'table', 'ul', 'ol'].includes(tag)) flush();
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

/** Text of every paragraph element (in document order) under the given root elements. */
function xmlParagraphs(nodes: XmlNode[], paragraphTags: Set<string>, headingTags = new Set<string>()): Block[] {
  const out: Block[] = [];
  const textOf = (n: XmlNode, depth: number): string => {
    const tag = tagOf(n);
    if (tag === '#text') return String(n['#text']);
    if (tag === 'text:s') return ' '.repeat(Number(n[':@']?.['text:c'] ?? 1));
    if (tag === 'text:tab' || tag === 'a:tab') return '\t';
    if (tag === 'text:line-break' || tag === 'a:br') return ' ';
    if (depth > MAX_DEPTH) return '';
    return children(n)
      .map((c) => textOf(c, depth + 1))
      .join('');
  };
  const walk = (n: XmlNode, depth: number) => {
    const tag = tagOf(n);
    if (paragraphTags.has(tag)) {
      out.push({ text: textOf(n, depth), heading: headingTags.has(tag) });
      return;
    }
    if (depth > MAX_DEPTH) return;
    for (const c of children(n)) walk(c, depth + 1);
  };
  for (const n of nodes) walk(n, 0);
  return out;
}

function findAll(nodes: XmlNode[], tag: string, depth = 0): XmlNode[] {
  const found: XmlNode[] = [];
  for (const n of nodes) {
    if (tagOf(n) === tag) found.push(n);
    else if (depth < MAX_DEPTH) found.push(...findAll(children(n), tag, depth + 1));
  }
  return found;
}

async function docx(file: string): Promise<ExtractedPage[]> {
  return syntheticDocument(await readDocx(await Zip.open(file)));
}

async function pptx(file: string): Promise<ExtractedPage[]> {
  const zip = await Zip.open(file);
  const slides = zip
    .names()
    .map((name) => /^ppt\/slides\/slide(\d+)\.xml$/.exec(name))
    .filter((m): m is RegExpExecArray => m !== null)
    .sort((a, b) => Number(a[1]) - Number(b[1]));
  const pages: ExtractedPage[] = [];
  for (const [i, m] of slides.entries()) {
    const tree = xml.parse(await zip.text(m[0])) as XmlNode[];
    const blocks = xmlParagraphs(tree, new Set(['a:p']))
      .map((b) => ({ text: normalizeSpace(b.text) }))
      .filter((b) => b.text);
    pages.push(syntheticPage(i + 1, blocks));
  }
  return pages;
}

async function openDocument(file: string, perPage: boolean): Promise<ExtractedPage[]> {
  const zip = await Zip.open(file);
  const tree = xml.parse(await zip.text('content.xml')) as XmlNode[];
  const paragraphTags = new Set(['text:p', 'text:h']);
  if (!perPage) return syntheticDocument(xmlParagraphs(tree, paragraphTags, new Set(['text:h'])));
  return findAll(tree, 'draw:page').map((page, i) =>
    syntheticPage(
      i + 1,
      xmlParagraphs([page], paragraphTags)
        .map((b) => ({ text: normalizeSpace(b.text) }))
        .filter((b) => b.text),
    ),
  );
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
