// The PDF text path (PDFium) on the corpus's books: lines as set on the page (a word hyphenated at
// a line's end stays on its line), a broken text layer told by PDFium's own check, complex scripts
// read by pdf.js, and the document information.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { extractPdf, pagesForReading, pdfInfo, renderPdfPages } from './pdf.ts';
import { BLANK_INK, inkBox } from './ink.ts';
import { PICTURE_PAGE_AREA } from './types.ts';
import { makePdf } from '../../test/helpers/pdf.ts';

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
    // Its only Devanagari is the danda ending its gibberish lines: punctuation, not reordered, so
    // its pages are not read again by pdf.js (they go to OCR whatever pdf.js reads).
    expect(examples.details.pages_read_by_pdfjs).toBeUndefined();
    // xetex-examples.pdf: a good Devanagari layer, whose vowel signs PDFium puts out of place.
    const xetex = await extractPdf(corpus('ocr/hindi-pdf/xetex-examples.pdf'), { assetDir: dir, renderAll: false, maxPages: 10 });
    expect(xetex.pages[0].text).toContain('गणेशाय');
    expect(xetex.pages.map((p) => p.needsOcr)).toEqual([false, false, false]);
    expect(xetex.details.pages_read_by_pdfjs).toBe(3);
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

  it('measures the ink of a page with few letters, but leaves a picture page with few letters to OCR without drawing it', async () => {
    // A running header alone on its page (blank: not sent to OCR), and a blank scan (one white
    // picture over the page): its blankness is OCR's to measure, in phase 2, on the copy it draws.
    const white = await sharp({ create: { width: 850, height: 1100, channels: 3, background: '#ffffff' } })
      .jpeg()
      .toBuffer();
    const file = path.join(dir, 'blank-scan.pdf');
    fs.writeFileSync(file, makePdf([{ text: 'Chapter 7' }, { jpeg: white, width: 850, height: 1100 }]));
    const { pages, details } = await extractPdf(file, { assetDir: dir, renderAll: false, maxPages: 10 });
    expect(pages.map((p) => p.needsOcr)).toEqual([false, true]);
    expect(pages[1].pictureArea).toBeGreaterThanOrEqual(PICTURE_PAGE_AREA);
    expect(details).toMatchObject({ blank_pages: 1, pages_needing_ocr: 1 });
  });

  it('boxes the lines of a page shown turned (/Rotate 90) where they show: across the page as it is shown, not along it', async () => {
    const text = 'The Queen of Hearts, she made some tarts,\nAll on a summer day: the Knave of Hearts';
    const file = path.join(dir, 'turned.pdf');
    fs.writeFileSync(file, makePdf([{ text }, { text, rotate: 90 }]));
    const { pages } = await extractPdf(file, { assetDir: dir, renderAll: false, maxPages: 10 });
    const [upright, turned] = pages;
    expect(turned.lines.map((l) => l.text).sort()).toEqual(upright.lines.map((l) => l.text).sort());
    const boxOf = (line: string) => turned.lines.find((l) => l.text === line)!.bbox;
    for (const u of upright.lines) {
      const t = boxOf(u.text);
      expect(u.bbox.w).toBeGreaterThan(u.bbox.h);
      // A quarter turn: the line's length runs down the page shown, its height across it. Down the
      // page, the ends are where a line's height is measured upright (from the glyphs' origins and
      // the font's size): within a font size (12 pt, 0.02 of the page) of the upright length.
      expect(Math.abs(t.h - u.bbox.w)).toBeLessThan(0.025);
      expect(Math.abs(t.w - u.bbox.h)).toBeLessThan(0.025);
      expect(Math.abs(t.y - u.bbox.x)).toBeLessThan(0.025);
    }
    // The second line, below the first on the upright page, is left of it on the turned one.
    expect(boxOf(upright.lines[1].text).x).toBeLessThan(boxOf(upright.lines[0].text).x);
  });

  it('draws a page for reading only where it holds anything, its ink measured as extraction measures it; a blank page not at all', async () => {
    // examples.pdf's third page holds a few lines of small print. Its 2,900 px drawing brought down
    // to 300 px is almost white (0.0014 of it dark: "blank", and never read); drawn small, as
    // extraction measures a page, it holds 0.004: it is read, as extraction asked.
    const file = corpus('ocr/hindi-pdf/examples.pdf');
    const read = [];
    for await (const p of pagesForReading(file, [1, 3], 1450, BLANK_INK)) read.push(p);
    expect(read.map((p) => p.page)).toEqual([1, 3]);
    for (const { page, ink, drawn } of read) {
      expect(ink).toBeGreaterThan(BLANK_INK);
      expect(drawn).not.toBeNull();
      const { png, area, page: size } = drawn!;
      expect(size.height).toBe(1450);
      // Grey, as the reader reads it: a third of the pixels to encode and to decode.
      expect(await sharp(png).metadata()).toMatchObject({ format: 'png', width: area.width, height: area.height, channels: 1 });
      // The white margins are left out…
      expect(area.width * area.height).toBeLessThan(0.8 * size.width * size.height);
      // …and everything the whole page holds is inside the part drawn.
      let whole: Buffer | undefined;
      for await (const w of renderPdfPages(file, [page], 1450)) whole = w.png;
      const { data, info } = await sharp(whole).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
      const box = inkBox(data, info.width, info.height)!;
      expect(info.height).toBe(1450);
      expect(box.x0 * info.width).toBeGreaterThanOrEqual(area.left);
      expect(box.y0 * info.height).toBeGreaterThanOrEqual(area.top);
      expect(box.x1 * info.width).toBeLessThanOrEqual(area.left + area.width);
      expect(box.y1 * info.height).toBeLessThanOrEqual(area.top + area.height);
      // The part drawn is that part of the whole page, pixel for pixel.
      const part = await sharp(whole).extract(area).removeAlpha().raw().toBuffer();
      const drawnPixels = await sharp(png).removeAlpha().raw().toBuffer();
      expect(drawnPixels.length).toBe(part.length);
      let diff = 0;
      for (let i = 0; i < part.length; i++) diff += Math.abs(part[i] - drawnPixels[i]);
      expect(diff / part.length).toBeLessThan(1);
    }
    const { pages } = await extractPdf(file, { assetDir: dir, renderAll: false, maxPages: 10 });
    expect(pages[2].needsOcr).toBe(true);
    // The book's third page, "12 CONTENTS" under nothing else, counts as blank: it is not drawn.
    const blank = [];
    for await (const p of pagesForReading(corpus('docs/carroll-wonderland.pdf'), [3], 1450, BLANK_INK)) blank.push(p);
    expect(blank).toEqual([{ page: 3, ink: expect.any(Number), drawn: null }]);
    expect(blank[0].ink).toBeLessThan(BLANK_INK);
  });

  it("searches a running head or page number once, at its first page, and a chapter's heading on its own page", async () => {
    const { pages, details } = await extractPdf(corpus('docs/carroll-wonderland.pdf'), { assetDir: dir, renderAll: false, maxPages: 100 });
    const searched = (p: number) => pages[p - 1].passages.filter((x) => !x.repeated).map((x) => x.text);
    const shown = (p: number) => pages[p - 1].passages.map((x) => x.text);
    // Chapter 7's running head, printed with the page number on every other page: searched on its first page only, shown on all.
    const heads = pages.filter((p) => p.passages.some((x) => /CHAPTER 7\. A MAD TEA-PARTY$/.test(x.text)));
    expect(heads.length).toBeGreaterThanOrEqual(4);
    expect(heads.filter((p) => searched(p.page).some((t) => /CHAPTER 7\. A MAD TEA-PARTY$/.test(t)))).toHaveLength(1);
    expect(shown(45)).toContain('54 CHAPTER 7. A MAD TEA-PARTY');
    // Bare page numbers likewise; the text of the page is all searched.
    expect(searched(44)).not.toContain('53');
    expect(searched(44).length).toBe(shown(44).length - 1);
    // "Chapter 2" opening page 10 is not "Chapter 3" opening page 16: each is its page's own heading.
    expect(searched(10)).toContain('Chapter 2');
    expect(searched(16)).toContain('Chapter 3');
    expect(details.running_heads).toBe(pages.reduce((n, p) => n + p.passages.filter((x) => x.repeated).length, 0));
  });

  it('folds the white space of a line to single spaces, none at its ends', async () => {
    const file = path.join(dir, 'spaces.pdf');
    fs.writeFileSync(file, makePdf([{ text: '   Leading  and   inner    spaces   \n      \nend   of  it' }]));
    const { pages } = await extractPdf(file, { assetDir: dir, renderAll: false, maxPages: 10 });
    expect(pages[0].lines.map((l) => l.text)).toEqual(['Leading and inner spaces', 'end of it']);
  });

  it('reads the information dictionary', async () => {
    expect(await pdfInfo(corpus('docs/a-text.pdf'))).toMatchObject({
      Author: 'Eriberto Mota',
      Producer: 'LibreOffice 7.0',
      CreationDate: "D:20200911222713-03'00'",
    });
  });
});
