// Pages drawn on first request by one drawer that keeps the last document open: each page a JPEG of
// the render size, a page out of range refused with nothing left behind, a file changed on disk
// opened again. Carroll's book from the corpus.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PdfPageDrawer, RENDER_LONG_SIDE } from './pdf.ts';

const BOOK = fileURLToPath(new URL('../../../shared/corpus/docs/carroll-wonderland.pdf', import.meta.url));
const OTHER = fileURLToPath(new URL('../../../shared/corpus/docs/a-text.pdf', import.meta.url));

describe('PdfPageDrawer', () => {
  let dir: string;
  let drawer: PdfPageDrawer;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mi-drawer-'));
    drawer = new PdfPageDrawer();
  });
  afterEach(async () => {
    await drawer.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('draws pages of one document in turn, and of another after it', async () => {
    const file = path.join(dir, 'book.pdf');
    fs.copyFileSync(BOOK, file);
    for (const n of [5, 6, 40]) {
      const out = path.join(dir, 'pages', `p${n}.jpg`);
      await drawer.draw(file, n, out);
      const meta = await sharp(out).metadata();
      expect(meta.format).toBe('jpeg');
      expect(Math.max(meta.width!, meta.height!)).toBe(RENDER_LONG_SIDE);
    }
    // The same path now holds another file: it is opened again, not drawn from the one kept.
    fs.copyFileSync(OTHER, file);
    fs.utimesSync(file, new Date(), new Date(Date.now() + 5000));
    await expect(drawer.draw(file, 40, path.join(dir, 'pages', 'again.jpg'))).rejects.toThrow(/no page 40/);
    await drawer.draw(file, 1, path.join(dir, 'pages', 'other.jpg'));
    expect((await sharp(path.join(dir, 'pages', 'other.jpg')).metadata()).format).toBe('jpeg');
  });

  it('refuses a page the document has not, leaving no file', async () => {
    await expect(drawer.draw(BOOK, 84, path.join(dir, 'p84.jpg'))).rejects.toThrow(/no page 84/);
    await expect(drawer.draw(BOOK, 0, path.join(dir, 'p0.jpg'))).rejects.toThrow(/no page 0/);
    expect(fs.readdirSync(dir)).toEqual([]);
  });
});
