// Runs a module of the service in a worker thread (long computations stay off the thread that answers
// HTTP). The module receives `workerData` and posts one message back.
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const require = createRequire(import.meta.url);
const TSX_API = pathToFileURL(path.join(path.dirname(require.resolve('tsx/package.json')), 'dist', 'esm', 'api', 'index.mjs')).href;

export function runInThread<T>(moduleUrl: URL, data: unknown): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const w = startThread(moduleUrl, data);
    let settled = false;
    w.once('message', (m: T) => {
      settled = true;
      resolve(m);
      void w.terminate();
    });
    w.once('error', (e) => {
      settled = true;
      reject(e);
    });
    w.once('exit', (code) => {
      if (!settled) reject(new Error(`worker thread exited (${code}) without an answer`));
    });
  });
}

/**
 * Starts a long-lived worker thread on a module of the service (paths.ts `entryModule`): a compiled
 * one directly, a TypeScript source through tsx. The caller talks to it by messages.
 */
export function startThread(moduleUrl: URL, data: unknown): Worker {
  if (moduleUrl.pathname.endsWith('.mjs')) return new Worker(moduleUrl, { workerData: data });
  const code = `import(${JSON.stringify(TSX_API)}).then(({ register }) => { register(); return import(${JSON.stringify(moduleUrl.href)}); });`;
  return new Worker(code, { eval: true, workerData: data });
}

/**
 * A worker thread started on first use and ended after `idleMs` without work: jobs are messages
 * `{id, ...}` answered by `{id, ok, error?}`. A thread that dies fails the jobs it held; the next
 * job starts another.
 */
export class IdleThread<J extends object> {
  private worker: Worker | null = null;
  private readonly waiting = new Map<number, { resolve(): void; reject(e: Error): void }>();
  private seq = 0;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly moduleUrl: URL,
    private readonly idleMs: number,
  ) {}

  run(job: J): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const w = this.worker ?? this.start();
    const id = ++this.seq;
    return new Promise<void>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      w.postMessage({ ...job, id });
    }).finally(() => {
      if (this.waiting.size === 0 && this.worker) this.timer = setTimeout(() => void this.stop(), this.idleMs).unref();
    });
  }

  async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const w = this.worker;
    this.worker = null;
    if (w) await w.terminate();
  }

  private start(): Worker {
    const w = startThread(this.moduleUrl, null);
    const fail = (e: Error) => {
      if (this.worker === w) this.worker = null;
      for (const [, job] of this.waiting) job.reject(e);
      this.waiting.clear();
    };
    w.on('message', (m: { id: number; ok: boolean; error?: string }) => {
      const job = this.waiting.get(m.id);
      this.waiting.delete(m.id);
      if (m.ok) job?.resolve();
      else job?.reject(new Error(m.error ?? 'failed'));
    });
    w.on('error', fail);
    w.on('exit', (code) => fail(new Error(`worker thread exited (${code})`)));
    this.worker = w;
    return w;
  }
}
