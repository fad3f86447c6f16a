import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import JSZip from 'jszip';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractTextDocument } from './office.ts';
import { isDateFormat, readWorkbook } from './xlsx.ts';
import { Zip } from './zip.ts';

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mi-xlsx-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const NS = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

/** A workbook written part by part, as Excel lays it out (sheets named in the workbook, found through its relationships). */
async function workbook(
  name: string,
  parts: { workbookPr?: string; sheets: Array<{ name: string; xml: string; chart?: boolean }>; shared?: string; styles?: string },
): Promise<string> {
  const zip = new JSZip();
  zip.file(
    '_rels/.rels',
    `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${REL}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
  );
  const rels: string[] = [];
  const sheets: string[] = [];
  // Written in the reverse of their order: the workbook's order counts, not the parts' names.
  parts.sheets.forEach((s, i) => {
    const file = s.chart ? `chartsheets/sheet${parts.sheets.length - i}.xml` : `worksheets/sheet${parts.sheets.length - i}.xml`;
    zip.file(`xl/${file}`, s.xml);
    rels.push(`<Relationship Id="rIdS${i}" Type="${REL}/${s.chart ? 'chartsheet' : 'worksheet'}" Target="${file}"/>`);
    sheets.push(`<sheet name="${s.name}" sheetId="${i + 1}" r:id="rIdS${i}"/>`);
  });
  if (parts.shared !== undefined) {
    zip.file('xl/sharedStrings.xml', `<sst ${NS}>${parts.shared}</sst>`);
    rels.push(`<Relationship Id="rIdSS" Type="${REL}/sharedStrings" Target="sharedStrings.xml"/>`);
  }
  if (parts.styles !== undefined) {
    zip.file('xl/styles.xml', `<styleSheet ${NS}>${parts.styles}</styleSheet>`);
    rels.push(`<Relationship Id="rIdST" Type="${REL}/styles" Target="/xl/styles.xml"/>`);
  }
  zip.file(
    'xl/_rels/workbook.xml.rels',
    `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${rels.join('')}</Relationships>`,
  );
  zip.file('xl/workbook.xml', `<workbook ${NS}>${parts.workbookPr ?? ''}<sheets>${sheets.join('')}</sheets></workbook>`);
  const file = path.join(dir, name);
  fs.writeFileSync(file, await zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' }));
  return file;
}
const sheet = (rows: string) => `<worksheet ${NS}><sheetData>${rows}</sheetData></worksheet>`;

describe('Excel workbooks', () => {
  it('reads each cell as its kind: shared and inline strings kept as written, numbers, dates by their format, booleans, formula results', async () => {
    const file = await workbook('kinds.xlsx', {
      shared: [
        '<si><t>007</t></si>',
        '<si><r><rPr><b/></rPr><t>Rich </t></r><r><t xml:space="preserve">text</t></r><rPh sb="0" eb="1"><t>ふりがな</t></rPh></si>',
        '<si><t>line_x000D_break &amp; &#x4E3B;</t></si>',
      ].join(''),
      styles:
        '<numFmts count="3"><numFmt numFmtId="164" formatCode="dd/mm/yyyy"/><numFmt numFmtId="165" formatCode="[Red]0.00"/><numFmt numFmtId="166" formatCode="0&quot; days&quot;"/></numFmts>' +
        '<cellXfs count="6"><xf numFmtId="0"/><xf numFmtId="14"/><xf numFmtId="164"/><xf numFmtId="165"/><xf numFmtId="166"/><xf numFmtId="2"/></cellXfs>',
      sheets: [
        {
          name: 'Kinds',
          xml: sheet(
            '<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c><c r="C1" t="s"><v>2</v></c></row>' +
              '<row r="2"><c r="A2" t="inlineStr"><is><t>inline</t></is></c><c r="B2"><v>3.5</v></c><c r="C2" s="5"><v>1.50</v></c></row>' +
              '<row r="3"><c r="A3" s="1"><v>45000</v></c><c r="B3" s="2"><v>45001.75</v></c><c r="C3" s="3"><v>45002</v></c><c r="D3" s="4"><v>12</v></c></row>' +
              '<row r="4"><c r="A4" t="b"><v>1</v></c><c r="B4" t="b"><v>0</v></c><c r="C4" t="e"><v>#N/A</v></c><c r="D4"><f>1+1</f><v>2</v></c><c r="E4" t="str"><f>"a"&amp;"b"</f><v>ab</v></c><c r="F4"><f>NOW()</f></c></row>' +
              '<row r="5"><c r="A5" s="1"/><c r="B5" s="2"><f>TODAY()</f><v>45003</v></c></row>',
          ),
        },
      ],
    });
    const [kinds] = await readWorkbook(await Zip.open(file), 100);
    expect(kinds.name).toBe('Kinds');
    expect(kinds.rows).toEqual([
      ['007', 'Rich text', 'line\rbreak & 主'],
      ['inline', '3.5', '1.5'],
      // Built-in format 14 and dd/mm/yyyy are dates; [Red]0.00 and 0" days" are not.
      ['2023-03-15', '2023-03-16', '45002', '12'],
      ['true', 'false', '2', 'ab'],
      ['2023-03-18'],
    ]);
  });

  it('keeps the workbook order of its sheets, skips chart sheets, counts dates from 1904 where the workbook says so', async () => {
    const file = await workbook('order.xlsx', {
      workbookPr: '<workbookPr date1904="1"/>',
      styles: '<cellXfs count="2"><xf numFmtId="0"/><xf numFmtId="14"/></cellXfs>',
      sheets: [
        { name: 'First', xml: sheet('<row r="1"><c r="A1" s="1"><v>0</v></c></row>') },
        { name: 'Chart', xml: '<chartsheet/>', chart: true },
        { name: 'Second', xml: sheet('<row r="1"><c r="A1" t="inlineStr"><is><t>two</t></is></c></row>') },
      ],
    });
    const sheets = await readWorkbook(await Zip.open(file), 100);
    expect(sheets.map((s) => [s.name, s.rows])).toEqual([
      ['First', [['1904-01-01']]],
      ['Second', [['two']]],
    ]);
  });

  it('leaves out the rows numbered past the limit, and says so only when one of them held text', async () => {
    const rows = (n: number, text: boolean) => `<row r="${n}"><c r="A${n}"${text ? ' t="inlineStr"><is><t>r</t></is></c>' : ' s="0"/>'}</row>`;
    const styledOnly = await workbook('styled.xlsx', { sheets: [{ name: 'S', xml: sheet(rows(1, true) + rows(2, true) + rows(9, false)) }] });
    expect((await readWorkbook(await Zip.open(styledOnly), 2))[0]).toMatchObject({ rows: [['r'], ['r']], truncated: false });
    const long = await workbook('long.xlsx', { sheets: [{ name: 'L', xml: sheet(rows(1, true) + rows(2, true) + rows(3, true)) }] });
    expect((await readWorkbook(await Zip.open(long), 2))[0]).toMatchObject({ rows: [['r'], ['r']], truncated: true });
  });

  it('stops inflating a sheet at the first row with text past the limit', async () => {
    // After row 3, a megabyte of rows without text, then what is not XML at all: read past the
    // limit, the sheet is corrupt; stopped at row 3, what follows is never inflated.
    const filler = Array.from({ length: 40_000 }, (_, i) => `<row r="${i + 4}"/>`).join('');
    const rows = [1, 2, 3].map((n) => `<row r="${n}"><c r="A${n}" t="inlineStr"><is><t>r${n}</t></is></c></row>`).join('');
    const file = await workbook('stop.xlsx', { sheets: [{ name: 'S', xml: `<worksheet ${NS}><sheetData>${rows}${filler}<<< not xml` }] });
    expect((await readWorkbook(await Zip.open(file), 2))[0]).toMatchObject({ rows: [['r1'], ['r2']], truncated: true });
    await expect(readWorkbook(await Zip.open(file), 1_000_000)).rejects.toThrow(/^corrupt: xl\/worksheets\/sheet1.xml: /);
  });

  it('reads a workbook whose elements carry a namespace prefix, and fails as corrupt without its workbook part', async () => {
    const file = await workbook('prefixed.xlsx', {
      sheets: [
        {
          name: 'P',
          xml: `<x:worksheet xmlns:x="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><x:sheetData><x:row r="1"><x:c r="A1" t="inlineStr"><x:is><x:t>prefixed</x:t></x:is></x:c></x:row></x:sheetData></x:worksheet>`,
        },
      ],
    });
    expect((await extractTextDocument(file, '.xlsx')).pages.map((p) => p.text)).toEqual(['P\n\nprefixed']);
    const bare = path.join(dir, 'bare.xlsx');
    const zip = new JSZip();
    zip.file('xl/worksheets/sheet1.xml', sheet(''));
    fs.writeFileSync(bare, await zip.generateAsync({ type: 'nodebuffer' }));
    await expect(extractTextDocument(bare, '.xlsx')).rejects.toThrow(/^corrupt: the workbook part is missing/);
  });

  it('tells date formats from others', () => {
    for (const code of ['yyyy-mm-dd', 'h:mm AM/PM', '[$-409]d-mmm-yy', 'mm:ss.0', '[h]:mm:ss']) expect(isDateFormat(code), code).toBe(true);
    for (const code of ['0.00', '#,##0', '[Red]0.00', '0" days"', '0.00E+00', '"Total "0']) expect(isDateFormat(code), code).toBe(false);
  });
});
