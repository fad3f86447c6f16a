// The compiled service (dist/server, `npm run build:server`) and whether it may run: it must be
// newer than every source under server/, so that an edited source is never shadowed by an older
// build. MEDIA_INDEX_SOURCES=1 runs the sources regardless.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
export const COMPILED_CLI = path.join(root, 'dist', 'server', 'cli.mjs');

function newestSource(dir) {
  let newest = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    newest = Math.max(newest, e.isDirectory() ? newestSource(p) : fs.statSync(p).mtimeMs);
  }
  return newest;
}

/** True when dist/server is built and newer than every source (and sources are not asked for). */
export function compiledIsCurrent() {
  if (process.env.MEDIA_INDEX_SOURCES === '1') return false;
  try {
    return fs.statSync(COMPILED_CLI).mtimeMs > newestSource(path.join(root, 'server'));
  } catch {
    return false;
  }
}
