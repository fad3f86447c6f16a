// Side by side with a peer: Recoll (Debian `recollcmd`, with `poppler-utils` for PDFs) and this app
// index the same folders in the same run, each started cold (a new process; the files in the page
// cache for both). Two folders: text PDFs (carroll-wonderland.pdf × 6 as distinct files, and
// a-text.pdf: 499 pages), and a mixed one (those PDFs, the e-book, Word, OpenDocument, Excel and
// PowerPoint files of the corpus). For each: wall time, pages/s and peak resident memory (Recoll:
// recollindex and its filters as GNU time reports it; the app: its service and indexer processes,
// sampled every 100 ms), medians and ranges of --runs interleaved runs, and the ratio app / Recoll.
// Recoll extracts text only; the app also renders pictures of pages, boxes every passage, looks for
// faces, objects and text in the pictures and runs its other bundled stages.
// Set-up (once): apt-get install recollcmd poppler-utils. Usage: npm run bench -- recoll [-- --runs 5]
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { arg, writeResults } from './report.ts';
import { serve, treeRss } from './serve.ts';

const RUNS = arg('runs', 5);
/** How often the app's library is read while it indexes: the resolution of the app's time (Recoll's ends with its process). */
const POLL_MS = 25;
const HERE = path.dirname(fileURLToPath(import.meta.url));
const CORPUS = path.resolve(HERE, '../../shared/corpus');

for (const tool of ['recollindex', 'pdfinfo', 'pdftotext']) {
  if (spawnSync('which', [tool]).status !== 0) {
    console.error(`${tool} is missing: apt-get install recollcmd poppler-utils`);
    process.exit(2);
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const range = (xs: number[]) => `${Math.min(...xs)}–${Math.max(...xs)}`;
const round = (x: number, d = 2) => Math.round(x * 10 ** d) / 10 ** d;

const base = fs.mkdtempSync(path.join(os.tmpdir(), 'mi-bench-recoll-'));
/** A copy that differs from the others (a comment after the PDF's end), so that nothing is skipped as a duplicate. */
function copyPdf(from: string, to: string, n: number): void {
  fs.writeFileSync(to, Buffer.concat([fs.readFileSync(from), Buffer.from(`\n% copy ${n}\n`)]));
}
function folder(name: string, mixed: boolean): string {
  const dir = path.join(base, name);
  fs.mkdirSync(dir, { recursive: true });
  for (let i = 1; i <= 6; i++) copyPdf(path.join(CORPUS, 'docs/carroll-wonderland.pdf'), path.join(dir, `wonderland-${i}.pdf`), i);
  fs.copyFileSync(path.join(CORPUS, 'docs/a-text.pdf'), path.join(dir, 'a-text.pdf'));
  if (mixed) {
    fs.copyFileSync(path.join(CORPUS, 'docs/project-history.en.epub'), path.join(dir, 'project-history.en.epub'));
    for (const f of ['a-text.docx', 'example.docx', 'a-text.odt', 'datasets.xlsx', 'example.pptx', '2014-small-talk.odp'])
      fs.copyFileSync(path.join(CORPUS, 'office', f), path.join(dir, f));
  }
  return dir;
}
const pdfPages = (dir: string) =>
  fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.pdf'))
    .reduce((n, f) => n + Number(/Pages:\s+(\d+)/.exec(execFileSync('pdfinfo', [path.join(dir, f)], { encoding: 'utf8' }))?.[1] ?? 0), 0);

interface Run {
  seconds: number;
  peakMiB: number;
  documents: number;
}

function recoll(dir: string): Run {
  const conf = fs.mkdtempSync(path.join(base, 'recoll-conf-'));
  fs.writeFileSync(path.join(conf, 'recoll.conf'), `topdirs = ${dir}\nloglevel = 1\n`);
  const t0 = performance.now();
  const r = spawnSync('/usr/bin/time', ['-f', '%M', 'recollindex', '-c', conf, '-z'], { encoding: 'utf8' });
  const seconds = (performance.now() - t0) / 1000;
  if (r.status !== 0) throw new Error(`recollindex failed: ${r.stderr}`);
  const peakKiB = Number(r.stderr.trim().split('\n').at(-1));
  const q = spawnSync('recollq', ['-c', conf, '-S', 'url', '-b', '-q', 'dir:/'], { encoding: 'utf8' });
  const documents = new Set(q.stdout.split('\n').filter((l) => l.startsWith('file://'))).size;
  fs.rmSync(conf, { recursive: true, force: true });
  return { seconds, peakMiB: peakKiB / 1024, documents };
}

interface Lib {
  library_id: string;
  assets: number;
  pending: number;
  status: string;
  scan: { running: boolean; queued: boolean };
}

async function app(dir: string, files: number): Promise<Run> {
  const data = fs.mkdtempSync(path.join(base, 'data-'));
  const s = await serve(data, { env: { MEDIA_INDEX_LIBRARY_ROOTS: dir } });
  const t0 = s.launchedAt;
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, treeRss(s.pid))), 100);
  const call = async <T>(method: string, p: string, json?: unknown): Promise<T> => {
    const r = await fetch(`${s.url}/api/v1${p}`, {
      method,
      headers: { 'X-API-Key': s.key, ...(json ? { 'Content-Type': 'application/json' } : {}) },
      body: json ? JSON.stringify(json) : undefined,
    });
    const body = (await r.json()) as { data: T };
    if (!r.ok) throw new Error(`${method} ${p} answered ${r.status}: ${JSON.stringify(body)}`);
    return body.data;
  };
  try {
    const lib = await call<Lib>('POST', '/libraries', { path: dir });
    for (;;) {
      const l = await call<Lib>('GET', `/libraries/${lib.library_id}`);
      if (l.assets === files && l.pending === 0 && !l.scan.running && !l.scan.queued) break;
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
    const seconds = (performance.now() - t0) / 1000;
    const list = await call<Array<{ status: string }>>('GET', '/videos?limit=100');
    return { seconds, peakMiB: peak / 1024 / 1024, documents: list.filter((a) => a.status === 'completed').length };
  } finally {
    clearInterval(sampler);
    await s.stop();
    fs.rmSync(data, { recursive: true, force: true });
  }
}

const results: Record<string, number | string> = {
  machine: `${os.cpus()[0]?.model ?? 'cpu'} x${os.availableParallelism()}`,
  recoll: execFileSync('dpkg-query', ['-W', '-f', 'recoll ${Version}', 'recollcmd'], { encoding: 'utf8' }),
  runs: RUNS,
};
for (const [name, mixed] of [
  ['text_pdf', false],
  ['mixed', true],
] as const) {
  const dir = folder(name, mixed);
  const files = fs.readdirSync(dir).length;
  const pages = pdfPages(dir);
  const r: Run[] = [];
  const a: Run[] = [];
  for (let i = 0; i < RUNS; i++) {
    r.push(recoll(dir));
    a.push(await app(dir, files));
    console.error(`${name} run ${i + 1}: recoll ${round(r.at(-1)!.seconds)} s, app ${round(a.at(-1)!.seconds)} s`);
  }
  const rs = r.map((x) => round(x.seconds));
  const as = a.map((x) => round(x.seconds));
  Object.assign(results, {
    [`${name}_files`]: files,
    [`${name}_pdf_pages`]: pages,
    [`${name}_recoll_s`]: median(rs),
    [`${name}_recoll_s_range`]: range(rs),
    [`${name}_recoll_documents`]: r[0].documents,
    [`${name}_recoll_pdf_pages_per_s`]: round(pages / median(rs), 1),
    [`${name}_recoll_peak_rss_mib`]: Math.round(median(r.map((x) => x.peakMiB))),
    [`${name}_app_s`]: median(as),
    [`${name}_app_s_range`]: range(as),
    [`${name}_app_documents_completed`]: a[0].documents,
    [`${name}_app_pdf_pages_per_s`]: round(pages / median(as), 1),
    [`${name}_app_peak_rss_mib`]: Math.round(median(a.map((x) => x.peakMiB))),
    [`${name}_time_ratio`]: round(median(as) / median(rs)),
  });
}
results.time_ratio = results.text_pdf_time_ratio;
fs.rmSync(base, { recursive: true, force: true });
writeResults('recoll', `Recoll and this app indexing the same folders, started cold, median of ${RUNS} interleaved runs`, results);
process.exit(0);
