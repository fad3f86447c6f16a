// Starts indexer processes with child_process.fork (headless). The desktop shell supplies a
// launcher with the same interface over Electron's utilityProcess.
import { fork } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { WorkerChannel, WorkerLauncher, WorkerMessage } from './protocol.ts';
import { COMPILED, entryModule } from '../paths.ts';
import { env } from '../config.ts';

const require = createRequire(import.meta.url);
export const WORKER_ENTRY = fileURLToPath(entryModule('indexer/worker'));
/**
 * How an indexer process starts Node: compiled modules as they are, sources under tsx's loader;
 * V8's young generation at 4 MiB a half (16 by default), in the process and its worker threads: the
 * stages keep their large data outside the JavaScript heap, so its objects die young and small.
 * Measured on a round of bench:index: ≈ 40 MiB less at the peak, the same photos per second.
 * And V8's garbage collector on the process's own thread (--single-threaded-gc): it collects the
 * whole heap about once a photo (46 times over 17 photos' faces and objects, looked at twice), and
 * its helper threads, marking alongside, took CPU from the other indexer process without shortening
 * this one's work (Human's face looks on those photos in one process: 3.7 s of its main thread
 * either way, 1.0 → 0.24 s of its helpers). Measured side by side with 65ed9d8 (`npm run bench -- ab -- --base 65ed9d8 --runs 4`):
 * photos 2.461 → 2.674 a second (1.087×), video 9.72× → 10.49× real time (1.08×).
 */
export const WORKER_EXEC_ARGV: string[] = [
  '--max-semi-space-size=4',
  '--single-threaded-gc',
  ...(COMPILED ? [] : ['--import', pathToFileURL(require.resolve('tsx')).href]),
];

/**
 * The environment of an indexer process: the service's, with glibc's malloc held to two arenas
 * (unless MALLOC_ARENA_MAX is set). Every thread of the process — libuv's pool running sharp,
 * onnxruntime, tesseract's worker — would otherwise grow an arena of its own: measured on 100 varied
 * photos, 2301 → 2030 MiB at the peak for the service with its two indexer processes, at the same
 * photos per second (one arena: 2021 MiB, slower). And blocks of 1 MiB or more (decoded pictures,
 * rendered pages, model outputs) are mapped apart and given back when freed (unless
 * MALLOC_MMAP_THRESHOLD_ is set): by default glibc raises that threshold after each large free, up
 * to 32 MiB, so such blocks come from the heap and hold it at its highest; measured on the 200
 * photos of bench:index, 1653 → 1481 MiB at the peak for the service, at the same photos per second.
 * ONNX Runtime's telemetry is off in it whatever the environment says.
 */
export function indexerEnv(base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return {
    ...base,
    MALLOC_ARENA_MAX: base.MALLOC_ARENA_MAX ?? '2',
    MALLOC_MMAP_THRESHOLD_: base.MALLOC_MMAP_THRESHOLD_ ?? String(2 ** 20),
    // ONNX Runtime's telemetry off, whoever started the service (bin/media-index.js says why).
    ORT_DISABLE_TELEMETRY: '1',
  };
}

/** MEDIA_INDEX_CPU_PROFILE_DIR: each indexer process writes a V8 CPU profile there when it ends (benchmarks). */
const profile = (): string[] => {
  const dir = env.cpuProfileDir;
  return dir ? ['--cpu-prof', `--cpu-prof-dir=${dir}`] : [];
};

export const forkLauncher: WorkerLauncher = (): WorkerChannel => {
  const child = fork(WORKER_ENTRY, [], {
    execArgv: [...WORKER_EXEC_ARGV, ...profile()],
    env: indexerEnv(),
    serialization: 'advanced',
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return {
    pid: child.pid,
    send: (msg) => {
      if (child.connected) child.send(msg);
    },
    onMessage: (fn) => child.on('message', (m) => fn(m as WorkerMessage)),
    onExit: (fn) => child.on('exit', (code) => fn(code)),
    kill: () => {
      // Let go first: on disconnect the process ends what it started (its exiftool, which outlives a
      // killed parent) and exits, writing its profile when profiled; killed if it has not in 2.5 s.
      if (child.connected) {
        child.disconnect();
        setTimeout(() => child.kill('SIGKILL'), 2500).unref();
      } else child.kill('SIGKILL');
    },
  };
};
