// The cells of an Excel workbook (.xlsx, SpreadsheetML, ECMA-376 part 1 §18), read with the guarded
// zip reader and fast-xml-parser: the workbook lists its sheets in order (a relationship each), a
// sheet its rows of cells, and a cell's text is its shared string, inline string, number (a date
// where its style's number format shows one), boolean or a formula's last result. Errors and
// formulas with no stored result have no text. Charts, drawings, comments and styles beyond the
// number formats are not read.
import path from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { ExtractError } from './types.ts';
import type { Zip } from './zip.ts';

type XmlNode = Record<string, unknown> & { ':@'?: Record<string, string> };

/** Every value stays text: a shared string "007" is not the number 7. */
const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  removeNSPrefix: true,
  trimValues: false,
  parseTagValue: false,
  parseAttributeValue: false,
  processEntities: true,
  // Also decodes character references (&#x4E3B;), which it leaves as written otherwise.
  htmlEntities: true,
});

const MAX_DEPTH = 64;

function tagOf(node: XmlNode): string {
  return Object.keys(node).find((k) => k !== ':@') ?? '';
}
function childrenOf(node: XmlNode): XmlNode[] {
  const v = node[tagOf(node)];
  return Array.isArray(v) ? (v as XmlNode[]) : [];
}
function attr(node: XmlNode, name: string): string | undefined {
  return node[':@']?.[name];
}
/** The elements named `tag` under `nodes`, not looking inside an element so named. */
function elements(nodes: XmlNode[], tag: string, depth = 0): XmlNode[] {
  const found: XmlNode[] = [];
  for (const n of nodes) {
    if (tagOf(n) === tag) found.push(n);
    else if (depth < MAX_DEPTH) found.push(...elements(childrenOf(n), tag, depth + 1));
  }
  return found;
}
/** The text of a string item (`si`, `is`): its `t`, or its runs' `t`, leaving out phonetic readings. */
function stringText(node: XmlNode): string {
  let out = '';
  const walk = (list: XmlNode[], depth: number) => {
    for (const n of list) {
      const tag = tagOf(n);
      if (tag === '#text') out += String(n['#text']);
      else if (tag !== 'rPh' && tag !== 'phoneticPr' && depth < MAX_DEPTH) walk(childrenOf(n), depth + 1);
    }
  };
  walk(childrenOf(node), 0);
  // Characters XML cannot hold are written as _xHHHH_.
  return out.replace(/_x([0-9A-Fa-f]{4})_/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}
function textOf(node: XmlNode | undefined): string {
  if (!node) return '';
  return childrenOf(node)
    .filter((n) => tagOf(n) === '#text')
    .map((n) => String(n['#text']))
    .join('');
}

/** Built-in number formats that show a date or a time (ECMA-376 §18.8.30; 27–36 and 50–58 in East Asian locales). */
const DATE_FORMAT_IDS = new Set([14, 15, 16, 17, 18, 19, 20, 21, 22, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 45, 46, 47, 50, 51, 52, 53, 54, 55, 56, 57, 58]);
/** A format code that shows a date or a time: a date or time letter outside quoted text and [brackets]. */
export function isDateFormat(code: string): boolean {
  return /[ymdhsb]/i.test(code.replace(/\[[^\]]*]/g, '').replace(/"[^"]*"/g, ''));
}
/** A serial day number as a date (days since 1899-12-30, or since 1904-01-01 in a workbook so set). */
function serialDate(serial: number, date1904: boolean): string {
  const ms = Math.round((serial - 25569 + (date1904 ? 1462 : 0)) * 86_400_000);
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? String(serial) : d.toISOString().slice(0, 10);
}

export interface Sheet {
  name: string;
  /** The text of each row's cells that have any, in column order; rows past `maxRows` left out. */
  rows: string[][];
  truncated: boolean;
}

async function parse(zip: Zip, name: string): Promise<XmlNode[]> {
  const text = await zip.text(name);
  try {
    return parser.parse(text) as XmlNode[];
  } catch (err) {
    throw new ExtractError('corrupt', `${name}: ${(err as Error).message}`);
  }
}

/** A part's relationships: id → the target's path in the archive. */
async function relationships(zip: Zip, part: string): Promise<Map<string, { target: string; type: string }>> {
  const rels = path.posix.join(path.posix.dirname(part), '_rels', `${path.posix.basename(part)}.rels`);
  const out = new Map<string, { target: string; type: string }>();
  if (!zip.has(rels)) return out;
  for (const r of elements(await parse(zip, rels), 'Relationship')) {
    const id = attr(r, 'Id');
    const target = attr(r, 'Target');
    if (!id || !target || attr(r, 'TargetMode') === 'External') continue;
    const resolved = target.startsWith('/') ? target.slice(1) : path.posix.normalize(path.posix.join(path.posix.dirname(part), target));
    out.set(id, { target: resolved, type: attr(r, 'Type') ?? '' });
  }
  return out;
}

/** The workbook's sheets in order, each row's cell texts (the rows numbered past `maxRows` left out). */
export async function readWorkbook(zip: Zip, maxRows: number): Promise<Sheet[]> {
  const workbookPart = [...(await relationships(zip, ''))].map(([, r]) => r).find((r) => r.type.endsWith('/officeDocument'))?.target ?? 'xl/workbook.xml';
  if (!zip.has(workbookPart)) throw new ExtractError('corrupt', 'the workbook part is missing');
  const workbook = await parse(zip, workbookPart);
  const rels = await relationships(zip, workbookPart);
  const date1904 = elements(workbook, 'workbookPr').some((n) => ['1', 'true'].includes(attr(n, 'date1904') ?? ''));

  const byType = (suffix: string) => [...rels.values()].find((r) => r.type.endsWith(suffix))?.target;
  const sharedPart = byType('/sharedStrings');
  const shared = sharedPart && zip.has(sharedPart) ? elements(await parse(zip, sharedPart), 'si').map(stringText) : [];

  // Which cell styles show dates: a style (cellXfs, by index) → its number format.
  const dateStyles = new Set<number>();
  const stylesPart = byType('/styles');
  if (stylesPart && zip.has(stylesPart)) {
    const styles = await parse(zip, stylesPart);
    const custom = new Map(elements(styles, 'numFmt').map((n) => [Number(attr(n, 'numFmtId')), attr(n, 'formatCode') ?? '']));
    const xfs = elements(elements(styles, 'cellXfs').slice(0, 1), 'xf');
    xfs.forEach((xf, i) => {
      const id = Number(attr(xf, 'numFmtId') ?? 0);
      const code = custom.get(id);
      if (code !== undefined ? isDateFormat(code) : DATE_FORMAT_IDS.has(id)) dateStyles.add(i);
    });
  }

  const sheets: Sheet[] = [];
  for (const entry of elements(workbook, 'sheet')) {
    const rel = rels.get(attr(entry, 'id') ?? '');
    // Chart sheets and dialog sheets hold no cells.
    if (!rel || !rel.type.endsWith('/worksheet') || !zip.has(rel.target)) continue;
    const rows: string[][] = [];
    let truncated = false;
    let last = 0;
    for (const row of elements(await parse(zip, rel.target), 'row')) {
      const n = Number(attr(row, 'r') ?? last + 1);
      last = n;
      const cells: string[] = [];
      for (const c of childrenOf(row).filter((x) => tagOf(x) === 'c')) {
        const kids = childrenOf(c);
        const value = textOf(kids.find((x) => tagOf(x) === 'v'));
        const type = attr(c, 't') ?? 'n';
        let text: string;
        if (type === 's') text = shared[Number(value)] ?? '';
        else if (type === 'inlineStr') text = stringText(kids.find((x) => tagOf(x) === 'is') ?? {});
        else if (type === 'str') text = value;
        else if (type === 'b') text = value === '' ? '' : String(value === '1' || value === 'true');
        else if (type === 'e') text = '';
        else if (type === 'd') text = value ? (Number.isNaN(Date.parse(value)) ? value : new Date(value).toISOString().slice(0, 10)) : '';
        else if (value === '') text = '';
        else {
          const number = Number(value);
          text = Number.isNaN(number) ? value : dateStyles.has(Number(attr(c, 's') ?? 0)) ? serialDate(number, date1904) : String(number);
        }
        if (text) cells.push(text);
      }
      if (n <= maxRows) rows.push(cells);
      else if (cells.length) truncated = true;
    }
    sheets.push({ name: attr(entry, 'name') ?? `Sheet ${sheets.length + 1}`, rows, truncated });
  }
  return sheets;
}
