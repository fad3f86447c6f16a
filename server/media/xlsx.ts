// The cells of an Excel workbook (.xlsx, SpreadsheetML, ECMA-376 part 1 §18), read with the guarded
// zip reader; its small parts (workbook, relationships, styles) with fast-xml-parser, its shared
// strings and sheets, which can run to megabytes, with the streaming parser saxes (a tenth of the
// time, and no tree held). The workbook lists its sheets in order (a relationship each), a
// sheet its rows of cells, and a cell's text is its shared string, inline string, number (a date
// where its style's number format shows one), boolean or a formula's last result. Errors and
// formulas with no stored result have no text. Charts, drawings, comments and styles beyond the
// number formats are not read.
import { XMLParser } from 'fast-xml-parser';
import { ExtractError } from './types.ts';
import type { Zip } from './zip.ts';
import { relationships, streamXml, targetOf } from './xml-stream.ts';

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
/** Characters XML cannot hold are written in cells as _xHHHH_. */
function unescapeCell(text: string): string {
  return text.replace(/_x([0-9A-Fa-f]{4})_/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}
/**
 * Collects the text of string items (`si` in the shared strings, `is` in a cell): the text of their
 * `t` elements, leaving out phonetic readings (`rPh`).
 */
class StringItem {
  private text = '';
  private inT = false;
  private phonetic = 0;
  open(tag: string): void {
    if (tag === 'rPh') this.phonetic++;
    else if (tag === 't' && this.phonetic === 0) this.inT = true;
  }
  close(tag: string): void {
    if (tag === 'rPh') this.phonetic--;
    else if (tag === 't') this.inT = false;
  }
  add(text: string): void {
    if (this.inT) this.text += text;
  }
  take(): string {
    const out = unescapeCell(this.text);
    this.text = '';
    this.inT = false;
    this.phonetic = 0;
    return out;
  }
}

async function sharedStrings(zip: Zip, part: string): Promise<string[]> {
  const out: string[] = [];
  const item = new StringItem();
  let inItem = false;
  await streamXml(zip, part, {
    open(tag) {
      if (tag === 'si') inItem = true;
      else if (inItem) item.open(tag);
    },
    close(tag) {
      if (tag === 'si') {
        out.push(item.take());
        inItem = false;
      } else if (inItem) item.close(tag);
    },
    text(text) {
      if (inItem) item.add(text);
    },
  });
  return out;
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

/** The workbook's sheets in order, each row's cell texts (the rows numbered past `maxRows` left out). */
export async function readWorkbook(zip: Zip, maxRows: number): Promise<Sheet[]> {
  const workbookPart = targetOf(await relationships(zip, ''), '/officeDocument') ?? 'xl/workbook.xml';
  if (!zip.has(workbookPart)) throw new ExtractError('corrupt', 'the workbook part is missing');
  const workbook = await parse(zip, workbookPart);
  const rels = await relationships(zip, workbookPart);
  const date1904 = elements(workbook, 'workbookPr').some((n) => ['1', 'true'].includes(attr(n, 'date1904') ?? ''));

  const sharedPart = targetOf(rels, '/sharedStrings');
  const shared = sharedPart && zip.has(sharedPart) ? await sharedStrings(zip, sharedPart) : [];

  // Which cell styles show dates: a style (cellXfs, by index) → its number format.
  const dateStyles = new Set<number>();
  const stylesPart = targetOf(rels, '/styles');
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
    let rowNumber = 0;
    let cells: string[] = [];
    let cell: { type: string; style: number } | null = null;
    let value = '';
    let inValue = false;
    let inline: StringItem | null = null;
    const cellText = (): string => {
      if (!cell) return '';
      const { type, style } = cell;
      if (type === 'inlineStr') return inline?.take() ?? '';
      if (type === 's') return shared[Number(value)] ?? '';
      if (type === 'str') return unescapeCell(value);
      if (type === 'b') return value === '' ? '' : String(value === '1' || value === 'true');
      if (type === 'e' || value === '') return '';
      if (type === 'd') return Number.isNaN(Date.parse(value)) ? value : new Date(value).toISOString().slice(0, 10);
      const number = Number(value);
      if (Number.isNaN(number)) return value;
      return dateStyles.has(style) ? serialDate(number, date1904) : String(number);
    };
    // Past the limit, the first row with text is all that is needed (`stop` below).
    await streamXml(
      zip,
      rel.target,
      {
        open(tag, attributes) {
          if (tag === 'row') {
            rowNumber = attributes.r ? Number(attributes.r) : rowNumber + 1;
            cells = [];
          } else if (tag === 'c') {
            cell = { type: attributes.t ?? 'n', style: Number(attributes.s ?? 0) };
            value = '';
            inline = null;
          } else if (tag === 'v' && cell) inValue = true;
          else if (tag === 'is' && cell) inline = new StringItem();
          else inline?.open(tag);
        },
        close(tag) {
          if (tag === 'v') inValue = false;
          else if (tag === 'c') {
            const text = cellText();
            if (text) cells.push(text);
            cell = null;
            inline = null;
          } else if (tag === 'row') {
            if (rowNumber <= maxRows) rows.push(cells);
            else if (cells.length) truncated = true;
          } else inline?.close(tag);
        },
        text(text) {
          if (inValue) value += text;
          else inline?.add(text);
        },
      },
      () => truncated,
    );
    sheets.push({ name: attr(entry, 'name') ?? `Sheet ${sheets.length + 1}`, rows, truncated });
  }
  return sheets;
}
