// How a file's name is kept for display (uploads and files found in libraries alike).
import path from 'node:path';

/** File names are kept for display only: no path, no control characters, bounded length. */
export function displayName(original: string): string {
  const base = original.split(/[\\/]/).pop() ?? '';
  // eslint-disable-next-line no-control-regex
  const clean = base.replace(/[\u0000-\u001f\u007f]/g, '').trim() || 'unnamed';
  if (clean.length <= 255) return clean;
  // Too long: shorten the stem, keep the extension (it decides the kind).
  const ext = path.extname(clean).slice(0, 16);
  return `${clean.slice(0, 255 - ext.length)}${ext}`;
}
