// Worker-thread entry: reads pages `from`..`to` of a long PDF with a PDFium of its own, while the
// thread that started it reads the others (extractPdf).
import { parentPort, workerData } from 'node:worker_threads';
import { readPdfPages } from './pdf.ts';

const { file, from, to } = workerData as { file: string; from: number; to: number };
readPdfPages(file, from, to).then(
  (pages) => parentPort?.postMessage({ ok: true, pages }),
  (err: Error) => parentPort?.postMessage({ ok: false, error: err.message }),
);
