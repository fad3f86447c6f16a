// End-to-end indexing throughput through the real service (server, SQLite, one indexer process per
// core, every bundled stage at its defaults): text-PDF pages/s, scanned pages/s, photos/s, video
// seconds per wall second; CPU use of both cores and peak memory (server + indexer processes).
// Then the photos again with one indexer process: the baseline the pool is compared against. The
// text PDFs are timed after a warm-up document per process.
// Usage: npm run bench:index
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../server/config.ts';
import { startServer } from '../server/server.ts';
import { AuthService } from '../server/services/auth.service.ts';
import { PHOTOS } from './sets.ts';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const CORPUS = path.resolve(HERE, '../../shared/corpus');

function cpuTimes(): { busy: number; total: number } {
  const line = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const idle = line[3] + (line[4] ?? 0);
  const total = line.reduce((a, b) => a + b, 0);
  return { busy: total - idle, total };
}

function rssOf(pid: number | undefined): number {
  if (!pid) return 0;
  try {
    const m = /VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

async function open(workers?: number) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mi-bench-index-'));
  const server = await startServer(loadConfig({ dataDir, port: 0, rateLimit: { max: 1e9, windowMs: 60_000 }, ...(workers ? { workers } : {}) }), {
    log: () => {},
  });
  const key = new AuthService(server.store).createKey({ workspace: 'bench', scopes: ['read', 'write'] }).key;
  return { dataDir, server, key };
}
let { dataDir, server, key } = await open();
const workers = server.host.workerCount;

let peak = 0;
const sampler = setInterval(() => {
  const total = rssOf(process.pid) + server.host.workerPids.reduce((n, pid) => n + rssOf(pid), 0);
  peak = Math.max(peak, total);
}, 200);

async function run(label: string, files: string[], options?: unknown) {
  const cpu0 = cpuTimes();
  const t0 = performance.now();
  const ids: string[] = [];
  for (const f of files) {
    const form = new FormData();
    form.append('pipeline', 'arrow');
    if (options) form.append('options', JSON.stringify(options));
    form.append('file', await fs.openAsBlob(f), path.basename(f));
    const r = await fetch(`${server.url}/api/v1/videos`, { method: 'POST', headers: { 'X-API-Key': key }, body: form });
    ids.push(((await r.json()) as { data: { video_id: string } }).data.video_id);
  }
  for (const id of ids) while (server.store.assets.byId(id)?.status !== 'completed') await new Promise((r) => setTimeout(r, 50));
  const seconds = (performance.now() - t0) / 1000;
  const cpu1 = cpuTimes();
  const stages: Record<string, number> = {};
  for (const id of ids) {
    for (const r of server.store.runs.forAsset(id)) if (r.duration_ms) stages[r.stage] = (stages[r.stage] ?? 0) + r.duration_ms;
  }
  const assets = ids.map((id) => server.store.assets.byId(id)!);
  return {
    label,
    seconds: Math.round(seconds * 100) / 100,
    cpu_busy: Math.round(((cpu1.busy - cpu0.busy) / (cpu1.total - cpu0.total)) * 100) / 100,
    pages: assets.reduce((n, a) => n + (a.page_count ?? 0), 0),
    video_s: Math.round(assets.reduce((n, a) => n + (a.duration_s ?? 0), 0) * 10) / 10,
    items: ids.length,
    stage_ms: stages,
  };
}

const c = (p: string) => path.join(CORPUS, p);
const photos = PHOTOS;
// Warm-up, not timed: each indexer process loads pdf.js and its fonts once (about 1.7 s); a library
// of documents pays it once per process, not per document.
await run('warm-up', [c('docs/a-text.pdf'), c('docs/a-text.pdf')]);
const results = [
  await run(
    'text PDF (carroll-wonderland.pdf x6, warm processes)',
    [1, 2, 3, 4, 5, 6].map(() => c('docs/carroll-wonderland.pdf')),
  ),
  await run(
    'scanned PDF pages (examples.pdf x4, en+hi OCR)',
    [1, 2, 3, 4].map(() => c('ocr/hindi-pdf/examples.pdf')),
    { ocr: { languages: ['en', 'hi'] } },
  ),
  await run(`photos (${photos.length}, all bundled stages)`, photos),
  await run('videos (movie-hello.mp4, vtest.avi, all bundled stages)', [c('video/forensics/movie-hello.mp4'), c('video/opencv/vtest.avi')]),
];
await server.close();
fs.rmSync(dataDir, { recursive: true, force: true });
({ dataDir, server, key } = await open(1));
const oneWorker = await run(`photos (${photos.length}, one indexer process: baseline)`, photos);
clearInterval(sampler);
await server.close();
fs.rmSync(dataDir, { recursive: true, force: true });

const [pdf, scan, pics, vids] = results;
const summary = {
  date: new Date().toISOString(),
  machine: `${os.cpus()[0]?.model ?? 'cpu'} x${os.availableParallelism()}`,
  text_pdf_pages_per_s: Math.round((pdf.pages / pdf.seconds) * 10) / 10,
  scanned_pages_per_s: Math.round(((scan.items * 2) / scan.seconds) * 100) / 100,
  photos_per_s: Math.round((pics.items / pics.seconds) * 100) / 100,
  video_x_realtime: Math.round((vids.video_s / vids.seconds) * 100) / 100,
  peak_rss_mib: Math.round(peak / 1024 / 1024),
  indexer_processes: workers,
  photos_per_s_one_process: Math.round((oneWorker.items / oneWorker.seconds) * 100) / 100,
  pool_speedup_photos: Math.round((oneWorker.seconds / pics.seconds) * 100) / 100,
  runs: [...results, oneWorker],
};
fs.writeFileSync(path.join(HERE, 'results/index.json'), `${JSON.stringify(summary, null, 2)}\n`);
const rows = [...results, oneWorker].map(
  (r) =>
    `| ${r.label} | ${r.items} | ${r.seconds} s | ${Math.round(r.cpu_busy * 100)}% | ${Object.entries(r.stage_ms)
      .sort((a, b) => b[1] - a[1])
      .slice(0, 3)
      .map(([s, ms]) => `${s} ${Math.round(ms / r.items)} ms`)
      .join(', ')} |`,
);
fs.writeFileSync(
  path.join(HERE, 'results/index.md'),
  [
    `Indexing (${summary.machine}, ${summary.date.slice(0, 10)}): text PDF ${summary.text_pdf_pages_per_s} pages/s, scanned ${summary.scanned_pages_per_s} pages/s, photos ${summary.photos_per_s}/s, video ${summary.video_x_realtime}x real time, peak RSS ${summary.peak_rss_mib} MiB; ${workers} indexer processes index photos ${summary.pool_speedup_photos}x as fast as one.`,
    '',
    '| set | items | wall | CPU busy (both cores) | heaviest stages per item |',
    '|---|---|---|---|---|',
    ...rows,
    '',
  ].join('\n'),
);
console.log(JSON.stringify({ ...summary, runs: undefined }, null, 2));
console.log(rows.join('\n'));
process.exit(0);
