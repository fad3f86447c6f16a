// A base revision of the app beside this checkout, for A/B benchmarks: a git worktree of it that
// shares this checkout's node_modules, removed afterwards.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The short hash of a revision of this repository. */
export const shortRev = (rev: string) => execFileSync('git', ['rev-parse', '--short', rev], { cwd: ROOT, encoding: 'utf8' }).trim();

/** The value of `--base` (default HEAD~1). */
export function baseArg(): string {
  const at = process.argv.indexOf('--base');
  return at > 0 ? process.argv[at + 1] : 'HEAD~1';
}

/** Runs `fn` with the `bin/media-index.js` of each side: the base revision's and this checkout's. */
export async function withBase<T>(rev: string, fn: (bins: { base: string; head: string }) => Promise<T>): Promise<T> {
  const tree = fs.mkdtempSync(path.join(os.tmpdir(), 'mi-bench-ab-base-'));
  execFileSync('git', ['worktree', 'add', '--detach', tree, rev], { cwd: ROOT, stdio: 'ignore' });
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(tree, 'node_modules'));
  try {
    return await fn({ base: path.join(tree, 'bin/media-index.js'), head: path.join(ROOT, 'bin/media-index.js') });
  } finally {
    execFileSync('git', ['worktree', 'remove', '--force', tree], { cwd: ROOT, stdio: 'ignore' });
  }
}
