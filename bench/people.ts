// Re-cluster time for synthetic face embeddings (1024-d) at 10k (and more with --n), through the
// real service: store, worker thread, plan, apply. Usage: npm run bench -- people [-- --n 10000]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openStore } from '../server/store/index.ts';
import { PeopleService } from '../server/services/people.service.ts';
import { insertSyntheticFaces } from '../test/helpers/synthetic-faces.ts';
import { spread, writeResults } from './report.ts';

const arg = process.argv.indexOf('--n');
const sizes = arg > 0 ? [Number(process.argv[arg + 1])] : [10_000];
const results: Record<string, number | string> = { machine: `${os.cpus()[0]?.model ?? 'cpu'} x${os.availableParallelism()}` };
/** Three re-clusters of the same faces, each on a new data folder: the median and range. */
for (const n of sizes) {
  const ms: number[] = [];
  for (let i = 0; i < 3; i++) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mi-bench-people-'));
    const store = openStore(dir);
    insertSyntheticFaces(store, 'bench', n, Math.round(n / 50));
    const ws = store.workspaces.byName('bench')!.id;
    const people = new PeopleService(store);
    const t0 = performance.now();
    await people.recluster(ws, false);
    await people.settled(ws);
    ms.push(Math.round(performance.now() - t0));
    results[`people_found_${n}_faces`] = people.list(ws, true).total;
    store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const t = spread(ms, 0);
  results[`recluster_ms_${n}_faces`] = t.median;
  results[`recluster_ms_${n}_faces_range`] = t.range;
  results[`people_expected_${n}_faces`] = Math.round(n / 50);
}
writeResults(sizes.length === 1 && sizes[0] !== 10_000 ? `people-${sizes[0]}` : 'people', 'Re-cluster of synthetic 1024-d faces in a worker thread', results);
