// Search through the running service (HTTP POST /api/v1/search) at library scale: N document
// assets with lexical entries (40-word passages taken from real prose: bench/texts.ts) and V dense
// vectors (synthetic, clustered, 384-d) in the vectors table, then `media-index serve` as a user
// starts it (its own process, default indexer processes), the query embedded by the real
// all-MiniLM-L6-v2 (fetched as `npm run test:real-models` does; `--stand-in` uses a tiny generated
// encoder, which is no measure of latency). Reports: the index built by the service from the rows on
// the first dense query (both cores); cold start from launching the process to the first
// authenticated hybrid answer (median of 3 starts); p50/p95/p99 of hybrid queries after each start
// (one to three distinct words of the prose's vocabulary; medians of the 3 runs, with the runs);
// the server's resident memory while serving (and its indexer processes'); recall@10 of the dense
// part as the service asks it (200 candidates scored again from the rows) against an exact scan
// (the baseline) in the same run.
// Usage: npm run bench -- search-service [-- --assets 10000 --vectors 100000 --queries 300 --keep --stand-in]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execFileSync } from 'node:child_process';
import { openStore } from '../server/store/index.ts';
import { AuthService } from '../server/services/auth.service.ts';
import { planRuns } from '../server/indexer/plan.ts';
import { newAssetRow } from '../server/indexer/admission.ts';
import { deploymentDefaults } from '../server/contract/stages.ts';
import { modelsDir } from '../server/ml/models.ts';
import { installTinyMiniLM, seededTable, writeManifest } from '../test/helpers/tiny-onnx.ts';
import { arg, percentile, writeResults } from './report.ts';
import { STOPWORDS } from '../server/search/stopwords.ts';
import { fetchMiniLM } from '../scripts/real-models.ts';
import { proseSampler, realTexts } from './texts.ts';
import { childrenOf, procBytes, serve } from './serve.ts';
import { exactSearch, MetricKind, type BatchMatches } from 'usearch';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ASSETS = arg('assets', 10_000);
const VECTORS = arg('vectors', 100_000);
const QUERIES = arg('queries', 300);
const DIM = 384;
const VOCAB = 30522;
const MODEL = 'all-MiniLM-L6-v2';
const META = path.resolve(HERE, '../../shared/models-meta/Xenova/all-MiniLM-L6-v2');
const CLI = path.resolve(HERE, '../bin/media-index.js');
const STAND_IN = process.argv.includes('--stand-in');

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mi-bench-search-'));
const env: NodeJS.ProcessEnv = { ...process.env, MEDIA_INDEX_RATE_LIMIT: '100000000', MEDIA_INDEX_MODELS: '', MEDIA_INDEX_MODEL_MANIFEST: '' };
if (STAND_IN) {
  const manifestFile = path.join(dataDir, 'bench-manifest.json');
  writeManifest(manifestFile, MODEL, 'embeddings', 'feature-extraction', installTinyMiniLM(modelsDir(dataDir), META, seededTable(VOCAB, DIM, 3), VOCAB, DIM));
  env.MEDIA_INDEX_MODEL_MANIFEST = manifestFile;
} else {
  execFileSync(process.execPath, [CLI, 'models', 'import', MODEL, '--from', await fetchMiniLM(), '--data', dataDir], { env, stdio: 'ignore' });
}

// Passages of real prose: 40 consecutive words from a random place in the sources.
const sources = await realTexts();
const words = sources.flatMap((t) => t.words);
const { rand, sentence } = proseSampler(words, 12345);

// Clustered unit vectors, as embeddings of a library are.
const clusters = Math.max(10, Math.round(VECTORS / 100));
const centres = seededTable(clusters, DIM, 5);
function unitVector(i: number): Float32Array {
  const noise = seededTable(1, DIM, 11 + i);
  const c = (i * 7919) % clusters;
  const v = new Float32Array(DIM);
  let norm = 0;
  for (let j = 0; j < DIM; j++) {
    v[j] = centres[c * DIM + j] + 0.6 * noise[j];
    norm += v[j] * v[j];
  }
  norm = Math.sqrt(norm);
  for (let j = 0; j < DIM; j++) v[j] /= norm;
  return v;
}

console.log(`building ${ASSETS} assets, ${VECTORS} vectors in ${dataDir}`);
const tFill = performance.now();
const filling = openStore(dataDir);
const ws = filling.workspaces.ensure('bench').row;
const key = new AuthService(filling).createKey({ workspace: 'bench', scopes: ['read'] }).key;
const effective = deploymentDefaults();
const perAsset = Math.ceil(VECTORS / ASSETS);
const insertEntry = filling.db.prepare(
  `INSERT INTO search_entries (asset_id, stage, modality, timestamp, page, ref, region_id, text) VALUES (?, 'extract', ?, ?, ?, ?, NULL, ?)`,
);
// The full-text index is written beside each entry, as the service's SearchRepo does (migration 0030).
const insertFts = filling.db.prepare('INSERT INTO search_fts(rowid, text) VALUES (?, ?)');
const insertVector = filling.db.prepare(
  `INSERT INTO vectors (asset_id, model, modality, timestamp, page, ref, region_id, text, vector) VALUES (?, ?, 'passage', ?, 1, ?, NULL, ?, ?)`,
);
let made = 0;
for (let start = 0; start < ASSETS; start += 1000) {
  filling.transaction(() => {
    for (let a = start; a < Math.min(ASSETS, start + 1000); a++) {
      const id = `vid_bench${String(a).padStart(12, '0')}`;
      filling.assets.insertWithRuns(
        {
          ...newAssetRow(
            id,
            ws.id,
            {
              path: `assets/${id}/original.pdf`,
              fileName: `${sentence(2).replace(' ', '-')}.pdf`,
              ext: '.pdf',
              kind: 'document',
              sizeBytes: 1,
              sha256: '0'.repeat(64),
              mime: 'application/pdf',
              linked: false,
            },
            effective,
            a,
          ),
          status: 'completed',
          page_count: 1,
          width: 595,
          height: 842,
          completed_at: a,
        },
        // Every stage done, the embeddings with the encoder (so that the service, which runs a
        // stage again when a model it uses arrived since, finds nothing to do: an idle library).
        planRuns(id, 'document', effective, 1).map((r) => ({
          ...r,
          state: 'ok' as const,
          ...(r.stage === 'embeddings' ? { details: JSON.stringify({ models: [MODEL] }) } : {}),
        })),
      );
      for (let p = 0; p < 3; p++) {
        const text = sentence(40);
        insertFts.run(insertEntry.run(id, 'passage', 0, 1, p, text).lastInsertRowid, text);
      }
      for (let k = 0; k < perAsset && made < VECTORS; k++, made++) {
        const v = unitVector(made);
        insertVector.run(id, MODEL, 0, k, `passage ${k}`, Buffer.from(v.buffer));
      }
    }
  });
}
const fillS = (performance.now() - tFill) / 1000;
filling.close();

const ask = async (url: string, query: string, limit = 10) => {
  const t = performance.now();
  const r = await fetch(`${url}/api/v1/search`, {
    method: 'POST',
    headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
    body: JSON.stringify({ query, limit }),
  });
  const body = (await r.json()) as { data: { hits: unknown[]; recipe: string } };
  if (r.status !== 200) throw new Error(`search answered ${r.status}: ${JSON.stringify(body)}`);
  return { ms: performance.now() - t, recipe: body.data.recipe, hits: body.data.hits.length };
};
// Queries of one to three words of the prose's vocabulary (each distinct word equally likely, as
// people search for what is specific); a passage's words come as often as the prose uses them.
const vocabulary = [...new Set(words)].filter((w) => !STOPWORDS.has(w));
const queries = Array.from({ length: QUERIES }, () =>
  Array.from({ length: 1 + Math.floor(rand() * 3) }, () => vocabulary[Math.floor(rand() * vocabulary.length)]).join(' '),
);

// The first dense query has the service build the index from the rows (in a worker thread, with
// every core; it answers from its other evidence meanwhile): timed until the index is written.
let server = await serve(dataDir, { env });
const tBuild = performance.now();
await ask(server.url, 'rabbit');
const metaFile = path.join(dataDir, 'vectors', `${MODEL}.usearch.json`);
while (!fs.existsSync(metaFile)) await new Promise((r) => setTimeout(r, 200));
const buildS = (performance.now() - tBuild) / 1000;
const first = await ask(server.url, 'rabbit');
if (!first.recipe.includes('dense')) throw new Error(`no dense evidence once the index was built: ${first.recipe}`);
await server.stop();
const indexFile = path.join(dataDir, 'vectors', `${MODEL}.usearch`);
const sizeMiB = fs.statSync(indexFile).size / 1024 / 1024;

const pct = (xs: number[], p: number) => Math.round(percentile(xs, p) * 100) / 100;

// Three runs, each a start: from launching the process to the first authenticated hybrid answer
// (index mapped from disk), then 20 queries not timed and the measured queries.
const cold: number[] = [];
const latency = { p50: [] as number[], p95: [] as number[], p99: [] as number[] };
for (let i = 0; i < 3; i++) {
  if (i > 0) await server.stop();
  server = await serve(dataDir, { env });
  const answer = await ask(server.url, 'alice');
  cold.push(performance.now() - server.launchedAt);
  if (!answer.recipe.includes('dense')) throw new Error(`the first answer after a start was not hybrid: ${answer.recipe}`);
  for (const q of queries.slice(0, 20)) await ask(server.url, q); // warm-up
  const hybrid: number[] = [];
  for (const q of queries) hybrid.push((await ask(server.url, q)).ms);
  latency.p50.push(pct(hybrid, 0.5));
  latency.p95.push(pct(hybrid, 0.95));
  latency.p99.push(pct(hybrid, 0.99));
}
const serverRss = procBytes(server.pid, 'VmRSS');
const serverPeak = procBytes(server.pid, 'VmHWM');
const indexers = childrenOf(server.pid).reduce((n, pid) => n + procBytes(pid, 'VmRSS'), 0);
await server.stop();

// Recall@10 of the graph the service built against an exact scan of every vector (the baseline),
// same process. The query vectors are drawn like the library's (the tiny encoder's vectors of book
// words are unrelated to the synthetic clusters, which would measure ties, not the graph).
const store = openStore(dataDir);
const qvecs = Array.from({ length: 50 }, (_, i) => unitVector(VECTORS + 1000 + i));
const rows = [...store.vectors.after(MODEL, 0, 20_000)].flat();
const byId = new Map(rows.map((r) => [r.id, r.vector]));
const dot = (a: Float32Array, b: Float32Array) => a.reduce((n, x, j) => n + x * b[j], 0);
store.vectorIndex.nearest(MODEL, qvecs[0], 1); // opened before timing
const tAnn = performance.now();
const annIds = qvecs.map((q) =>
  store.vectorIndex
    .nearest(MODEL, q, 200)
    .map((n) => [dot(q, byId.get(n.id) as Float32Array), n.id] as const)
    .sort((a, b) => b[0] - a[0])
    .slice(0, 10)
    .map((x) => x[1]),
);
const annMs = (performance.now() - tAnn) / qvecs.length;
// The baseline: every float32 vector scanned (usearch's brute-force scan, every core).
const all = new Float32Array(rows.length * DIM);
rows.forEach((r, i) => all.set(r.vector, i * DIM));
const queryMatrix = new Float32Array(qvecs.length * DIM);
qvecs.forEach((q, i) => queryMatrix.set(q, i * DIM));
const tScan = performance.now();
const scanned = exactSearch(all, queryMatrix, DIM, 10, MetricKind.Cos, os.availableParallelism()) as BatchMatches;
const exactIds = qvecs.map((_, i) => Array.from(scanned.get(i).keys, (offset) => rows[Number(offset)].id));
const scanMs = (performance.now() - tScan) / qvecs.length;
const recall = exactIds.reduce((n, ex, i) => n + ex.filter((id) => annIds[i].includes(id)).length, 0) / (exactIds.length * 10);
store.close();
if (process.argv.includes('--keep')) console.log(`data folder kept: ${dataDir}`);
else fs.rmSync(dataDir, { recursive: true, force: true });

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const runsOf = (xs: number[]) => xs.map((x) => Math.round(x * 10) / 10).join(', ');
writeResults(`search-service-${ASSETS}`, `Search through POST /api/v1/search, ${ASSETS} assets, ${VECTORS} vectors`, {
  machine: `${os.cpus()[0]?.model ?? 'cpu'} x${os.availableParallelism()}`,
  assets: ASSETS,
  vectors: VECTORS,
  lexical_entries: ASSETS * 3,
  prose: sources.map((t) => `${t.name} (${t.words.length} words)`).join(', '),
  vocabulary: vocabulary.length,
  query_encoder: STAND_IN ? 'tiny generated stand-in (no measure of latency)' : 'all-MiniLM-L6-v2 int8 (real)',
  fill_s: Math.round(fillS * 10) / 10,
  recipe: first.recipe,
  index_build_s_first_query: Math.round(buildS * 10) / 10,
  index_on_disk_mib: Math.round(sizeMiB),
  cold_start_to_first_hybrid_answer_ms_median: Math.round(median(cold)),
  cold_start_ms_runs: cold.map((x) => Math.round(x)).join(', '),
  hybrid_p50_ms: median(latency.p50),
  hybrid_p50_ms_runs: runsOf(latency.p50),
  hybrid_p95_ms: median(latency.p95),
  hybrid_p99_ms: median(latency.p99),
  hybrid_p99_ms_runs: runsOf(latency.p99),
  dense_recall_at_10: Math.round(recall * 1000) / 1000,
  dense_index_ms_per_query: Math.round(annMs * 100) / 100,
  exact_scan_ms_per_query: Math.round(scanMs * 10) / 10,
  server_rss_mib_serving: Math.round(serverRss / 1024 / 1024),
  server_peak_rss_mib: Math.round(serverPeak / 1024 / 1024),
  indexer_processes_rss_mib: Math.round(indexers / 1024 / 1024),
});
process.exit(0);
