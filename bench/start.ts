// Time from launching `media-index serve` (a new process, as a user starts it) to the first API
// answer, on an empty data folder and on the folder again (warm file cache).
// Usage: npm run bench:start
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeResults } from './report.ts';

const BIN = fileURLToPath(new URL('../bin/media-index.js', import.meta.url));

async function firstAnswerMs(dataDir: string): Promise<number> {
  const t0 = performance.now();
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--data', dataDir, '--workers', '0'], { stdio: ['ignore', 'pipe', 'ignore'] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (\S+)/.exec(out);
      if (m) resolve(m[1]);
    });
    child.on('exit', (code) => reject(new Error(`serve exited with ${code}`)));
  });
  const r = await fetch(`${url}/api/v1/health`);
  if (r.status !== 200) throw new Error(`health answered ${r.status}`);
  const ms = performance.now() - t0;
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  return Math.round(ms);
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mi-bench-start-'));
const empty = await firstAnswerMs(dir);
const again: number[] = [];
for (let i = 0; i < 3; i++) again.push(await firstAnswerMs(dir));
fs.rmSync(dir, { recursive: true, force: true });
writeResults('start', 'From launching `media-index serve` to the first API answer', {
  machine: `${os.cpus()[0]?.model ?? 'cpu'} x${os.availableParallelism()}`,
  first_start_new_data_folder_ms: empty,
  restart_median_ms: again.sort((a, b) => a - b)[1],
});
