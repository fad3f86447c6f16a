// Where the project's own files are, whether the service runs its TypeScript sources (through tsx)
// or the compiled modules of `npm run build:server` (dist/server, one file per entry and shared
// chunks). Files are found from the project root, never relative to a module, since a module's
// code may sit in a chunk of the compiled output.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** True when this code runs from dist/server (compiled modules end in .mjs). */
export const COMPILED = import.meta.url.endsWith('.mjs');

function findRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'package.json')) && fs.existsSync(path.join(dir, 'server'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`project root not found above ${from}`);
  }
}

/** The project's root folder (package.json, models/manifest.json, dist/). */
export const ROOT = findRoot(path.dirname(fileURLToPath(import.meta.url)));

export const fromRoot = (...parts: string[]): string => path.join(ROOT, ...parts);

/** Where `npm run build:server` writes the compiled modules. */
export const COMPILED_DIR = fromRoot('dist', 'server');

/**
 * The module a worker thread or indexer process runs, by its path under server/ without extension
 * (e.g. 'indexer/worker'): the compiled module when this code is compiled, else the source. The
 * build compiles server/cli.ts, server/indexer/worker.ts and every module named `*.worker.ts`.
 */
export function entryModule(name: string): URL {
  return pathToFileURL(COMPILED ? path.join(COMPILED_DIR, `${name}.mjs`) : fromRoot('server', `${name}.ts`));
}
