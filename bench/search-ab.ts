// Search latency of two checkouts of the app on one library, interleaved in one run: this one and a
// base revision (bench/base-checkout.ts). The library is a data folder kept by
// `npm run bench -- search-service --keep` (its vector index already built). Each run starts the
// service of one side on it (`media-index serve`, default indexer processes, the real encoder the
// folder holds), asks 20 queries not timed, then times 300 queries through POST /api/v1/search —
// one to three words of the benchmark's prose, each distinct word equally likely, the same queries
// for both sides; the sides alternate (A B B A …) so drift of the machine falls on both. Reports the
// median and range over runs of each side's p50 and p99, and the ratio of the p50 medians; and the
// time from launching each side's service to its first answer (a cold start, the index on disk).
// Usage: npm run bench -- search-ab --data <kept folder> --base <git revision> [--runs 3]
import os from 'node:os';
import { openStore } from '../server/store/index.ts';
import { AuthService } from '../server/services/auth.service.ts';
import { STOPWORDS } from '../server/search/stopwords.ts';
import { baseArg, shortRev, withBase } from './base-checkout.ts';
import { arg, percentile, spread, writeResults } from './report.ts';
import { serve } from './serve.ts';
import { realTexts } from './texts.ts';

const at = process.argv.indexOf('--data');
if (at < 0) throw new Error('--data <folder kept by bench:search-service --keep> is needed');
const dataDir = process.argv[at + 1];
const runs = arg('runs', 3);
const QUERIES = 300;

const store = openStore(dataDir);
const ids = store.assets.allIds();
const workspace = store.assets.byId([...ids][0] ?? '')?.workspace_id;
const wsName = store.workspaces.list().find((w) => w.id === workspace)?.name;
if (!wsName) throw new Error(`${dataDir} holds no library`);
const key = new AuthService(store).createKey({ workspace: wsName, scopes: ['read'] }).key;
const assets = ids.size;
store.close();

let seed = 4242;
const rand = () => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32;
const vocabulary = [...new Set((await realTexts()).flatMap((t) => t.words))].filter((w) => !STOPWORDS.has(w));
const queries = Array.from({ length: QUERIES + 20 }, () =>
  Array.from({ length: 1 + Math.floor(rand() * 3) }, () => vocabulary[Math.floor(rand() * vocabulary.length)]).join(' '),
);
const env = { MEDIA_INDEX_MODELS: '', MEDIA_INDEX_MODEL_MANIFEST: '' };

async function latencies(bin: string): Promise<{ cold: number; p50: number; p99: number; recipe: string }> {
  const s = await serve(dataDir, { bin, env });
  let cold = 0;
  try {
    const ms: number[] = [];
    let recipe = '';
    for (const [i, query] of queries.entries()) {
      const t = performance.now();
      const r = await fetch(`${s.url}/api/v1/search`, {
        method: 'POST',
        headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
        body: JSON.stringify({ query, limit: 10 }),
      });
      const body = (await r.json()) as { data: { recipe: string } };
      if (r.status !== 200) throw new Error(`search answered ${r.status}: ${JSON.stringify(body)}`);
      if (i === 0) cold = performance.now() - s.launchedAt;
      if (i >= 20) ms.push(performance.now() - t);
      recipe = body.data.recipe;
    }
    return { cold, p50: percentile(ms, 0.5), p99: percentile(ms, 0.99), recipe };
  } finally {
    await s.stop();
  }
}

const rev = shortRev(baseArg());
const head = shortRev('HEAD');
const got = {
  base: { cold: [] as number[], p50: [] as number[], p99: [] as number[] },
  head: { cold: [] as number[], p50: [] as number[], p99: [] as number[] },
};
await withBase(rev, async (sides) => {
  for (let i = 0; i < runs; i++) {
    const order: Array<'base' | 'head'> = i % 2 === 0 ? ['base', 'head'] : ['head', 'base'];
    for (const side of order) {
      const r = await latencies(sides[side]);
      if (!r.recipe.includes('dense')) throw new Error(`${side} answered without the vector index: ${r.recipe}`);
      got[side].cold.push(r.cold);
      got[side].p50.push(r.p50);
      got[side].p99.push(r.p99);
      console.log(
        `run ${i + 1} ${side}: first answer ${Math.round(r.cold)} ms after launch, p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms (${r.recipe})`,
      );
    }
  }
});
const [b50, h50, b99, h99] = [spread(got.base.p50), spread(got.head.p50), spread(got.base.p99), spread(got.head.p99)];
const [bCold, hCold] = [spread(got.base.cold, 0), spread(got.head.cold, 0)];
writeResults('ab-search', `Hybrid search latency, ${assets} assets (folder of bench:search-service), ${QUERIES} queries, ${runs} interleaved runs a side`, {
  machine: `${os.cpus()[0]?.model ?? 'cpu'} x${os.availableParallelism()}`,
  base: rev,
  head,
  base_p50_ms_median: b50.median,
  base_p50_range: b50.range,
  head_p50_ms_median: h50.median,
  head_p50_range: h50.range,
  base_p99_ms_median: b99.median,
  base_p99_range: b99.range,
  head_p99_ms_median: h99.median,
  head_p99_range: h99.range,
  base_cold_start_ms_median: bCold.median,
  base_cold_start_range: bCold.range,
  head_cold_start_ms_median: hCold.median,
  head_cold_start_range: hCold.range,
  head_over_base_p50: Math.round((h50.median / b50.median) * 1000) / 1000,
});
process.exit(0);
