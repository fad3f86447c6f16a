// Extraction throughput on this machine: text-PDF pages per second (with and without page renders)
// and video seconds processed per wall second. One process, one core: the indexer runs one such
// process per core. Each figure is the median of three runs, with the range. Usage: npm run bench -- extract
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { extractPdf } from '../server/media/pdf.ts';
import { readShots, readVideoPoster } from '../server/media/video.ts';
import { extractTextDocument } from '../server/media/office.ts';
import { spread, writeResults } from './report.ts';

const CORPUS = path.resolve(fileURLToPath(new URL('.', import.meta.url)), '../../shared/corpus');
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'mi-bench-'));

async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const t0 = performance.now();
  const r = await fn();
  return [r, (performance.now() - t0) / 1000];
}

const results: Record<string, number | string> = { machine: `${os.cpus()[0]?.model ?? 'cpu'} x${os.availableParallelism()}`, node: process.version };
const pdf = path.join(CORPUS, 'docs/carroll-wonderland.pdf');
await extractPdf(pdf, { assetDir: path.join(scratch, 'warm'), renderAll: false, maxPages: 5000 }); // load pdf.js once
/** Median and range of a rate over three runs. */
async function rate(key: string, run: (i: number) => Promise<[number, number]>): Promise<void> {
  const rates: number[] = [];
  for (let i = 0; i < 3; i++) {
    const [amount, secs] = await run(i);
    rates.push(amount / secs);
  }
  const t = spread(rates);
  results[key] = t.median;
  results[`${key}_range`] = t.range;
}
for (const renderAll of [false, true]) {
  await rate(renderAll ? 'text_pdf_pages_per_s_with_renders' : 'text_pdf_pages_per_s_text_only', async (i) => {
    const [r, s] = await timed(() => extractPdf(pdf, { assetDir: path.join(scratch, `pdf-${renderAll}-${i}`), renderAll, maxPages: 5000 }));
    return [r.pages.length, s];
  });
}
await rate('epub_pages_per_s', async () => {
  const [r, s] = await timed(() => extractTextDocument(path.join(CORPUS, 'docs/project-history.en.epub'), '.epub'));
  return [r.pages.length, s];
});
// A video's phase 1 (probe and poster frame: what it waits for to be searchable), then its shots,
// keyframes and sound (phase 2): the seconds of video per wall second of both together, and the
// poster's own time (ms).
for (const v of ['video/forensics/movie-hello.mp4', 'video/opencv/vtest.avi']) {
  const posters: number[] = [];
  await rate(`video_x_realtime_${path.basename(v)}`, async (i) => {
    const dir = path.join(scratch, `${i}-${path.basename(v)}`);
    const [poster, p] = await timed(() => readVideoPoster(path.join(CORPUS, v), dir));
    const [, s] = await timed(() => readShots(path.join(CORPUS, v), dir));
    posters.push(p * 1000);
    return [poster.facts.duration_s ?? 0, p + s];
  });
  const t = spread(posters);
  results[`video_poster_ms_${path.basename(v)}`] = t.median;
  results[`video_poster_ms_${path.basename(v)}_range`] = t.range;
}
fs.rmSync(scratch, { recursive: true, force: true });
writeResults('extract', 'Extraction alone, one process', results);
