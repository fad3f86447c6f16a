// The vector index of each embedding model, on disk under <data>/vectors: a usearch HNSW graph
// over int8-quantized vectors (cosine), a quarter of the memory of float32. The rows of the vectors
// table stay the truth: the index only proposes candidates, whose similarity the caller computes
// again from the rows. The file is mapped from disk (`view`) while it is only searched, and read
// into memory at the first change. On open it is brought up to date from the rows (rows added
// after the last save are added; if rows were removed since, it is rebuilt from them), so a crash
// between a write and a save loses nothing. A large rebuild runs in a worker thread with every core
// (vector-build.worker.ts); until it is done the model answers no candidates, and search answers
// from its other evidence. Changes are saved a moment after they happen and on close.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import type * as USearch from 'usearch';
import type { StoredVector, VectorsRepo } from './vectors.repo.ts';
import { runInThread } from '../thread.ts';
import { entryModule } from '../paths.ts';

/**
 * Chosen from `npm run bench -- search` (docs/performance.md): with the candidates scored again from
 * the rows, recall@10 ≥ 0.97 at 1M vectors.
 */
// usearch's CommonJS build: its ES module build finds its native file from the call stack, which
// never returns in a worker thread. Loaded with the first index made (≈ 10 ms, its native library
// found and opened), not by every command that opens the store.
let usearch: typeof USearch | null = null;
const usearchLib = (): typeof USearch => (usearch ??= createRequire(import.meta.url)('usearch') as typeof USearch);
type Index = USearch.Index;

export const INDEX_PARAMS = { connectivity: 16, expansionAdd: 96, expansionSearch: 128 } as const;
const SAVE_DELAY_MS = 2000;
/** Up to this many rows an index is built at once where it is needed (well under a second); more, in a worker thread. */
export const BUILD_IN_PLACE_MAX = 5000;
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

export function indexFiles(dir: string, model: string) {
  const base = path.join(dir, model.replace(/[^A-Za-z0-9._-]/g, '_'));
  return { index: `${base}.usearch`, meta: `${base}.usearch.json`, legacy: [`${base}.hnsw`, `${base}.meta.json`] };
}

function createIndex(dim: number): Index {
  const { Index, MetricKind, ScalarKind } = usearchLib();
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

/** Adds rows not in the index yet (of the index's width: a model swapped for one of another width waits for a re-index). */
function addRows(index: Index, dim: number, batch: StoredVector[]): void {
  const fit = batch.filter((v) => v.vector.length === dim && !index.contains(BigInt(v.id)));
  if (fit.length === 0) return;
  const vectors = new Float32Array(fit.length * dim);
  fit.forEach((v, i) => vectors.set(v.vector, i * dim));
  index.add(
    BigUint64Array.from(fit, (v) => BigInt(v.id)),
    vectors,
    fit.length > 256 ? threads : 1,
  );
}

/** Writes an index (file first, then the metadata that vouches for it); returns that metadata. */
function writeIndex(dir: string, model: string, index: Index, meta: Pick<Meta, 'dim' | 'last_id'>): Meta {
  fs.mkdirSync(dir, { recursive: true });
  const f = indexFiles(dir, model);
  const tmp = `${f.index}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  index.save(tmp);
  fs.renameSync(tmp, f.index);
  const written: Meta = { format: FORMAT, dim: meta.dim, last_id: meta.last_id, count: index.size(), bytes: fs.statSync(f.index).size };
  fs.writeFileSync(`${tmp}.json`, JSON.stringify(written));
  fs.renameSync(`${tmp}.json`, f.meta);
  return written;
}

/** Builds a model's index from all its rows and writes it (vector-build.worker.ts runs this off the main thread). */
export function buildIndexFile(dir: string, model: string, rows: VectorsRepo): Meta | null {
  const first = rows.after(model, 0, 1).next().value;
  const dim = first?.[0]?.vector.length;
  if (!dim) return null;
  const index = createIndex(dim);
  let last = 0;
  for (const batch of rows.after(model, 0, 20_000)) {
    addRows(index, dim, batch);
    last = batch[batch.length - 1].id;
  }
  for (const old of indexFiles(dir, model).legacy) fs.rmSync(old, { force: true });
  return writeIndex(dir, model, index, { dim, last_id: last });
}

export class VectorIndex {
  private readonly loaded = new Map<string, Loaded>();
  /** Models whose index a worker thread is building, with the ids removed meanwhile. */
  private readonly building = new Map<string, { removed: Set<number>; done: Promise<void> }>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly dir: string,
    private readonly rows: VectorsRepo,
    /** The database file, for the worker thread that builds a large index. */
    private readonly dbFile?: string,
  ) {}

  /** The saved index if its files are whole and of this format; null otherwise. */
  private read(model: string): Loaded | null {
    const f = indexFiles(this.dir, model);
    try {
      const meta = JSON.parse(fs.readFileSync(f.meta, 'utf8')) as Meta;
      if (meta.format !== FORMAT || fs.statSync(f.index).size !== meta.bytes) return null;
      const index = createIndex(meta.dim);
      index.view(f.index);
      if (index.size() !== meta.count || index.dimensions() !== meta.dim) return null;
      return { index, meta, viewed: true, dirty: false };
    } catch {
      return null; // missing or unreadable: rebuilt from the rows
    }
  }

  /**
   * The model's index, read from disk and reconciled with the rows; null while the model has no
   * vectors or while its index is being built.
   */
  private open(model: string, dimHint?: number, removed: Iterable<number> = []): Loaded | null {
    const have = this.loaded.get(model);
    if (have) return have;
    if (this.building.has(model)) return null;
    let l = this.read(model);
    if (l) for (const id of removed) this.remove(model, l, id);
    // Rows were removed since the last save (the index holds more than the rows up to its last id):
    // the index cannot list its keys, so it is built again.
    if (l && this.rows.countUpTo(model, l.meta.last_id) !== l.index.size()) l = null;
    if (!l) {
      const count = this.rows.count(model);
      if (count > BUILD_IN_PLACE_MAX && this.dbFile) {
        this.buildInThread(model);
        return null;
      }
      const first = this.rows.after(model, 0, 1).next().value;
      const dim = first?.[0]?.vector.length ?? dimHint;
      if (!dim) return null;
      for (const old of indexFiles(this.dir, model).legacy) fs.rmSync(old, { force: true });
      l = { index: createIndex(dim), meta: { format: FORMAT, dim, last_id: 0, count: 0, bytes: 0 }, viewed: false, dirty: true };
    }
    this.loaded.set(model, l);
    for (const batch of this.rows.after(model, l.meta.last_id, 20_000)) this.insert(model, l, batch);
    if (l.dirty) this.scheduleSave();
    return l;
  }

  private buildInThread(model: string): void {
    const removed = new Set<number>();
    const done = runInThread<{ ok: boolean; error?: string }>(entryModule('store/vector-build.worker'), {
      dbFile: this.dbFile,
      dir: this.dir,
      model,
    })
      .then((r) => {
        if (!r.ok) throw new Error(r.error);
        this.building.delete(model);
        this.open(model, undefined, removed);
      })
      .catch((e: Error) => {
        // The next query tries again.
        this.building.delete(model);
        process.emitWarning(`the vector index of ${model} could not be built: ${e.message}`);
      });
    this.building.set(model, { removed, done });
  }

  /** Resolves when no index is being built (for tests and shutdown). */
  async built(): Promise<void> {
    await Promise.all([...this.building.values()].map((b) => b.done));
  }

  /** A mapped index read into memory, so that it can change. */
  private writable(model: string, l: Loaded): void {
    if (!l.viewed) return;
    const index = createIndex(l.meta.dim);
    index.load(indexFiles(this.dir, model).index);
    l.index = index;
    l.viewed = false;
  }

  private insert(model: string, l: Loaded, batch: StoredVector[]): void {
    if (batch.some((v) => v.vector.length === l.meta.dim && !l.index.contains(BigInt(v.id)))) {
      this.writable(model, l);
      addRows(l.index, l.meta.dim, batch);
      l.dirty = true;
    }
    for (const v of batch) if (v.id > l.meta.last_id) l.meta.last_id = v.id;
  }

  private remove(model: string, l: Loaded, id: number): void {
    if (!l.index.contains(BigInt(id))) return;
    this.writable(model, l);
    l.index.remove(BigInt(id));
    l.dirty = true;
  }

  /** Records what a stage wrote: ids removed and rows added (already in the vectors table). */
  update(model: string, removed: number[], added: StoredVector[]): void {
    const pending = this.building.get(model);
    if (pending) {
      // The rows added are read when the build is done; the ids removed are taken out then.
      for (const id of removed) pending.removed.add(id);
      return;
    }
    const l = this.open(model, added[0]?.vector.length);
    if (!l) return;
    for (const id of removed) this.remove(model, l, id);
    if (added.length) this.insert(model, l, added);
    this.scheduleSave();
  }

  /** Takes an asset's ids out of every index (before its rows are purged). */
  removeAsset(ids: Array<{ id: number; model: string }>): void {
    for (const { id, model } of ids) {
      const pending = this.building.get(model);
      if (pending) pending.removed.add(id);
      const l = pending ? null : this.open(model);
      if (l) this.remove(model, l, id);
    }
    if (ids.length) this.scheduleSave();
  }

  /** Reads the model's index ahead of the first query (or starts its build). */
  prepare(model: string): void {
    this.open(model);
  }

  /**
   * Candidates near a unit vector with their approximate cosine similarity (from the quantized
   * vectors), best first. Callers score them again from the rows. None while the index is built.
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

  /** Writes every changed index. */
  save(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    for (const [model, l] of this.loaded) {
      if (!l.dirty) continue;
      l.meta = writeIndex(this.dir, model, l.index, l.meta);
      l.dirty = false;
    }
  }
}
