// End-to-end indexing throughput through the real service (`media-index serve` as a user runs it,
// compiled, in its own process: server, SQLite, one indexer process per core, every bundled stage
// at its defaults): text-PDF pages/s, scanned pages/s, photos/s (at least
// 200 different photos: bench/sets.ts), video seconds per wall second; CPU use of both cores and
// peak memory of the server and its indexer processes, as resident memory summed (RSS: the pages
// they share — Node's code, the native libraries — counted once in each) and as proportional memory
// summed (PSS: each shared page counted once in all), sampled together every 200 ms. Then a part of the photos again with one indexer
// process: the baseline the pool is compared against. Three rounds (--rounds), each on new data
// folders with the pool and the baseline interleaved and both warmed the same way (a document and
// two photos per process first, not timed); every figure is the median of the rounds, with its range.
// With --speech, each round also indexes two videos with speech (the corpus's movie-hello.mp4 and a
// 22 s conversation of two corpus voices) on a data folder where the real whisper-base and GE2E
// speaker encoder are installed (fetched and converted by scripts/real-models.ts): video × real time
// with the transcript and speakers stages on.
// Usage: npm run bench -- index [-- --rounds 3 --photos 200 --speech 1]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execFileSync } from 'node:child_process';
import { fetchResemblyzer, fetchWhisper } from '../scripts/real-models.ts';
import { conversationVideo } from '../test/helpers/ffmpeg.ts';
import { openStore } from '../server/store/index.ts';
import { AuthService } from '../server/services/auth.service.ts';
import { arg, spread } from './report.ts';
import { CORPUS, variedPhotos } from './sets.ts';
import { allCompleted, childrenOf, procBytes, serve, treePss, uploadAll, type Service } from './serve.ts';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROUNDS = arg('rounds', 3);
const SPEECH = arg('speech', 0) > 0;
/** How many of the photos the one-process baseline indexes (the pool indexes the same first). */
const BASELINE_PHOTOS = 40;

function cpuTimes(): { busy: number; total: number } {
  const line = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const idle = line[3] + (line[4] ?? 0);
  const total = line.reduce((a, b) => a + b, 0);
  return { busy: total - idle, total };
}

/** A new data folder and the service on it, as a user runs it (compiled, its own process). */
async function open(workers?: number, models: Array<[string, string]> = []) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mi-bench-index-'));
  const store = openStore(dataDir);
  const key = new AuthService(store).createKey({ workspace: 'bench', scopes: ['read', 'write'] }).key;
  store.close();
  const env = { ...process.env, MEDIA_INDEX_MODELS: '', MEDIA_INDEX_MODEL_MANIFEST: '' };
  for (const [name, from] of models)
    execFileSync(process.execPath, [path.join(HERE, '../bin/media-index.js'), 'models', 'import', name, '--from', from, '--data', dataDir], {
      env,
      stdio: 'ignore',
    });
  const server = await serve(dataDir, workers ? { workers } : {});
  return { dataDir, server, key };
}
type Open = { dataDir: string; server: Service; key: string };
let current: Open | null = null;
let peak = 0;
let peakPss = 0;
/** At the peak: each process of the tree (the service, its indexer processes, its tools) and its RSS in MiB. */
let peakBy: Array<{ process: string; rss_mib: number }> = [];
function role(pid: number, service: number): string {
  if (pid === service) return 'service';
  try {
    const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    return cmd.some((a) => a.includes('indexer')) ? 'indexer' : path.basename(cmd[0]);
  } catch {
    return 'ended';
  }
}
/** The peak of the run under way (each run's own, to say which kind of file the round's peak came from). */
let runPeak = 0;
const sampler = setInterval(() => {
  if (!current) return;
  const { pid } = current.server;
  // Each process read once: the sum and the breakdown at the peak come from the same reading.
  const pids = [pid, ...childrenOf(pid)];
  const sizes = pids.map((p) => procBytes(p, 'VmRSS'));
  const rss = sizes.reduce((a, b) => a + b, 0);
  runPeak = Math.max(runPeak, rss);
  if (rss > peak) {
    peak = rss;
    peakBy = pids.map((p, i) => ({ process: role(p, pid), rss_mib: Math.round(sizes[i] / 2 ** 20) }));
  }
  peakPss = Math.max(peakPss, treePss(pid));
}, 200);

interface AssetView {
  status: string;
  page_count: number | null;
  duration_s: number | null;
  index: { report: { stages: Record<string, { duration_ms: number | null }> } };
}
interface Run {
  label: string;
  seconds: number;
  cpu_busy: number;
  pages: number;
  video_s: number;
  items: number;
  stage_ms: Record<string, number>;
  /** RSS summed over the service's process tree at this run's peak, MiB. */
  peak_rss_mib: number;
}

async function run(o: Open, label: string, files: string[], options?: unknown): Promise<Run> {
  const { server, key } = o;
  const cpu0 = cpuTimes();
  runPeak = 0;
  const t0 = performance.now();
  const api = { url: server.url, key };
  const ids = await uploadAll(api, files, options);
  const assets = await allCompleted<AssetView>(api, ids, 50);
  const seconds = (performance.now() - t0) / 1000;
  const cpu1 = cpuTimes();
  const stages: Record<string, number> = {};
  for (const a of assets) {
    for (const [stage, r] of Object.entries(a.index.report.stages)) if (r.duration_ms) stages[stage] = (stages[stage] ?? 0) + r.duration_ms;
  }
  return {
    label,
    seconds: Math.round(seconds * 100) / 100,
    cpu_busy: Math.round(((cpu1.busy - cpu0.busy) / (cpu1.total - cpu0.total)) * 100) / 100,
    pages: assets.reduce((n, a) => n + (a.page_count ?? 0), 0),
    video_s: Math.round(assets.reduce((n, a) => n + (a.duration_s ?? 0), 0) * 10) / 10,
    items: ids.length,
    stage_ms: stages,
    peak_rss_mib: Math.round(runPeak / 2 ** 20),
  };
}

async function close(o: Open): Promise<void> {
  current = null;
  await o.server.stop();
  fs.rmSync(o.dataDir, { recursive: true, force: true });
}

const c = (p: string) => path.join(CORPUS, p);
const stillsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mi-bench-stills-'));
const { files: photos, about: photosAbout } = variedPhotos(stillsDir, arg('photos', 200));
const baselinePhotos = photos.filter((_, i) => i % Math.max(1, Math.floor(photos.length / BASELINE_PHOTOS)) === 0).slice(0, BASELINE_PHOTOS);
// Warm-up, not timed: each indexer process loads pdf.js and its fonts, and the picture models, once
// (a library pays it once per process, not per file). Not in the photo set.
const WARM_UP = [c('docs/a-text.pdf'), c('docs/a-text.pdf')];
const WARM_UP_PHOTOS = [c('faces/portraits/grace_hopper_512x512.jpg'), c('scenes/skimage/camera.png')];
let workers = 0;
const rounds: Array<{
  pdf: Run;
  scan: Run;
  pics: Run;
  picsPart: Run;
  vids: Run;
  oneWorker: Run;
  speech: Run | null;
  peak: number;
  peakPss: number;
  peakBy: typeof peakBy;
}> = [];
const speechModels: Array<[string, string]> = SPEECH
  ? [
      ['whisper-base', await fetchWhisper('whisper-base')],
      ['ge2e-resemblyzer', await fetchResemblyzer()],
    ]
  : [];
const speechVideos = SPEECH
  ? [c('video/forensics/movie-hello.mp4'), conversationVideo(path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'mi-bench-speech-')), 'conversation.mp4'))]
  : [];
for (let i = 0; i < ROUNDS; i++) {
  peak = 0;
  peakPss = 0;
  peakBy = [];
  const pool = (current = await open());
  await run(pool, 'warm-up', [...WARM_UP, ...WARM_UP_PHOTOS]);
  const pdf = await run(
    pool,
    'text PDF (carroll-wonderland.pdf x6)',
    [1, 2, 3, 4, 5, 6].map(() => c('docs/carroll-wonderland.pdf')),
  );
  const scan = await run(
    pool,
    'scanned PDF pages (examples.pdf x4, en+hi OCR)',
    [1, 2, 3, 4].map(() => c('ocr/hindi-pdf/examples.pdf')),
    { ocr: { languages: ['en', 'hi'] } },
  );
  const picsPart = await run(pool, `photos (${baselinePhotos.length} of them, all bundled stages)`, baselinePhotos);
  const pics = await run(pool, `photos (${photos.length}, all bundled stages)`, photos);
  const vids = await run(pool, 'videos (movie-hello.mp4, vtest.avi, all bundled stages)', [c('video/forensics/movie-hello.mp4'), c('video/opencv/vtest.avi')]);
  workers = childrenOf(pool.server.pid).filter((pid) => {
    try {
      return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('indexer');
    } catch {
      return false; // ended meanwhile
    }
  }).length;
  await close(pool);
  const roundPeak = peak;
  const roundPeakPss = peakPss;
  const roundPeakBy = peakBy;
  // The baseline, warmed the same way, right after.
  const one = (current = await open(1));
  await run(one, 'warm-up', [...WARM_UP.slice(0, 1), ...WARM_UP_PHOTOS]);
  const oneWorker = await run(one, `photos (${baselinePhotos.length} of them, one indexer process: baseline)`, baselinePhotos);
  await close(one);
  let speech: Run | null = null;
  if (SPEECH) {
    const withSpeech = (current = await open(undefined, speechModels));
    await run(withSpeech, 'warm-up', WARM_UP.slice(0, 1));
    speech = await run(withSpeech, 'videos with speech (movie-hello.mp4, a 22 s conversation; whisper-base and GE2E on)', speechVideos);
    await close(withSpeech);
  }
  rounds.push({ pdf, scan, pics, picsPart, vids, oneWorker, speech, peak: roundPeak, peakPss: roundPeakPss, peakBy: roundPeakBy });
  console.log(
    `round ${i + 1}: photos ${(pics.items / pics.seconds).toFixed(3)}/s, video ${(vids.video_s / vids.seconds).toFixed(2)}x, peak ${Math.round(roundPeak / 2 ** 20)} MiB RSS, ${Math.round(roundPeakPss / 2 ** 20)} MiB PSS (${roundPeakBy.map((p) => `${p.process} ${p.rss_mib}`).join(', ')})`,
  );
}
clearInterval(sampler);
fs.rmSync(stillsDir, { recursive: true, force: true });
if (speechVideos[1]) fs.rmSync(path.dirname(speechVideos[1]), { recursive: true, force: true });

const stat = (f: (x: (typeof rounds)[number]) => number, d = 2) => spread(rounds.map(f), d);
const fig = {
  text_pdf_pages_per_s: stat((x) => x.pdf.pages / x.pdf.seconds, 1),
  scanned_pages_per_s: stat((x) => (x.scan.items * 2) / x.scan.seconds),
  photos_per_s: stat((x) => x.pics.items / x.pics.seconds),
  video_x_realtime: stat((x) => x.vids.video_s / x.vids.seconds),
  ...(SPEECH ? { video_x_realtime_with_speech: stat((x) => x.speech!.video_s / x.speech!.seconds) } : {}),
  peak_rss_mib: stat((x) => x.peak / 2 ** 20, 0),
  peak_pss_mib: stat((x) => x.peakPss / 2 ** 20, 0),
  photos_per_s_one_process: stat((x) => x.oneWorker.items / x.oneWorker.seconds),
  pool_speedup_photos: stat((x) => x.oneWorker.seconds / x.picsPart.seconds),
};
const summary = {
  date: new Date().toISOString(),
  machine: `${os.cpus()[0]?.model ?? 'cpu'} x${os.availableParallelism()}`,
  rounds: ROUNDS,
  photo_set: photosAbout,
  ...Object.fromEntries(Object.entries(fig).map(([k, v]) => [k, v.median])),
  ...Object.fromEntries(Object.entries(fig).map(([k, v]) => [`${k}_range`, v.range])),
  indexer_processes: workers,
  runs: rounds,
};
fs.writeFileSync(path.join(HERE, 'results/index.json'), `${JSON.stringify(summary, null, 2)}\n`);
// The round whose photos/s is the median, for the table of where the time goes.
const mid = [...rounds].sort((a, b) => a.pics.seconds - b.pics.seconds)[Math.floor(rounds.length / 2)];
const rows = [mid.pdf, mid.scan, mid.pics, mid.vids, ...(mid.speech ? [mid.speech] : []), mid.picsPart, mid.oneWorker].map(
  (x) =>
    `| ${x.label} | ${x.items} | ${x.seconds} s | ${Math.round(x.cpu_busy * 100)}% | ${Object.entries(x.stage_ms)
      .sort((a, b) => b[1] - a[1])
      .slice(0, 4)
      .map(([st, ms]) => `${st} ${Math.round(ms / x.items)} ms`)
      .join(', ')} | ${x.peak_rss_mib} MiB |`,
);
const line = (k: keyof typeof fig, unit: string) => `${fig[k]!.median}${unit} (${fig[k]!.range})`;
fs.writeFileSync(
  path.join(HERE, 'results/index.md'),
  [
    `Indexing (${summary.machine}, ${summary.date.slice(0, 10)}), medians of ${ROUNDS} rounds (range): text PDF ${line('text_pdf_pages_per_s', ' pages/s')}, scanned ${line('scanned_pages_per_s', ' pages/s')}, photos ${line('photos_per_s', '/s')}, video ${line('video_x_realtime', 'x real time')}${SPEECH ? `, video with speech stages ${line('video_x_realtime_with_speech', 'x real time')}` : ''}, peak memory ${line('peak_rss_mib', ' MiB')} RSS summed, ${line('peak_pss_mib', ' MiB')} PSS summed; ${workers} indexer processes index photos ${line('pool_speedup_photos', 'x')} as fast as one. Photos: ${photosAbout}.`,
    '',
    'The median round (stage times are summed over both processes, per item):',
    '',
    '| set | items | wall | CPU busy (both cores) | heaviest stages per item | peak RSS summed |',
    '|---|---|---|---|---|---|',
    ...rows,
    '',
  ].join('\n'),
);
console.log(JSON.stringify({ ...summary, runs: undefined }, null, 2));
console.log(rows.join('\n'));
process.exit(0);
