// Worker-thread entry, kept while pages are asked for: draws PDF pages into JPEG files (the page
// renders made on first request), one at a time, the last document kept open (PdfPageDrawer).
import { parentPort } from 'node:worker_threads';
import { PdfPageDrawer } from './pdf.ts';

export interface DrawJob {
  id: number;
  file: string;
  page: number;
  out: string;
}

const drawer = new PdfPageDrawer();
let queue = Promise.resolve();
parentPort?.on('message', (job: DrawJob) => {
  queue = queue.then(() =>
    drawer.draw(job.file, job.page, job.out).then(
      () => parentPort?.postMessage({ id: job.id, ok: true }),
      (err: Error) => parentPort?.postMessage({ id: job.id, ok: false, error: err.message }),
    ),
  );
});
