// Side by side with a peer: Recoll (Debian `recollcmd`, with `poppler-utils` for PDFs) and this app
// index the same folders in the same run, each started cold (a new process; the files in the page
// cache for both). Four folders: text PDFs (carroll-wonderland.pdf × 6 as distinct files, and
// a-text.pdf: 499 pages), a mixed one (those PDFs, the e-book, Word, OpenDocument, Excel and
// PowerPoint files of the corpus), one with figures (manuals of text pages and photographs,
// scanned pages, the corpus's Hindi PDFs, the e-book and office files), and one of many small files
// (2,000 text notes of 60 words of real prose each, as a researcher's notes or exported messages). The app is measured two
// ways in: the command line (`media-index index --json`: "searchable" is its all_searchable event,
// "done" its exit) and a library added to a running service ("searchable" when the library counts
// no file still reading, "done" when none is pending). For each: wall time and peak resident memory
// (Recoll: recollindex and its filters as GNU time reports it; the app: its processes, sampled every
// 100 ms), medians and ranges of --runs interleaved runs, and the ratios app / Recoll.
// Recoll extracts text only; the app also renders pictures of pages, boxes every passage, looks for
// faces, objects and text in the pictures and runs its other bundled stages (phase 2, decision 0032).
// Set-up (once): apt-get install recollcmd poppler-utils. Usage: npm run bench -- recoll [-- --runs 5] [--only text_pdf,mixed,figures,small_files]
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { arg, writeResults } from './report.ts';
import sharp from 'sharp';
import { makePdf, type PdfPageSpec } from '../test/helpers/pdf.ts';
import { realTexts, proseSampler } from './texts.ts';
import { ensureBuilt, serve, treeRss } from './serve.ts';

const RUNS = arg('runs', 5);
/** `--only text_pdf,mixed`: those folders alone (default: all four). */
const ONLY = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1].split(',') : null;
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
/** A photograph as a page's JPEG, at most 1600 px on its long side. */
async function figure(rel: string): Promise<{ jpeg: Buffer; width: number; height: number }> {
  const { data, info } = await sharp(path.join(CORPUS, rel))
    .resize(1600, 1600, { fit: 'inside', withoutEnlargement: true })
    .jpeg({ quality: 85 })
    .toBuffer({ resolveWithObject: true });
  return { jpeg: data, width: info.width, height: info.height };
}

/** Manuals (pages of real prose with a photograph every third page) and a scan (photographed text as pages). */
async function figurePdfs(dir: string): Promise<void> {
  const photos = [
    'scenes/skimage/chelsea.png',
    'scenes/skimage/astronaut.png',
    'scenes/skimage/coffee.png',
    'faces/face-api-samples/sample1.jpg',
    'faces/face-api-samples/sample3.jpg',
  ];
  const figures = await Promise.all(photos.filter((p) => fs.existsSync(path.join(CORPUS, p))).map(figure));
  const words = (await realTexts()).flatMap((t) => t.words);
  for (let m = 1; m <= 3; m++) {
    const prose = proseSampler(words, m);
    const pages: PdfPageSpec[] = [];
    for (let p = 1; p <= 24; p++) {
      if (p % 3 === 0) pages.push({ ...figures[(m + p) % figures.length] });
      else pages.push({ text: Array.from({ length: 40 }, () => prose.sentence(9).slice(0, 90)).join('\n') });
    }
    fs.writeFileSync(path.join(dir, `manual-${m}.pdf`), makePdf(pages));
  }
  const scans = await Promise.all(['ocr/images/page.png', 'ocr/images/imageTextN.png', 'ocr/images/imageTextR.png'].map(figure));
  fs.writeFileSync(path.join(dir, 'scanned.pdf'), makePdf(scans));
}

/** Small text files of real prose, each different. */
const SMALL_FILES = 2000;
const SMALL_FILE_WORDS = 60;

async function folder(name: string, kind: 'text' | 'mixed' | 'figures' | 'small'): Promise<string> {
  const dir = path.join(base, name);
  fs.mkdirSync(dir, { recursive: true });
  if (kind === 'small') {
    const prose = proseSampler(
      (await realTexts()).flatMap((t) => t.words),
      7,
    );
    for (let i = 1; i <= SMALL_FILES; i++) {
      // Numbered: two notes drawn from the same words would be one asset (the same content).
      fs.writeFileSync(path.join(dir, `note-${String(i).padStart(4, '0')}.txt`), `Note ${i}\n\n${prose.sentence(SMALL_FILE_WORDS)}\n`);
    }
    return dir;
  }
  if (kind !== 'figures') {
    for (let i = 1; i <= 6; i++) copyPdf(path.join(CORPUS, 'docs/carroll-wonderland.pdf'), path.join(dir, `wonderland-${i}.pdf`), i);
    fs.copyFileSync(path.join(CORPUS, 'docs/a-text.pdf'), path.join(dir, 'a-text.pdf'));
  } else {
    await figurePdfs(dir);
    copyPdf(path.join(CORPUS, 'docs/carroll-wonderland.pdf'), path.join(dir, 'wonderland.pdf'), 0);
    for (const f of ['hindi.pdf', 'examples.pdf']) fs.copyFileSync(path.join(CORPUS, 'ocr/hindi-pdf', f), path.join(dir, f));
  }
  if (kind !== 'text') {
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
  /** The app: when every file was searchable (phase 1 ended). */
  searchable?: number;
  /** Through a library: when the service listened, and when the library's addition was answered (from launch). */
  listening?: number;
  added?: number;
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
  files_seen: number;
  refused: number;
  unreadable: number;
  assets: number;
  pending: number;
  reading: number;
  status: string;
  scan: { running: boolean; queued: boolean };
}

/** Through a library added to a running service. */
async function viaLibrary(dir: string, files: number): Promise<Run> {
  const data = fs.mkdtempSync(path.join(base, 'data-'));
  const s = await serve(data, { env: { MEDIA_INDEX_LIBRARY_ROOTS: dir } });
  const t0 = s.launchedAt;
  const listening = (performance.now() - t0) / 1000;
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
    const added = (performance.now() - t0) / 1000;
    let searchable: number | undefined;
    for (;;) {
      const l = await call<Lib>('GET', `/libraries/${lib.library_id}`);
      // Every file seen and settled (a file refused would otherwise keep the count short forever).
      const walked = l.files_seen === files && l.assets + l.refused + l.unreadable === files && !l.scan.running && !l.scan.queued;
      if (walked && l.reading === 0) searchable ??= (performance.now() - t0) / 1000;
      if (walked && l.pending === 0) break;
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
    const seconds = (performance.now() - t0) / 1000;
    const list = await call<Array<{ status: string }>>('GET', '/videos?limit=100');
    // A folder of more than a page of files: the library's own count (none pending is the loop's end).
    const documents = files > list.length ? files : list.filter((a) => a.status === 'completed').length;
    return { seconds, searchable, listening, added, peakMiB: peak / 1024 / 1024, documents };
  } finally {
    clearInterval(sampler);
    await s.stop();
    fs.rmSync(data, { recursive: true, force: true });
  }
}

/** Through the command line: `media-index index DIR --json`, from launch to its all_searchable event and to its exit. */
async function viaCli(dir: string): Promise<Run> {
  await ensureBuilt(); // compiled, as `npm start` runs it (else bin/media-index.js runs the sources)
  const data = fs.mkdtempSync(path.join(base, 'data-'));
  const t0 = performance.now();
  const child = spawn(process.execPath, [path.resolve(HERE, '../bin/media-index.js'), 'index', '--data', data, '--json', dir], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, treeRss(child.pid!))), 100);
  let searchable: number | undefined;
  let documents = 0;
  let buf = '';
  child.stdout.on('data', (d: Buffer) => {
    buf += d.toString();
    for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
      const e = JSON.parse(buf.slice(0, i)) as { event: string };
      buf = buf.slice(i + 1);
      if (e.event === 'all_searchable') searchable = (performance.now() - t0) / 1000;
      if (e.event === 'completed') documents++;
    }
  });
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  const seconds = (performance.now() - t0) / 1000;
  clearInterval(sampler);
  fs.rmSync(data, { recursive: true, force: true });
  if (code !== 0 && code !== 2) throw new Error(`media-index index exited with ${code}`);
  return { seconds, searchable, peakMiB: peak / 1024 / 1024, documents };
}

const results: Record<string, number | string> = {
  machine: `${os.cpus()[0]?.model ?? 'cpu'} x${os.availableParallelism()}`,
  recoll: execFileSync('dpkg-query', ['-W', '-f', 'recoll ${Version}', 'recollcmd'], { encoding: 'utf8' }),
  runs: RUNS,
};
for (const [name, kind] of [
  ['text_pdf', 'text'],
  ['mixed', 'mixed'],
  ['figures', 'figures'],
  ['small_files', 'small'],
] as const) {
  if (ONLY && !ONLY.includes(name)) continue;
  const dir = await folder(name, kind);
  const files = fs.readdirSync(dir).length;
  const pages = pdfPages(dir);
  const r: Run[] = [];
  const cli: Run[] = [];
  const lib: Run[] = [];
  for (let i = 0; i < RUNS; i++) {
    r.push(recoll(dir));
    cli.push(await viaCli(dir));
    lib.push(await viaLibrary(dir, files));
    const [c, l] = [cli.at(-1)!, lib.at(-1)!];
    console.error(
      `${name} run ${i + 1}: recoll ${round(r.at(-1)!.seconds)} s; cli searchable ${round(c.searchable ?? NaN)} s, done ${round(c.seconds)} s; library searchable ${round(l.searchable ?? NaN)} s (${round((l.searchable ?? NaN) - (l.added ?? NaN))} s after its addition), done ${round(l.seconds)} s`,
    );
  }
  const rs = r.map((x) => round(x.seconds));
  const recollS = median(rs);
  Object.assign(results, {
    [`${name}_files`]: files,
    [`${name}_pdf_pages`]: pages,
    [`${name}_recoll_s`]: recollS,
    [`${name}_recoll_s_range`]: range(rs),
    [`${name}_recoll_documents`]: r[0].documents,
    [`${name}_recoll_peak_rss_mib`]: Math.round(median(r.map((x) => x.peakMiB))),
  });
  for (const [way, runs] of [
    ['cli', cli],
    ['library', lib],
  ] as const) {
    const searchable = runs.map((x) => round(x.searchable ?? NaN));
    const done = runs.map((x) => round(x.seconds));
    Object.assign(results, {
      [`${name}_${way}_searchable_s`]: median(searchable),
      [`${name}_${way}_searchable_s_range`]: range(searchable),
      [`${name}_${way}_done_s`]: median(done),
      [`${name}_${way}_done_s_range`]: range(done),
      [`${name}_${way}_documents_completed`]: runs[0].documents,
      [`${name}_${way}_peak_rss_mib`]: Math.round(median(runs.map((x) => x.peakMiB))),
      [`${name}_${way}_searchable_ratio`]: round(median(searchable) / recollS),
      [`${name}_${way}_done_ratio`]: round(median(done) / recollS),
    });
  }
  // Through a library, what the service's own start takes of it: a desktop app's service is
  // running when a folder is added, and then only the time from the addition is waited for. The
  // targets are judged on the figures from launch above.
  const listening = lib.map((x) => round(x.listening ?? NaN));
  const afterAdd = lib.map((x) => round((x.searchable ?? NaN) - (x.added ?? NaN)));
  Object.assign(results, {
    [`${name}_library_listening_s`]: median(listening),
    [`${name}_library_searchable_after_add_s`]: median(afterAdd),
    [`${name}_library_searchable_after_add_s_range`]: range(afterAdd),
    [`${name}_library_searchable_after_add_ratio`]: round(median(afterAdd) / recollS),
  });
}
results.time_ratio = results.text_pdf_library_done_ratio;
fs.rmSync(base, { recursive: true, force: true });
writeResults('recoll', `Recoll and this app indexing the same folders, started cold, median of ${RUNS} interleaved runs`, results);
process.exit(0);
