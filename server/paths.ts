// Where the project's own files are, whether the service runs its TypeScript sources (through tsx)
// or a compiled build of them (`npm run build:server`: dist/server/builds/<id>, one file per entry
// and shared chunks, a build.json at its top). Files are found from the project root, and worker
// modules from the build's top, never relative to a module: a module's code may sit in a chunk.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** True when this code runs from dist/server (compiled modules end in .mjs). */
export const COMPILED = import.meta.url.endsWith('.mjs');

/** The nearest folder above this module holding all of `files`. */
function above(files: string[]): string {
  const from = path.dirname(fileURLToPath(import.meta.url));
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (files.every((f) => fs.existsSync(path.join(dir, f)))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no folder above ${from} holds ${files.join(', ')}`);
  }
}

/** The project's root folder (package.json, models/manifest.json, dist/). */
export const ROOT = above(['package.json', 'server']);

export const fromRoot = (...parts: string[]): string => path.join(ROOT, ...parts);

/** The top of the build this code runs from (compiled only). */
const BUILD_DIR = COMPILED ? above(['build.json']) : '';

/** A file the build wrote beside its modules (compiled only; null when running the sources). */
export const builtFile = (name: string): string | null => (COMPILED ? path.join(BUILD_DIR, name) : null);

/**
 * The module a worker thread or indexer process runs, by its path under server/ without extension
 * (e.g. 'indexer/worker'): the compiled module when this code is compiled, else the source. The
 * build compiles server/cli.ts, server/indexer/worker.ts and every module named `*.worker.ts`.
 */
export function entryModule(name: string): URL {
  return pathToFileURL(COMPILED ? path.join(BUILD_DIR, `${name}.mjs`) : fromRoot('server', `${name}.ts`));
}
