// What every command of `media-index` shares: the data folder option, the services of a data folder
// opened by the command itself, failing with a message, and JSON lines.
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

/** A line of `--json` output. */
export const jsonLine = (event: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(event)}\n`);
