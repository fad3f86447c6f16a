// Which way up, on photos held out from the tests' tuning: the corpus's face-api samples 2–6,
// astronaut.png and bald_guys.jpg, each stored turned by 0, 90, 180 and 270° clockwise with no EXIF
// orientation, indexed through the service (compiled, default indexer processes, every bundled
// stage); counts how many come back with the `orientation_detected` that shows them upright.
// `--bin <path to another checkout's bin/media-index.js>` measures that checkout instead.
// Usage: npm run bench -- orientation [-- --bin /tmp/base/bin/media-index.js]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { openStore } from '../server/store/index.ts';
import { AuthService } from '../server/services/auth.service.ts';
import { writeResults } from './report.ts';
import { allCompleted, serve, uploadAll } from './serve.ts';
import { CORPUS } from './sets.ts';

const TURNS = [0, 90, 180, 270];
const FILES = [...[2, 3, 4, 5, 6].map((i) => `faces/face-api-samples/sample${i}.jpg`), 'faces/portraits/astronaut.png', 'faces/dlib-faces/bald_guys.jpg'].map(
  (f) => path.join(CORPUS, f),
);

const binAt = process.argv.indexOf('--bin');
const bin = binAt > 0 ? process.argv[binAt + 1] : undefined;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mi-bench-orientation-'));
const store = openStore(dataDir);
const key = new AuthService(store).createKey({ workspace: 'bench', scopes: ['read', 'write'] }).key;
store.close();
const server = await serve(dataDir, bin ? { bin } : {});
try {
  const api = { url: server.url, key };
  const jobs: Array<{ file: string; turn: number }> = [];
  const uploads: Array<{ name: string; data: Uint8Array }> = [];
  for (const file of FILES) {
    for (const turn of TURNS) {
      jobs.push({ file: path.basename(file), turn });
      uploads.push({ name: `${path.basename(file)}-turned-${turn}.jpg`, data: await sharp(file).rotate(turn).jpeg({ quality: 85 }).toBuffer() });
    }
  }
  const views = await allCompleted<{ status: string; orientation_detected: number | null }>(api, await uploadAll(api, uploads));
  const wrong: string[] = [];
  for (const [i, job] of jobs.entries()) {
    const asset = views[i];
    if (asset.orientation_detected !== (360 - job.turn) % 360) wrong.push(`${job.file} turned ${job.turn}: ${asset.orientation_detected}`);
  }
  writeResults('orientation', `Which way up, ${jobs.length} photos held out (${bin ?? 'this checkout'})`, {
    photos: jobs.length,
    right: jobs.length - wrong.length,
    wrong: wrong.join('; ') || 'none',
  });
} finally {
  await server.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
process.exit(0);
