// What every command of `media-index` shares: the data folder option, the services of a data folder
// opened by the command itself, failing with a message, and JSON lines.
import fs from 'node:fs';
import { Option } from 'commander';
import { defaultDataDir, loadConfig } from '../config.ts';
import { openStore } from '../store/index.ts';
import { createServices, type Services } from '../services/index.ts';

export function dataOption(): Option {
  return new Option('--data <dir>', 'data folder (env MEDIA_INDEX_DATA)').default(undefined, defaultDataDir());
}

/** Runs `fn` on the services of the data folder (nothing started: no indexing), closing it after. */
export async function withServices<T>(dataDir: string | undefined, fn: (s: Services) => T | Promise<T>): Promise<T> {
  const config = loadConfig({ dataDir });
  const store = openStore(config.dataDir);
  try {
    return await fn(createServices(store, config, { log: () => {} }));
  } finally {
    store.close();
  }
}

export function fail(message: string, code = 1): never {
  process.stderr.write(`media-index: ${message}\n`);
  process.exit(code);
}

/** Lines of `--json` output not yet written. */
let unwritten = '';
/** Whether the lines left at exit are written then. */
let exitHooked = false;

function writeLines(): void {
  const out = unwritten;
  unwritten = '';
  if (out) process.stdout.write(out);
}

/** On the way out, where a write left to the event loop would be lost: synchronously, whole. */
function writeLinesNow(): void {
  let rest = Buffer.from(unwritten);
  unwritten = '';
  while (rest.length > 0) {
    try {
      rest = rest.subarray(fs.writeSync(1, rest));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') return;
    }
  }
}

/**
 * A line of `--json` output, written with the others of the same turn of the event loop (`index`
 * prints a dozen lines a file: one write each took a twentieth of its thread's time on a folder of
 * small files), and before the process exits.
 */
export function jsonLine(event: Record<string, unknown>): void {
  if (unwritten === '') {
    setImmediate(writeLines);
    if (!exitHooked) process.on('exit', writeLinesNow);
    exitHooked = true;
  }
  unwritten += `${JSON.stringify(event)}\n`;
}
