// Libraries at scale: a generated tree of small real-format files (unique text files and 8×8 PNGs,
// 100 per folder), followed by `media-index serve` as a user runs it, with indexing paused
// (--workers 0) so that what is timed is the library's own work: walking, reading, hashing,
// checking and queueing. Figures: the first walk and enqueue (files/s), a rescan of the unchanged
// tree, the time from a file appearing to its asset existing (the watch latency, default settle
// time included), and the service's peak RSS during the first walk. Each is the median of --runs.
// Usage: npm run bench -- libraries [-- --files 100000 --runs 3]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { arg, writeResults } from './report.ts';
import { procBytes, serve, type Service } from './serve.ts';

const FILES = arg('files', 100_000);
const RUNS = arg('runs', 3);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const range = (xs: number[]) => `${Math.min(...xs)}–${Math.max(...xs)}`;

async function generate(root: string, n: number): Promise<void> {
  const old = new Date(Date.now() - 3600_000);
  const png = (i: number) => {
    const px = Buffer.alloc(8 * 8 * 3);
    for (let k = 0; k < px.length; k++) px[k] = (i * 131 + k * 17) & 255;
    px.writeUInt32BE(i, 0);
    return sharp(px, { raw: { width: 8, height: 8, channels: 3 } })
      .png()
      .toBuffer();
  };
  for (let i = 0; i < n; i++) {
    const dir = path.join(root, `y${2000 + (Math.floor(i / 10_000) % 25)}`, `d${Math.floor(i / 100)}`);
    if (i % 100 === 0) fs.mkdirSync(dir, { recursive: true });
    const file = i % 10 < 7 ? path.join(dir, `note-${i}.txt`) : path.join(dir, `pic-${i}.png`);
    fs.writeFileSync(file, i % 10 < 7 ? `Note ${i}: about item ${i * 7919}.\n` : await png(i));
    fs.utimesSync(file, old, old);
  }
}

async function serveLibrary(dataDir: string, root: string): Promise<Service> {
  return serve(dataDir, { workers: 0, env: { MEDIA_INDEX_LIBRARY_ROOTS: root } });
}

const rssMiB = (pid: number) => procBytes(pid, 'VmRSS') / 1024 / 1024;

interface Lib {
  library_id: string;
  status: string;
  assets: number;
  files_seen: number;
  last_scan_at: string | null;
  scan: { running: boolean; queued: boolean };
}

async function call<T>(s: Service, method: string, p: string, json?: unknown): Promise<T> {
  const r = await fetch(`${s.url}/api/v1${p}`, {
    method,
    headers: { 'X-API-Key': s.key, ...(json ? { 'Content-Type': 'application/json' } : {}) },
    body: json ? JSON.stringify(json) : undefined,
  });
  return ((await r.json()) as { data: T }).data;
}

async function waitFor(s: Service, id: string, done: (l: Lib) => boolean, onTick: () => void = () => {}, everyMs = 250): Promise<Lib> {
  for (;;) {
    onTick();
    const l = await call<Lib>(s, 'GET', `/libraries/${id}`);
    if (done(l)) return l;
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

const base = fs.mkdtempSync(path.join(os.tmpdir(), 'mi-bench-libraries-'));
const root = path.join(base, 'library');
const t0 = performance.now();
await generate(root, FILES);
console.error(`generated ${FILES} files in ${Math.round((performance.now() - t0) / 1000)} s`);

const first: number[] = [];
const peaks: number[] = [];
const rescans: number[] = [];
const latencies: number[] = [];
for (let run = 0; run < RUNS; run++) {
  const dataDir = path.join(base, `data-${run}`);
  const s = await serveLibrary(dataDir, root);
  try {
    let peak = rssMiB(s.pid);
    const sample = () => (peak = Math.max(peak, rssMiB(s.pid)));
    const start = performance.now();
    const lib = await call<Lib>(s, 'POST', '/libraries', { path: root });
    await waitFor(s, lib.library_id, (l) => l.status === 'watching' && l.assets === FILES, sample);
    const seconds = (performance.now() - start) / 1000;
    first.push(Math.round(FILES / seconds));
    peaks.push(Math.round(peak));

    const before = (await call<Lib>(s, 'GET', `/libraries/${lib.library_id}`)).last_scan_at;
    const r0 = performance.now();
    await call(s, 'POST', `/libraries/${lib.library_id}/scan`);
    await waitFor(s, lib.library_id, (l) => l.last_scan_at !== before && !l.scan.running && l.status === 'watching');
    rescans.push(Math.round(performance.now() - r0) / 1000);

    const latency: number[] = [];
    for (let i = 0; i < 5; i++) {
      const w0 = performance.now();
      fs.writeFileSync(path.join(root, 'y2000', 'd0', `new-${run}-${i}.txt`), `A new note ${run}-${i} written while watched.\n`);
      await waitFor(
        s,
        lib.library_id,
        (l) => l.assets === FILES + i + 1,
        () => {},
        20,
      );
      latency.push(Math.round(performance.now() - w0));
    }
    for (let i = 0; i < 5; i++) fs.rmSync(path.join(root, 'y2000', 'd0', `new-${run}-${i}.txt`));
    latencies.push(median(latency));
    console.error(
      `run ${run + 1}: first walk ${first.at(-1)} files/s, peak RSS ${peaks.at(-1)} MiB, rescan ${rescans.at(-1)} s, watch latency ${latencies.at(-1)} ms`,
    );
  } finally {
    await s.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
fs.rmSync(base, { recursive: true, force: true });

writeResults('libraries', `Libraries: ${FILES} generated files (70% text, 30% PNG), serve --workers 0, median of ${RUNS} runs`, {
  machine: `${os.cpus()[0]?.model ?? 'cpu'} x${os.availableParallelism()}`,
  files: FILES,
  first_walk_files_per_s: median(first),
  first_walk_range: range(first),
  first_walk_target: '>= 5000',
  rescan_unchanged_s: median(rescans),
  rescan_range: range(rescans),
  rescan_target: '<= 5',
  watch_latency_ms: median(latencies),
  watch_latency_range: range(latencies),
  watch_latency_target: '<= 2000',
  service_peak_rss_mib: median(peaks),
  service_peak_rss_range: range(peaks),
  service_peak_rss_target: '<= 400',
});
