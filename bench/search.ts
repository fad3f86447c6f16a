// Vector search at scale with the HNSW index the dense search uses (hnswlib-node): build time,
// query latency p50/p95/p99, recall@10 against an exact scan, size on disk, load time from disk
// (cold start) and memory. Synthetic unit vectors in clusters (like embeddings of a library).
// Usage: npm run bench:search [-- --vectors 1000000 --dim 384]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import hnswlib from 'hnswlib-node';
import { seededTable } from '../test/helpers/tiny-onnx.ts';
import { arg } from './report.ts';
import { writeResults } from './report.ts';

const { HierarchicalNSW } = hnswlib;
const N = arg('vectors', 100_000);
const DIM = arg('dim', 384);
const M = arg('M', 16);
const EF_CONSTRUCTION = arg('efConstruction', 100);
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
const index = new HierarchicalNSW('ip', DIM);
index.initIndex(N, M, EF_CONSTRUCTION, 100);
const t1 = performance.now();
const row = (a: Float32Array, i: number) => Array.from(a.subarray(i * DIM, (i + 1) * DIM));
for (let i = 0; i < N; i++) index.addPoint(row(data, i), i);
const buildS = (performance.now() - t1) / 1000;
const indexMiB = (process.memoryUsage().rss - rss0) / 1024 / 1024;

// Exact top 10 by scanning everything (the baseline).
const exact: number[][] = [];
const tScan = performance.now();
for (let q = 0; q < QUERIES; q++) {
  const scores: Array<[number, number]> = [];
  for (let i = 0; i < N; i++) {
    let s = 0;
    for (let j = 0; j < DIM; j++) s += queries[q * DIM + j] * data[i * DIM + j];
    scores.push([s, i]);
  }
  scores.sort((a, b) => b[0] - a[0]);
  exact.push(scores.slice(0, 10).map((x) => x[1]));
}
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
for (const ef of [32, 64, 128]) {
  index.setEf(ef);
  const times: number[] = [];
  let hit = 0;
  for (let q = 0; q < QUERIES; q++) {
    const t = performance.now();
    const r = index.searchKnn(row(queries, q), 10);
    times.push(performance.now() - t);
    hit += r.neighbors.filter((n) => exact[q].includes(n)).length;
  }
  times.sort((a, b) => a - b);
  const p = (x: number) => Math.round(times[Math.floor(x * (times.length - 1))] * 100) / 100;
  results[`ef${ef}_p50_ms`] = p(0.5);
  results[`ef${ef}_p95_ms`] = p(0.95);
  results[`ef${ef}_p99_ms`] = p(0.99);
  results[`ef${ef}_recall_at_10`] = Math.round((hit / (QUERIES * 10)) * 1000) / 1000;
}
const file = path.join(os.tmpdir(), `mi-bench-hnsw-${process.pid}.bin`);
index.writeIndexSync(file);
results.size_on_disk_mib = Math.round(fs.statSync(file).size / 1024 / 1024);
const tLoad = performance.now();
const cold = new HierarchicalNSW('ip', DIM);
cold.readIndexSync(file);
cold.setEf(64);
cold.searchKnn(row(queries, 0), 10);
results.cold_start_to_first_answer_ms = Math.round(performance.now() - tLoad);
fs.rmSync(file, { force: true });

writeResults(`search-${N}`, `HNSW vector index alone, ${N} synthetic ${DIM}-d vectors`, results);
