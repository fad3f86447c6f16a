// The compiled service (`npm run build:server`): dist/server/current.json names the build to run
// and the newest source time it was made from. It runs only while no file under server/ is newer,
// so that an edited source is never shadowed by an older build. MEDIA_INDEX_SOURCES=1 runs the
// sources regardless.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
export const SOURCES_DIR = path.join(root, 'server');
export const BUILDS_DIR = path.join(root, 'dist', 'server', 'builds');
export const CURRENT_FILE = path.join(root, 'dist', 'server', 'current.json');

/** The newest modification time of the files under a folder (ms). */
export function newestMtime(dir) {
  let newest = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    newest = Math.max(newest, e.isDirectory() ? newestMtime(p) : fs.statSync(p).mtimeMs);
  }
  return newest;
}

/**
 * The folder of the current build where it may run (none newer among `sources`, sources not asked
 * for), else null.
 */
export function currentBuild(sources = SOURCES_DIR) {
  if (process.env.MEDIA_INDEX_SOURCES === '1') return null;
  try {
    const { id, sources_mtime: made } = JSON.parse(fs.readFileSync(CURRENT_FILE, 'utf8'));
    const dir = path.join(BUILDS_DIR, id);
    return fs.existsSync(path.join(dir, 'cli.mjs')) && newestMtime(sources) <= made ? dir : null;
  } catch {
    return null;
  }
}
