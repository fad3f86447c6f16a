// Run as its own process: starts the service (no indexer processes) on a temp data folder, answers
// one authenticated request, and prints the npm packages this process imported, as JSON. With the
// argument `indexer`: loads an indexer process's entry instead, as a process starts it, and prints
// what it imported before its first run.
import { register } from 'node:module';
import { MessageChannel } from 'node:worker_threads';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const { port1, port2 } = new MessageChannel();
const urls: string[] = [];
port1.on('message', (url: string) => urls.push(url));
port1.unref();
register(
  `data:text/javascript,${encodeURIComponent(`
    let port;
    export function initialize(data) { port = data.port; }
    export async function resolve(specifier, context, next) {
      const r = await next(specifier, context);
      port.postMessage(r.url);
      return r;
    }`)}`,
  { data: { port: port2 }, transferList: [port2] },
);

const packagesOf = () => [...new Set(urls.map((u) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(u)?.[1]).filter((p): p is string => Boolean(p)))].sort();

if (process.argv[2] === 'indexer') {
  await import('../../server/indexer/worker.ts');
  await new Promise((resolve) => setTimeout(resolve, 100));
  process.stdout.write(`${JSON.stringify({ packages: packagesOf() })}\n`);
  process.exit(0);
}

const { loadConfig } = await import('../../server/config.ts');
const { startServer } = await import('../../server/server.ts');
const { AuthService } = await import('../../server/services/auth.service.ts');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mi-loaded-'));
const server = await startServer(loadConfig({ dataDir, port: 0, workers: 0 }), { log: () => {} });
const { key } = new AuthService(server.store).createKey({ workspace: 'w', scopes: ['read'], expiresInMs: null, access: [], label: null });
const r = await fetch(`${server.url}/api/v1/videos`, { headers: { 'X-API-Key': key } });
await server.close();
fs.rmSync(dataDir, { recursive: true, force: true });
await new Promise((resolve) => setTimeout(resolve, 100));
process.stdout.write(`${JSON.stringify({ status: r.status, packages: packagesOf() })}\n`);
