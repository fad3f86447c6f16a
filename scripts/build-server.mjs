// `npm run build:server`: compiles the service's TypeScript into dist/server — the command line,
// the indexer process's module and every worker thread's module (`*.worker.ts`) as entries, the
// code they share in chunks, the packages left to node_modules. bin/media-index.js runs these
// modules while they are newer than every source (it runs the sources through tsx otherwise), which
// spares each start, indexer process and worker thread the loader's work on some 250 modules.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const OUT_DIR = path.join(ROOT, 'dist', 'server');

export function entryPoints() {
  const workers = fs
    .readdirSync(path.join(ROOT, 'server'), { recursive: true })
    .map(String)
    .filter((f) => f.endsWith('.worker.ts'))
    .map((f) => path.join('server', f));
  return ['server/cli.ts', 'server/indexer/worker.ts', ...workers.sort()];
}

/** Builds beside the last build, then puts the new one in its place. */
export async function buildServer() {
  const next = `${OUT_DIR}.next`;
  fs.rmSync(next, { recursive: true, force: true });
  await esbuild.build({
    absWorkingDir: ROOT,
    entryPoints: entryPoints(),
    outbase: 'server',
    outdir: next,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    logLevel: 'warning',
  });
  fs.rmSync(OUT_DIR, { recursive: true, force: true });
  fs.renameSync(next, OUT_DIR);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await buildServer();
