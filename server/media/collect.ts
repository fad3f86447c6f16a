// The files a person points at (files and folders, walked recursively), as the CLI `index` and the
// desktop shell's pickers take them.
import fs from 'node:fs';
import path from 'node:path';
import { EXTENSION_KINDS } from '../contract/assets.ts';

/** Supported files under the given paths, recursively, in a stable order; with their sizes. */
export function collectFiles(paths: string[]): { files: string[]; sizes: Map<string, number>; skipped: Array<{ path: string; reason: string }> } {
  const files: string[] = [];
  const sizes = new Map<string, number>();
  const skipped: Array<{ path: string; reason: string }> = [];
  const visit = (p: string) => {
    const st = fs.statSync(p, { throwIfNoEntry: false });
    if (!st) {
      skipped.push({ path: p, reason: 'not found' });
    } else if (st.isDirectory()) {
      for (const name of fs.readdirSync(p).sort()) {
        if (!name.startsWith('.')) visit(path.join(p, name));
      }
    } else if (st.isFile()) {
      if (EXTENSION_KINDS[path.extname(p).toLowerCase()]) {
        const abs = path.resolve(p);
        files.push(abs);
        sizes.set(abs, st.size);
      } else skipped.push({ path: p, reason: 'not a supported type' });
    }
  };
  for (const p of paths) visit(p);
  return { files, sizes, skipped };
}
