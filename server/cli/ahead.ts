// Loaded by bin/media-index.js before the command line itself, and kept small (the launcher and the
// configuration's defaults): `media-index index` has its indexer processes forked first, so that
// they start while the command loads (server/indexer/launcher.ts, forkAhead).
import { forkAhead } from '../indexer/launcher.ts';
import { workersFromEnv } from '../config.ts';

/**
 * How many indexer processes the command line in `argv` will start for `index`, as its `--workers`
 * or the environment says; 0 for any other command, for help, and where the count is not a number
 * (the command itself then says what is wrong).
 */
export function workersAhead(argv: readonly string[]): number {
  if (argv[2] !== 'index' || argv.includes('-h') || argv.includes('--help')) return 0;
  const at = argv.findIndex((a) => a === '--workers' || a.startsWith('--workers='));
  let count: number;
  try {
    count = at < 0 ? workersFromEnv() : Number(argv[at].startsWith('--workers=') ? argv[at].slice('--workers='.length) : argv[at + 1]);
  } catch {
    return 0;
  }
  return Number.isInteger(count) && count > 0 ? count : 0;
}

/** Forks the indexer processes of an `index` command line now (none for other commands). */
export function forkAheadFor(argv: readonly string[]): void {
  forkAhead(workersAhead(argv));
}
