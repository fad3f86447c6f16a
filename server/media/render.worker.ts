// Worker-thread entry: draws one PDF page into a JPEG file (page renders made on first request).
import { parentPort, workerData } from 'node:worker_threads';
import { renderPdfPageFile } from './pdf.ts';

const { file, page, out } = workerData as { file: string; page: number; out: string };
renderPdfPageFile(file, page, out).then(
  () => parentPort?.postMessage({ ok: true }),
  (err: Error) => parentPort?.postMessage({ ok: false, error: err.message }),
);
