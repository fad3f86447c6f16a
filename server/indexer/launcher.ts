// Starts indexer processes with child_process.fork (headless). The desktop shell supplies a
// launcher with the same interface over Electron's utilityProcess.
import { fork, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { WorkerChannel, WorkerLauncher, WorkerMessage } from './protocol.ts';
import { COMPILED, entryModule } from '../paths.ts';
import { env } from '../config.ts';
import { belowNormal } from './priority.ts';

const require = createRequire(import.meta.url);
export const WORKER_ENTRY = fileURLToPath(entryModule('indexer/worker'));
/**
 * WebAssembly (PDFium, tesseract) runs first as V8's baseline code, and a function is compiled
 * again by its optimizing compiler once it has run this much (V8's rough count of bytes executed;
 * 1.8 million by default, here 50 times more). With the default, that compiler's work on the
 * functions of a process's first book or page competed for the cores with the indexing itself and
 * saved less than it cost; now only what runs long is compiled again (tesseract's inner loops,
 * PDFium's over thousands of pages). Measured through `index`, interleaved runs a side, against
 * V8's default: the text PDFs of bench:recoll searchable in 1.19 s against 1.27 (8 runs; a
 * process's first book 0.31 s against 0.37, the next ones 0.15 s either way), the folder with
 * figures done in 12.5 s against 13.1 (3 runs), 54 photos and a PDF done in 16.3 s against 17.4
 * (3), 2,500 pages of text PDFs the same (3.33 s); 30 or 300 million measured as 90. Baseline code
 * only (--liftoff-only) read the text PDFs as fast but the folder with figures 22 % slower
 * (tesseract).
 */
const WASM_TIERING_BUDGET = 90_000_000;

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
  `--wasm-tiering-budget=${WASM_TIERING_BUDGET}`,
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

/** An indexer process started the way the host starts them, below normal priority. */
function forkIndexer(): ChildProcess {
  const child = fork(WORKER_ENTRY, [], {
    execArgv: [...WORKER_EXEC_ARGV, ...profile()],
    env: indexerEnv(),
    serialization: 'advanced',
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  // At once, for its start too (the process lowers itself as well, under the desktop shell).
  if (child.pid) belowNormal(child.pid);
  return child;
}

/** A process forked ahead, with what it said before a launch took it. */
interface Ahead {
  child: ChildProcess;
  heard: WorkerMessage[];
  listener: ((msg: WorkerMessage) => void) | null;
}
const ahead: Ahead[] = [];

/**
 * Forks `count` indexer processes now, for the next launches to take. `media-index index` calls it
 * before it loads its own modules (bin/media-index.js): its start keeps one core busy for ≈ 0.2 s,
 * and the processes, below normal priority, start on the other meanwhile instead of after it
 * (docs/performance.md, "Indexer processes forked ahead"). What a process says before it is taken
 * (that it is ready) is kept for the host that takes it; one never taken ends with the command, as
 * its channel closes.
 */
export function forkAhead(count: number): void {
  for (let i = 0; i < count; i++) {
    const held: Ahead = { child: forkIndexer(), heard: [], listener: null };
    held.child.on('message', (m) => (held.listener ? held.listener(m as WorkerMessage) : held.heard.push(m as WorkerMessage)));
    ahead.push(held);
  }
}

export const forkLauncher: WorkerLauncher = (): WorkerChannel => {
  let held = ahead.shift();
  // One that ended before it was taken (its 'exit' heard by nobody) is passed over.
  while (held && (held.child.exitCode !== null || held.child.signalCode !== null)) held = ahead.shift();
  const child = held?.child ?? forkIndexer();
  return {
    pid: child.pid,
    send: (msg) => {
      if (child.connected) child.send(msg);
    },
    onMessage: (fn) => {
      if (!held) child.on('message', (m) => fn(m as WorkerMessage));
      // What it said before, in a later turn (as any message arrives), then the rest in order.
      else
        setImmediate(() => {
          for (const m of held.heard.splice(0)) fn(m);
          held.listener = fn;
        });
    },
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
