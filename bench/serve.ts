// `media-index serve` as a user starts it, in a process of its own, for the benchmarks that measure
// through the service: its URL, the first API key it wrote, its pid and the memory of it and of its
// indexer processes (from /proc).
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../bin/media-index.js', import.meta.url));

export interface Service {
  url: string;
  /** The key written to first-api-key.txt on a new data folder ('' when the folder had keys). */
  key: string;
  pid: number;
  /** performance.now() when the process was launched (after any build): where start-up timings begin. */
  launchedAt: number;
  stop(): Promise<void>;
}

const built = new Set<string>();

/**
 * Builds the compiled service of the checkout a `bin/media-index.js` belongs to, where that
 * revision has one and it is not current, so that the service runs as `npm start` runs it. Once
 * built for a run, a build that is no longer current (its sources edited meanwhile) stops the
 * benchmark: `bin/media-index.js` would run the sources through tsx instead, and measure that.
 */
export async function ensureBuilt(bin: string = BIN): Promise<void> {
  const tree = path.resolve(path.dirname(bin), '..');
  const script = path.join(tree, 'scripts', 'build-server.mjs');
  if (!fs.existsSync(script)) return;
  const { currentBuild } = (await import(path.join(tree, 'bin', 'compiled.js'))) as { currentBuild: () => string | null };
  if (built.has(tree)) {
    if (!currentBuild()) throw new Error(`the sources of ${tree} changed during the benchmark: its compiled service is no longer the one measured`);
    return;
  }
  if (!currentBuild()) execFileSync(process.execPath, [script], { cwd: tree, stdio: 'inherit' });
  built.add(tree);
}

/**
 * Starts the service (of this checkout, or of `bin`), compiled as `npm start` runs it; `workers`
 * left out means its default indexer processes.
 */
export async function serve(dataDir: string, opts: { workers?: number; env?: NodeJS.ProcessEnv; bin?: string } = {}): Promise<Service> {
  const profile = process.env.BENCH_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`] : [];
  const workers = opts.workers === undefined ? [] : ['--workers', String(opts.workers)];
  await ensureBuilt(opts.bin ?? BIN);
  const launchedAt = performance.now();
  const child = spawn(process.execPath, [...profile, opts.bin ?? BIN, 'serve', '--port', '0', ...workers, '--data', dataDir], {
    env: { ...process.env, MEDIA_INDEX_RATE_LIMIT: '100000000', ...opts.env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (\S+)/.exec(out);
      if (m) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${out}`)));
  });
  child.stdout.resume();
  const keyFile = path.join(dataDir, 'first-api-key.txt');
  const key = fs.existsSync(keyFile)
    ? (fs
        .readFileSync(keyFile, 'utf8')
        .split('\n')
        .find((l) => l.startsWith('mi_')) ?? '')
    : '';
  return {
    url,
    key,
    pid: child.pid as number,
    launchedAt,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** A field of /proc/PID/status in bytes (VmRSS, VmHWM); 0 when the process is gone. */
export function procBytes(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  try {
    return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

/** The direct children of a process (the service's indexer processes). */
export function childrenOf(pid: number): number[] {
  try {
    return fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/**
 * Proportional memory of a process in bytes (PSS, /proc/PID/smaps_rollup): its private pages, and
 * each page it shares (Node's own code, the native libraries) divided by the processes sharing it;
 * 0 when the process is gone.
 */
export function procPss(pid: number): number {
  try {
    return Number(/^Pss:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

/** Memory of the service and its indexer processes together with each shared page counted once (summed PSS), in bytes. */
export const treePss = (pid: number) => procPss(pid) + childrenOf(pid).reduce((n, c) => n + procPss(c), 0);

/** Resident memory of the service and its indexer processes together, in bytes (pages they share counted in each). */
export const treeRss = (pid: number) => procBytes(pid, 'VmRSS') + childrenOf(pid).reduce((n, c) => n + procBytes(c, 'VmRSS'), 0);

/** What `uploadAll` sends: a file on disk, or bytes under a name. */
export type Upload = string | { name: string; data: Uint8Array };

/** Uploads each file through the API (with index options, if given) and returns their ids in order. */
export async function uploadAll(api: { url: string; key: string }, files: Upload[], options?: unknown): Promise<string[]> {
  const ids: string[] = [];
  for (const f of files) {
    const form = new FormData();
    form.append('pipeline', 'arrow');
    if (options) form.append('options', JSON.stringify(options));
    if (typeof f === 'string') form.append('file', await fs.openAsBlob(f), path.basename(f));
    else form.append('file', new Blob([new Uint8Array(f.data)]), f.name);
    const r = await fetch(`${api.url}/api/v1/videos`, { method: 'POST', headers: { 'X-API-Key': api.key }, body: form });
    if (r.status !== 201) throw new Error(`upload of ${typeof f === 'string' ? f : f.name} answered ${r.status}`);
    ids.push(((await r.json()) as { data: { video_id: string } }).data.video_id);
  }
  return ids;
}

/** An asset as `GET /videos/{id}` shows it. */
export async function assetView<T extends { status: string }>(api: { url: string; key: string }, id: string): Promise<T> {
  const r = await fetch(`${api.url}/api/v1/videos/${id}`, { headers: { 'X-API-Key': api.key } });
  return ((await r.json()) as { data: T }).data;
}

/** Waits until every asset is `completed`, asking every `everyMs`; returns their views in order. */
export async function allCompleted<T extends { status: string }>(api: { url: string; key: string }, ids: string[], everyMs = 100): Promise<T[]> {
  const views: T[] = [];
  for (const id of ids) {
    for (;;) {
      const v = await assetView<T>(api, id);
      if (v.status === 'completed') {
        views.push(v);
        break;
      }
      await new Promise((r) => setTimeout(r, everyMs));
    }
  }
  return views;
}
