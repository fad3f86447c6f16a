// Worker-thread entry, kept while pictures are asked for: draws, one at a time, the pictures left
// for their first request — PDF pages into JPEG files (the last document kept open,
// PdfPageDrawer), and the first page of a document without a layout of its own (text, Word,
// slides, sheets, e-books) from its stored passages (sheet.ts): its thumbnail.
import fs from 'node:fs';
import path from 'node:path';
import { parentPort } from 'node:worker_threads';
import { PdfPageDrawer } from './pdf.ts';
import type { SheetPage } from './sheet.ts';

/** A PDF page to draw, or a synthetic page's sheet; into `out`. */
export type DrawRequest = { file: string; page: number; out: string } | { sheet: SheetPage; out: string };
export type DrawJob = DrawRequest & { id: number };

async function drawSheetFile(sheet: SheetPage, out: string): Promise<void> {
  const { drawSheet } = await import('./sheet.ts');
  const tmp = `${out}.${process.pid}.tmp`;
  await fs.promises.mkdir(path.dirname(out), { recursive: true });
  await fs.promises.writeFile(tmp, drawSheet(sheet));
  await fs.promises.rename(tmp, out);
}

const drawer = new PdfPageDrawer();
let queue = Promise.resolve();
parentPort?.on('message', (job: DrawJob) => {
  queue = queue.then(() =>
    ('sheet' in job ? drawSheetFile(job.sheet, job.out) : drawer.draw(job.file, job.page, job.out)).then(
      () => parentPort?.postMessage({ id: job.id, ok: true }),
      (err: Error) => parentPort?.postMessage({ id: job.id, ok: false, error: err.message }),
    ),
  );
});
