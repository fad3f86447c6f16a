// Shared by the real-model tests: installing a model with the CLI, as a user without a network would.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const CLI = fileURLToPath(new URL('../bin/media-index.js', import.meta.url));

/** `media-index models import NAME --from FROM --data DATA`; returns what it printed. */
export async function importWithCli(name: string, from: string, data: string): Promise<string> {
  const { stdout } = await promisify(execFile)(process.execPath, [CLI, 'models', 'import', name, '--from', from, '--data', data], {
    encoding: 'utf8',
    env: { ...process.env, MEDIA_INDEX_MODELS: '', MEDIA_INDEX_MODEL_MANIFEST: '' },
  });
  return stdout;
}

export const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
