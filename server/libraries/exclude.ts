// What a library never indexes: hidden files and folders (".git", ".thumbnails", ".Trash-1000",
// ".DS_Store"…), dependency and system folders, the caches NAS and operating systems leave in
// photo folders, plus the library's own `exclude` globs (relative to the root; a glob without a
// slash matches a name at any depth, as in .gitignore).
import picomatch from 'picomatch';

export const EXCLUDED_NAMES: readonly string[] = [
  'node_modules',
  '$RECYCLE.BIN',
  'System Volume Information',
  'lost+found',
  '@eaDir',
  '@__thumb',
  '#recycle',
  '#snapshot',
  'Thumbs.db',
  'desktop.ini',
  '__pycache__',
];

export type Excluded = (relPath: string, name: string) => boolean;

/** Throws on a glob picomatch cannot read (shown to the caller as an invalid request). */
export function excluder(globs: readonly string[]): Excluded {
  const matchers = globs.map((g) => picomatch(g.replace(/^\.?\//, ''), { dot: true, basename: !g.includes('/') }));
  return (rel, name) => name.startsWith('.') || EXCLUDED_NAMES.includes(name) || matchers.some((m) => m(rel));
}
