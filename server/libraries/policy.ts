// Who may add which folder. A library gives the service read access to a folder tree, and through
// search and pages to its contents, so it must be a folder the owner allowed (by default their home
// and the mount points of removable drives; `serve --library-roots` or MEDIA_INDEX_LIBRARY_ROOTS
// set others), never a system folder, never the data folder, one of its parents or inside it.
// Symbolic links are resolved first: a link that leads out of an allowed root is judged by where
// it leads.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AppError, Errors } from '../errors.ts';

const SYSTEM_FOLDERS = ['/etc', '/proc', '/sys', '/dev', '/bin', '/sbin', '/boot', '/lib', '/lib64', '/usr', '/var', '/run', '/opt', '/srv'];
const MAC_SYSTEM = ['/System', '/Library', '/private', '/Applications', '/cores'];
const WINDOWS_SYSTEM = ['Windows', 'Program Files', 'Program Files (x86)', 'ProgramData'];
/** Where removable drives are mounted on Linux and macOS. */
const REMOVABLE = ['/media', '/mnt', '/run/media', '/Volumes'];

export function defaultLibraryRoots(): string[] {
  if (process.platform === 'win32') {
    const system = (process.env.SystemDrive ?? 'C:').toUpperCase();
    const drives = 'DEFGHIJKLMNOPQRSTUVWXYZ'
      .split('')
      .map((d) => `${d}:\\`)
      .filter((d) => !d.startsWith(system) && fs.existsSync(d));
    return [os.homedir(), ...drives];
  }
  return [os.homedir(), ...REMOVABLE];
}

const inside = (child: string, parent: string) => {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
};

function isSystemFolder(p: string): boolean {
  if (process.platform === 'win32') {
    const parsed = path.parse(p);
    if (p === parsed.root) return true;
    const first = p.slice(parsed.root.length).split(path.sep)[0];
    return WINDOWS_SYSTEM.some((w) => w.toLowerCase() === first.toLowerCase());
  }
  if (p === '/') return true;
  // /run/media holds removable drives; the rest of /run does not belong in a library.
  if (inside(p, '/run/media')) return false;
  return [...SYSTEM_FOLDERS, ...(process.platform === 'darwin' ? MAC_SYSTEM : [])].some((s) => inside(p, s));
}

/** Real paths of the allowed roots that exist. */
export function realRoots(roots: readonly string[]): string[] {
  return roots.flatMap((r) => {
    try {
      return [fs.realpathSync(path.resolve(r))];
    } catch {
      return [];
    }
  });
}

export function withinRoots(p: string, roots: readonly string[]): boolean {
  return roots.some((r) => inside(p, r));
}

/**
 * The folder a library may be made of, as its real path; throws 422 for what is not a readable
 * folder and 403 for a folder the service must not read.
 */
export function checkLibraryPath(input: string, opts: { roots: readonly string[]; dataDir: string }): string {
  if (!path.isAbsolute(input)) throw Errors.invalidRequest([{ path: 'path', message: 'must be an absolute path' }]);
  let real: string;
  try {
    real = fs.realpathSync(path.resolve(input));
  } catch {
    throw new AppError('not_found', 404, `No folder at ${input}.`);
  }
  if (!fs.statSync(real).isDirectory()) throw Errors.invalidRequest([{ path: 'path', message: 'is not a folder' }]);
  try {
    fs.accessSync(real, fs.constants.R_OK | fs.constants.X_OK);
  } catch {
    throw Errors.forbidden(`${input} cannot be read by this service (permission denied).`);
  }
  if (isSystemFolder(real)) throw Errors.forbidden(`${input} is a system folder; a library must be a folder of your own files.`);
  const data = fs.realpathSync(path.resolve(opts.dataDir));
  if (inside(data, real) || inside(real, data)) {
    throw Errors.forbidden(`${input} holds this service's data folder (or is inside it); choose the folder of your files instead.`);
  }
  const roots = realRoots(opts.roots);
  if (!withinRoots(real, roots)) {
    throw Errors.forbidden(
      `${input} is outside the folders libraries may come from (${roots.join(', ') || 'none'}); allow it with serve --library-roots or MEDIA_INDEX_LIBRARY_ROOTS.`,
    );
  }
  return real;
}
