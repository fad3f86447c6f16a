// Vector search at scale with the index the dense search uses (usearch HNSW over int8 vectors,
// cosine), asked as the service asks (k candidates scored again exactly, the best 10 kept): build
// time with every core, query latency p50/p95/p99 and recall@10 against an exact scan (the
// baseline) for k 10/50/200, size on disk, cold start from the mapped file and memory. Synthetic
// unit vectors in clusters (like embeddings of a library).
// Usage: npm run bench -- search [-- --vectors 1000000 --dim 384]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { exactSearch, Index, MetricKind, ScalarKind, type BatchMatches } from 'usearch';
import { seededTable } from '../test/helpers/tiny-onnx.ts';
import { arg } from './report.ts';
import { writeResults } from './report.ts';

const N = arg('vectors', 100_000);
const DIM = arg('dim', 384);
const M = arg('M', 16);
const EF_CONSTRUCTION = arg('efConstruction', 96);
const QUERIES = 200;

function unitRows(n: number, seed: number, centres: Float32Array, k: number): Float32Array {
  const noise = seededTable(n, DIM, seed);
  const out = new Float32Array(n * DIM);
  for (let i = 0; i < n; i++) {
    const c = (i * 7919) % k;
    let norm = 0;
    for (let j = 0; j < DIM; j++) {
      const v = centres[c * DIM + j] + 0.6 * noise[i * DIM + j];
      out[i * DIM + j] = v;
      norm += v * v;
    }
    norm = Math.sqrt(norm);
    for (let j = 0; j < DIM; j++) out[i * DIM + j] /= norm;
  }
  return out;
}

const clusters = Math.max(10, Math.round(N / 100));
const centres = seededTable(clusters, DIM, 5);
const t0 = performance.now();
const data = unitRows(N, 11, centres, clusters);
const queries = unitRows(QUERIES, 999, centres, clusters);
const genS = (performance.now() - t0) / 1000;

const rss0 = process.memoryUsage().rss;
const newIndex = () =>
  new Index({
    dimensions: DIM,
    metric: MetricKind.Cos,
    quantization: ScalarKind.I8,
    connectivity: M,
    expansion_add: EF_CONSTRUCTION,
    expansion_search: 128,
    multi: false,
  });
const index = newIndex();
const t1 = performance.now();
const keys = BigUint64Array.from({ length: N }, (_, i) => BigInt(i));
// In batches, as the service adds them, with every core.
for (let i = 0; i < N; i += 20_000)
  index.add(keys.subarray(i, Math.min(N, i + 20_000)), data.subarray(i * DIM, Math.min(N, i + 20_000) * DIM), os.availableParallelism());
const buildS = (performance.now() - t1) / 1000;
const indexMiB = (process.memoryUsage().rss - rss0) / 1024 / 1024;

// Exact top 10 by scanning every float32 vector (the baseline): usearch's brute-force scan, every core.
const tScan = performance.now();
const scanned = exactSearch(data, queries, DIM, 10, MetricKind.Cos, os.availableParallelism()) as BatchMatches;
const exact: number[][] = Array.from({ length: QUERIES }, (_, q) => Array.from(scanned.get(q).keys, Number));
const scanMs = (performance.now() - tScan) / QUERIES;

const results: Record<string, number | string> = {
  machine: `${os.cpus()[0]?.model ?? 'cpu'} x${os.availableParallelism()}`,
  vectors: N,
  dim: DIM,
  M,
  efConstruction: EF_CONSTRUCTION,
  generate_s: Math.round(genS * 10) / 10,
  build_s: Math.round(buildS * 10) / 10,
  index_memory_mib: Math.round(indexMiB),
  exact_scan_ms_per_query: Math.round(scanMs * 10) / 10,
};
// As the service asks: `candidates` nearest from the index, scored again exactly (the rows), the best 10 kept.
const ask = (ix: Index, q: number, candidates: number) => {
  const query = queries.subarray(q * DIM, (q + 1) * DIM);
  const r = ix.search(query, candidates, 1);
  return Array.from(r.keys, (k) => {
    const i = Number(k);
    let s = 0;
    for (let j = 0; j < DIM; j++) s += query[j] * data[i * DIM + j];
    return [s, i] as const;
  })
    .sort((a, b) => b[0] - a[0])
    .slice(0, 10)
    .map((x) => x[1]);
};
for (const candidates of [10, 50, 200]) {
  const times: number[] = [];
  let hit = 0;
  for (let q = 0; q < QUERIES; q++) {
    const t = performance.now();
    const found = ask(index, q, candidates);
    times.push(performance.now() - t);
    hit += found.filter((n) => exact[q].includes(n)).length;
  }
  times.sort((a, b) => a - b);
  const p = (x: number) => Math.round(times[Math.floor(x * (times.length - 1))] * 100) / 100;
  results[`k${candidates}_p50_ms`] = p(0.5);
  results[`k${candidates}_p95_ms`] = p(0.95);
  results[`k${candidates}_p99_ms`] = p(0.99);
  results[`k${candidates}_recall_at_10`] = Math.round((hit / (QUERIES * 10)) * 1000) / 1000;
}
const file = path.join(os.tmpdir(), `mi-bench-usearch-${process.pid}.bin`);
index.save(file);
results.size_on_disk_mib = Math.round(fs.statSync(file).size / 1024 / 1024);
// Cold start: the file mapped from disk (as the service serves it), then one answer.
const tLoad = performance.now();
const cold = newIndex();
cold.view(file);
ask(cold, 0, 200);
results.cold_start_to_first_answer_ms = Math.round(performance.now() - tLoad);
fs.rmSync(file, { force: true });

writeResults(`search-${N}`, `Vector index alone (usearch, int8), ${N} synthetic ${DIM}-d vectors`, results);
