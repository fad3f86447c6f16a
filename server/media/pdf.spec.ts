// The PDF text path (PDFium) on the corpus's books: lines as set on the page (a word hyphenated at
// a line's end stays on its line), a broken text layer told by PDFium's own check, complex scripts
// read by pdf.js, and the document information.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { extractPdf, pdfInfo } from './pdf.ts';

const corpus = (p: string) => fileURLToPath(new URL(`../../../shared/corpus/${p}`, import.meta.url));

describe('extractPdf', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mi-pdf-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('keeps a word hyphenated at the end of a line on that line, the hyphen a hyphen, and joins it in its passage', async () => {
    const { pages } = await extractPdf(corpus('docs/carroll-wonderland.pdf'), { assetDir: dir, renderAll: false, maxPages: 100 });
    const p60 = pages[59];
    const at = p60.lines.findIndex((l) => l.text.endsWith('give birth-'));
    expect(at).toBeGreaterThan(-1);
    expect(p60.lines[at + 1].text).toMatch(/^day presents/);
    expect(p60.lines[at + 1].bbox.y).toBeGreaterThan(p60.lines[at].bbox.y);
    expect(p60.passages.some((p) => p.text.includes('give birthday presents'))).toBe(true);
    // eslint-disable-next-line no-control-regex -- control characters are what the check looks for
    for (const p of pages) expect(p.text).not.toMatch(/[\uFFFE\u0000-\u0008]/);
  });

  it("sends pages whose glyphs map to no letters to OCR (PDFium's own check), and reads Devanagari through pdf.js", async () => {
    // examples.pdf: a Devanagari font without a Unicode map, read as Latin letters ("lFlvAtF").
    const examples = await extractPdf(corpus('ocr/hindi-pdf/examples.pdf'), { assetDir: dir, renderAll: false, maxPages: 10 });
    expect(examples.pages.map((p) => p.needsOcr)).toEqual([true, true, true]);
    expect(examples.pages.map((p) => p.text).join('\n')).not.toContain('lFlvAtF');
    // xetex-examples.pdf: a good Devanagari layer, whose vowel signs PDFium puts out of place.
    const xetex = await extractPdf(corpus('ocr/hindi-pdf/xetex-examples.pdf'), { assetDir: dir, renderAll: false, maxPages: 10 });
    expect(xetex.pages[0].text).toContain('गणेशाय');
    expect(xetex.pages.map((p) => p.needsOcr)).toEqual([false, false, false]);
  });

  it('reads the last pages of a long document in a second thread, to the same pages as one thread reads', async () => {
    const book = corpus('docs/carroll-wonderland.pdf');
    const one = await extractPdf(book, { assetDir: dir, renderAll: false, maxPages: 100 });
    const two = await extractPdf(book, { assetDir: dir, renderAll: false, maxPages: 100, parallelFrom: 40, threadStartPages: 0 });
    expect(one.details.threads).toBeUndefined();
    expect(two.details).toMatchObject({ threads: 2, blank_pages: 3, pages_needing_ocr: 0 });
    expect(two.pages.map((p) => p.page)).toEqual(one.pages.map((p) => p.page));
    expect(two.pages).toEqual(one.pages);
    expect(two.pages[59].text).toContain('birth-');
  });

  it('reads the information dictionary', async () => {
    expect(await pdfInfo(corpus('docs/a-text.pdf'))).toMatchObject({
      Author: 'Eriberto Mota',
      Producer: 'LibreOffice 7.0',
      CreationDate: "D:20200911222713-03'00'",
    });
  });
});
