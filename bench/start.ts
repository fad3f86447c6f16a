// Time from launching `media-index serve` (a new process, as a user starts it, with its default
// indexer processes) to the first answer of an authenticated API call (GET /api/v1/videos with a
// key), on a data folder holding only that key and on the folder again (warm file cache).
// Usage: npm run bench -- start
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openStore } from '../server/store/index.ts';
import { AuthService } from '../server/services/auth.service.ts';
import { writeResults } from './report.ts';
import { serve } from './serve.ts';

async function firstAnswerMs(dataDir: string, key: string): Promise<number> {
  const s = await serve(dataDir);
  const r = await fetch(`${s.url}/api/v1/videos`, { headers: { 'X-API-Key': key } });
  if (r.status !== 200) throw new Error(`GET /videos answered ${r.status}`);
  const ms = performance.now() - s.launchedAt;
  await s.stop();
  return Math.round(ms);
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mi-bench-start-'));
const store = openStore(dir);
store.workspaces.ensure('bench');
const key = new AuthService(store).createKey({ workspace: 'bench', scopes: ['read'] }).key;
store.close();
const first = await firstAnswerMs(dir, key);
const again: number[] = [];
for (let i = 0; i < 3; i++) again.push(await firstAnswerMs(dir, key));
fs.rmSync(dir, { recursive: true, force: true });
again.sort((a, b) => a - b);
writeResults('start', 'From launching `media-index serve` (default indexer processes) to the first authenticated API answer', {
  machine: `${os.cpus()[0]?.model ?? 'cpu'} x${os.availableParallelism()}`,
  first_start_ms: first,
  restart_median_ms: again[1],
  restart_runs_ms: again.join(', '),
});
process.exit(0);
