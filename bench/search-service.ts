// Search through the running service (HTTP POST /api/v1/search) at library scale: N document
// assets with lexical entries (passages of words drawn from a real book) and V dense vectors
// (synthetic, clustered, 384-d) in the vectors table, then the real server: its HNSW graph built from
// the rows on first use, the query embedded by a tiny generated encoder (the real all-MiniLM-L6-v2
// weights cannot be had here; on a CPU the real model adds a few milliseconds per query).
// Queries are one to three distinct words of the book's vocabulary. Reports p50/p95/p99 of hybrid
// and lexical-only queries, recall@10 of the dense part against an
// exact scan (the baseline, timed in the same process), build time, size on disk, cold start from
// disk to the first answer and the server's memory.
// Usage: npm run bench:search-service [-- --assets 10000 --vectors 100000 --queries 300 --keep]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../server/config.ts';
import { startServer } from '../server/server.ts';
import { openStore } from '../server/store/index.ts';
import { AuthService } from '../server/services/auth.service.ts';
import { planRuns } from '../server/indexer/plan.ts';
import { deploymentDefaults } from '../server/contract/stages.ts';
import { modelsDir } from '../server/ml/models.ts';
import { installTinyMiniLM, seededTable, writeManifest } from '../test/helpers/tiny-onnx.ts';
import { arg, writeResults } from './report.ts';
import { STOPWORDS } from '../server/search/stopwords.ts';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ASSETS = arg('assets', 10_000);
const VECTORS = arg('vectors', 100_000);
const QUERIES = arg('queries', 300);
const DIM = 384;
const VOCAB = 30522;
const MODEL = 'all-MiniLM-L6-v2';
const META = path.resolve(HERE, '../../shared/models-meta/Xenova/all-MiniLM-L6-v2');
const BOOK = path.resolve(HERE, '../../shared/corpus/docs/carroll-wonderland.pdf');

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mi-bench-search-'));
const manifestFile = path.join(dataDir, 'bench-manifest.json');
writeManifest(manifestFile, MODEL, 'embeddings', 'feature-extraction', installTinyMiniLM(modelsDir(dataDir), META, seededTable(VOCAB, DIM, 3), VOCAB, DIM));

// Words of a real book, so that BM25 sees a natural spread of common and rare words.
const { getDocument } = await import('pdfjs-dist/legacy/build/pdf.mjs');
const pdf = await getDocument({ data: new Uint8Array(fs.readFileSync(BOOK)), useSystemFonts: false }).promise;
const words: string[] = [];
for (let p = 1; p <= pdf.numPages; p++) {
  const c = await (await pdf.getPage(p)).getTextContent();
  for (const it of c.items) if ('str' in it) words.push(...(it.str.toLowerCase().match(/[a-z]{3,}/g) ?? []));
}
await pdf.destroy();
let seed = 12345;
const rand = () => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32;
const sentence = (n: number) => Array.from({ length: n }, () => words[Math.floor(rand() * words.length)]).join(' ');

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
          id,
          workspace_id: ws.id,
          kind: 'document',
          file_name: `${sentence(2).replace(' ', '-')}.pdf`,
          ext: '.pdf',
          stored_path: `assets/${id}/original.pdf`,
          linked: 0,
          mime_type: 'application/pdf',
          size_bytes: 1,
          sha256: '0'.repeat(64),
          pipeline: 'arrow',
          engine: 'arrow',
          gen1_tier: null,
          index_options: JSON.stringify(effective),
          status: 'completed',
          page_count: 1,
          duration_s: null,
          width: 595,
          height: 842,
          created_at: a,
          completed_at: a,
          deleted_at: null,
        },
        planRuns(id, 'document', effective, 1).map((r) => ({ ...r, state: 'ok' as const })),
      );
      for (let p = 0; p < 3; p++) insertEntry.run(id, 'passage', 0, 1, p, sentence(40));
      for (let k = 0; k < perAsset && made < VECTORS; k++, made++) {
        const v = unitVector(made);
        insertVector.run(id, MODEL, 0, k, `passage ${k}`, Buffer.from(v.buffer));
      }
    }
  });
}
const fillS = (performance.now() - tFill) / 1000;
filling.close();

// The server builds the graph from the rows on the first dense query, and saves it.
const config = loadConfig({ dataDir, port: 0, workers: 0, rateLimit: { max: 1_000_000, windowMs: 60_000 } });
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
// Queries of one to three words of the book's vocabulary (each distinct word equally likely, as
// people search for what is specific); a passage's words are drawn as often as the book uses them.
const vocabulary = [...new Set(words)].filter((w) => !STOPWORDS.has(w));
const queries = Array.from({ length: QUERIES }, () =>
  Array.from({ length: 1 + Math.floor(rand() * 3) }, () => vocabulary[Math.floor(rand() * vocabulary.length)]).join(' '),
);
const measure = async (url: string) => {
  for (const q of queries.slice(0, 20)) await ask(url, q); // warm-up
  const times: number[] = [];
  for (const q of queries) times.push((await ask(url, q)).ms);
  return times;
};

// The lexical path alone first (the sentence encoder not installed yet).
let server = await startServer(config, { log: () => {} });
const lexical = await measure(server.url);
await server.close();

// Then with the encoder: the server builds the graph from the rows on the first dense query and
// saves it on close.
process.env.MEDIA_INDEX_MODEL_MANIFEST = manifestFile;
server = await startServer(config, { log: () => {} });
const tBuild = performance.now();
const first = await ask(server.url, 'rabbit');
const buildS = (performance.now() - tBuild) / 1000;
await server.close();
const graphFile = path.join(dataDir, 'vectors', `${MODEL}.hnsw`);
const sizeMiB = fs.statSync(graphFile).size / 1024 / 1024;

// Cold start: a fresh server, from start to the first hybrid answer (graph read from disk).
const tCold = performance.now();
server = await startServer(config, { log: () => {} });
const startMs = performance.now() - tCold;
await ask(server.url, 'alice');
const coldMs = performance.now() - tCold;
const hybrid = await measure(server.url);
const rss = process.memoryUsage().rss; // the server runs in this process
await server.close();

// Recall@10 of the graph the service built against an exact scan of every vector (the baseline),
// same process. The query vectors are drawn like the library's (the tiny encoder's vectors of book
// words are unrelated to the synthetic clusters, which would measure ties, not the graph).
const store = openStore(dataDir);
const qvecs = Array.from({ length: 50 }, (_, i) => unitVector(VECTORS + 1000 + i));
const tAnn = performance.now();
const annIds = qvecs.map((q) => store.vectorIndex.nearest(MODEL, q, 10).map((n) => n.id));
const annMs = (performance.now() - tAnn) / qvecs.length;
const rows = [...store.vectors.after(MODEL, 0, 20_000)].flat();
const tScan = performance.now();
const exactIds = qvecs.map((q) => {
  const scored = rows.map((r) => {
    let s = 0;
    for (let j = 0; j < DIM; j++) s += q[j] * r.vector[j];
    return [s, r.id] as const;
  });
  scored.sort((a, b) => b[0] - a[0]);
  return scored.slice(0, 10).map((x) => x[1]);
});
const scanMs = (performance.now() - tScan) / qvecs.length;
const recall = exactIds.reduce((n, ex, i) => n + ex.filter((id) => annIds[i].includes(id)).length, 0) / (exactIds.length * 10);
store.close();
if (process.argv.includes('--keep')) console.log(`data folder kept: ${dataDir}`);
else fs.rmSync(dataDir, { recursive: true, force: true });

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s[Math.floor(p * (s.length - 1))] * 100) / 100;
};
writeResults(`search-service-${ASSETS}`, `Search through POST /api/v1/search, ${ASSETS} assets, ${VECTORS} vectors`, {
  machine: `${os.cpus()[0]?.model ?? 'cpu'} x${os.availableParallelism()}`,
  assets: ASSETS,
  vectors: VECTORS,
  lexical_entries: ASSETS * 3,
  fill_s: Math.round(fillS * 10) / 10,
  recipe: first.recipe,
  graph_build_s_first_query: Math.round(buildS * 10) / 10,
  graph_on_disk_mib: Math.round(sizeMiB),
  server_start_ms: Math.round(startMs),
  cold_start_to_first_answer_ms: Math.round(coldMs),
  hybrid_p50_ms: pct(hybrid, 0.5),
  hybrid_p95_ms: pct(hybrid, 0.95),
  hybrid_p99_ms: pct(hybrid, 0.99),
  lexical_only_p50_ms: pct(lexical, 0.5),
  lexical_only_p95_ms: pct(lexical, 0.95),
  lexical_only_p99_ms: pct(lexical, 0.99),
  dense_recall_at_10: Math.round(recall * 1000) / 1000,
  dense_graph_ms_per_query: Math.round(annMs * 100) / 100,
  exact_scan_ms_per_query: Math.round(scanMs * 10) / 10,
  server_rss_mib_serving: Math.round(rss / 1024 / 1024),
});
process.exit(0);
