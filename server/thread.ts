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
