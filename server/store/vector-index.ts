// The vector index of each embedding model, on disk under <data>/vectors: a usearch HNSW graph
// over int8-quantized vectors (cosine), a quarter of the memory of float32. The rows of the vectors
// table stay the truth: the index only proposes candidates, whose similarity the caller computes
// again from the rows. The file is mapped from disk (`view`) while it is only searched, and read
// into memory at the first change. On open it is brought up to date from the rows (rows added
// after the last save are added; if rows were removed since, it is rebuilt from them), so a crash
// between a write and a save loses nothing. Changes are saved a moment after they happen and on close.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Index, MetricKind, ScalarKind } from 'usearch';
import type { StoredVector, VectorsRepo } from './vectors.repo.ts';

/**
 * Chosen from `npm run bench:search` (docs/performance.md): with the candidates scored again from
 * the rows, recall@10 ≥ 0.97 at 1M vectors.
 */
export const INDEX_PARAMS = { connectivity: 16, expansionAdd: 128, expansionSearch: 128, quantization: 'i8' } as const;
const SAVE_DELAY_MS = 2000;
/** Format of the files: a file of another format is rebuilt from the rows. */
const FORMAT = 'usearch-i8-cos-1';

interface Meta {
  format: string;
  dim: number;
  /** Every row with an id up to this one is in the saved index. */
  last_id: number;
  /** Vectors in the saved index, and the size of its file (a file that is not the one saved is rebuilt). */
  count: number;
  bytes: number;
}

interface Loaded {
  index: Index;
  meta: Meta;
  /** Mapped from the file, read-only: read into memory before the first change. */
  viewed: boolean;
  dirty: boolean;
}

const threads = Math.max(1, os.availableParallelism());

export class VectorIndex {
  private readonly loaded = new Map<string, Loaded>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly dir: string,
    private readonly rows: VectorsRepo,
  ) {}

  private files(model: string) {
    const base = path.join(this.dir, model.replace(/[^A-Za-z0-9._-]/g, '_'));
    return { index: `${base}.usearch`, meta: `${base}.usearch.json`, legacy: [`${base}.hnsw`, `${base}.meta.json`] };
  }

  private create(dim: number): Index {
    return new Index({
      dimensions: dim,
      metric: MetricKind.Cos,
      quantization: ScalarKind.I8,
      connectivity: INDEX_PARAMS.connectivity,
      expansion_add: INDEX_PARAMS.expansionAdd,
      expansion_search: INDEX_PARAMS.expansionSearch,
      multi: false,
    });
  }

  /** The saved index if its files are whole and of this format; null otherwise. */
  private read(model: string): Loaded | null {
    const f = this.files(model);
    try {
      const meta = JSON.parse(fs.readFileSync(f.meta, 'utf8')) as Meta;
      if (meta.format !== FORMAT || fs.statSync(f.index).size !== meta.bytes) return null;
      const index = this.create(meta.dim);
      index.view(f.index);
      if (index.size() !== meta.count || index.dimensions() !== meta.dim) return null;
      return { index, meta, viewed: true, dirty: false };
    } catch {
      return null; // missing or unreadable: rebuilt from the rows
    }
  }

  /** The model's index, read from disk and reconciled with the rows; null while the model has no vectors. */
  private open(model: string, dimHint?: number): Loaded | null {
    const have = this.loaded.get(model);
    if (have) return have;
    let l = this.read(model);
    // Rows were removed since the last save (the index holds more than the rows up to its last id):
    // the index cannot list its keys, so it is built again.
    if (l && this.rows.countUpTo(model, l.meta.last_id) !== l.index.size()) l = null;
    if (!l) {
      const first = this.rows.after(model, 0, 1).next().value;
      const dim = first?.[0]?.vector.length ?? dimHint;
      if (!dim) return null;
      for (const old of this.files(model).legacy) fs.rmSync(old, { force: true });
      l = { index: this.create(dim), meta: { format: FORMAT, dim, last_id: 0, count: 0, bytes: 0 }, viewed: false, dirty: true };
    }
    this.loaded.set(model, l);
    for (const batch of this.rows.after(model, l.meta.last_id, 20_000)) this.insert(l, batch);
    if (l.dirty) this.scheduleSave();
    return l;
  }

  /** A mapped index read into memory, so that it can change. */
  private writable(model: string, l: Loaded): void {
    if (!l.viewed) return;
    const index = this.create(l.meta.dim);
    index.load(this.files(model).index);
    l.index = index;
    l.viewed = false;
  }

  private insert(l: Loaded, batch: StoredVector[]): void {
    const fit = batch.filter((v) => v.vector.length === l.meta.dim && !l.index.contains(BigInt(v.id))); // a model swapped for one of another width: its rows wait for a re-index
    if (fit.length) {
      const vectors = new Float32Array(fit.length * l.meta.dim);
      fit.forEach((v, i) => vectors.set(v.vector, i * l.meta.dim));
      l.index.add(BigUint64Array.from(fit, (v) => BigInt(v.id)), vectors, fit.length > 256 ? threads : 1);
    }
    for (const v of batch) if (v.id > l.meta.last_id) l.meta.last_id = v.id;
    l.dirty = true;
  }

  private remove(l: Loaded, id: number): void {
    if (!l.index.contains(BigInt(id))) return;
    l.index.remove(BigInt(id));
    l.dirty = true;
  }

  /** Records what a stage wrote: ids removed and rows added (already in the vectors table). */
  update(model: string, removed: number[], added: StoredVector[]): void {
    const l = this.open(model, added[0]?.vector.length);
    if (!l) return;
    this.writable(model, l);
    for (const id of removed) this.remove(l, id);
    if (added.length) this.insert(l, added);
    this.scheduleSave();
  }

  /** Takes an asset's ids out of every index (before its rows are purged). */
  removeAsset(ids: Array<{ id: number; model: string }>): void {
    for (const { id, model } of ids) {
      const l = this.open(model);
      if (!l) continue;
      this.writable(model, l);
      this.remove(l, id);
    }
    if (ids.length) this.scheduleSave();
  }

  /**
   * Candidates near a unit vector with their approximate cosine similarity (from the quantized
   * vectors), best first. Callers score them again from the rows.
   */
  nearest(model: string, query: Float32Array, k: number): Array<{ id: number; similarity: number }> {
    const l = this.open(model);
    if (!l || query.length !== l.meta.dim) return [];
    if (k <= 0 || l.index.size() === 0) return [];
    const r = l.index.search(query, Math.min(k, l.index.size()), 1);
    return Array.from(r.keys, (id, i) => ({ id: Number(id), similarity: 1 - r.distances[i] }));
  }

  private scheduleSave(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.save();
    }, SAVE_DELAY_MS);
    this.timer.unref();
  }

  /** Writes every changed index (file first, then the metadata that vouches for it). */
  save(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    for (const [model, l] of this.loaded) {
      if (!l.dirty) continue;
      fs.mkdirSync(this.dir, { recursive: true });
      const f = this.files(model);
      const tmp = `${f.index}.${process.pid}.tmp`;
      l.index.save(tmp);
      fs.renameSync(tmp, f.index);
      const meta: Meta = { ...l.meta, count: l.index.size(), bytes: fs.statSync(f.index).size };
      fs.writeFileSync(`${f.meta}.${process.pid}.tmp`, JSON.stringify(meta));
      fs.renameSync(`${f.meta}.${process.pid}.tmp`, f.meta);
      l.meta = meta;
      l.dirty = false;
    }
  }
}
