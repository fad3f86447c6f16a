// The HNSW graph of each embedding model, on disk under <data>/vectors (hnswlib-node, inner product
// over unit vectors). Loaded on first use; brought up to date from the vectors table on load (rows
// added after the last save are added, labels whose rows are gone are marked deleted), so a crash
// between a write and a save loses nothing. Changes are saved a moment after they happen and on close.
import fs from 'node:fs';
import path from 'node:path';
import hnswlib from 'hnswlib-node';
import type { StoredVector, VectorsRepo } from './vectors.repo.ts';

const { HierarchicalNSW } = hnswlib;
type Graph = InstanceType<typeof HierarchicalNSW>;

/** Chosen from `npm run bench:search` (docs/performance.md): recall@10 ≥ 0.98 at 1M vectors. */
export const HNSW_PARAMS = { M: 16, efConstruction: 100, efSearch: 128 } as const;
const SAVE_DELAY_MS = 2000;

interface Meta {
  dim: number;
  /** Every row with an id up to this one is in the saved graph. */
  last_id: number;
  M: number;
  ef_construction: number;
}

interface Loaded {
  graph: Graph;
  meta: Meta;
  dirty: boolean;
}

export class VectorIndex {
  private readonly loaded = new Map<string, Loaded>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly dir: string,
    private readonly rows: VectorsRepo,
  ) {}

  private files(model: string) {
    const base = path.join(this.dir, model.replace(/[^A-Za-z0-9._-]/g, '_'));
    return { graph: `${base}.hnsw`, meta: `${base}.meta.json` };
  }

  private create(dim: number): Loaded {
    const graph = new HierarchicalNSW('ip', dim);
    graph.initIndex({ maxElements: 1024, m: HNSW_PARAMS.M, efConstruction: HNSW_PARAMS.efConstruction, randomSeed: 100, allowReplaceDeleted: true });
    return { graph, meta: { dim, last_id: 0, M: HNSW_PARAMS.M, ef_construction: HNSW_PARAMS.efConstruction }, dirty: true };
  }

  /** The model's graph, read from disk and reconciled with the rows; null while the model has no vectors. */
  private open(model: string, dimHint?: number): Loaded | null {
    const have = this.loaded.get(model);
    if (have) return have;
    const f = this.files(model);
    let l: Loaded | null;
    try {
      const meta = JSON.parse(fs.readFileSync(f.meta, 'utf8')) as Meta;
      const graph = new HierarchicalNSW('ip', meta.dim);
      graph.readIndexSync(f.graph, true);
      l = { graph, meta, dirty: false };
    } catch {
      l = null; // missing or unreadable: rebuilt from the rows below
    }
    const first = l === null ? this.rows.after(model, 0, 1).next().value : undefined;
    if (!l) {
      const dim = first?.[0]?.vector.length ?? dimHint;
      if (!dim) return null;
      l = this.create(dim);
    }
    this.loaded.set(model, l);
    // Rows added since the last save (a graph written just before a crash may hold some), then
    // labels whose rows are gone.
    const held = new Set(l.graph.getIdsList());
    for (const batch of this.rows.after(model, l.meta.last_id))
      this.insert(
        l,
        batch.filter((v) => !held.has(v.id)),
      );
    const live = this.rows.ids(model);
    for (const label of held) {
      if (!live.has(label)) this.markDeleted(l, label);
    }
    if (l.dirty) this.scheduleSave();
    return l;
  }

  private insert(l: Loaded, batch: StoredVector[]): void {
    const need = l.graph.getCurrentCount() + batch.length;
    if (need > l.graph.getMaxElements()) l.graph.resizeIndex(Math.max(need, Math.ceil(l.graph.getMaxElements() * 1.5)));
    for (const v of batch) {
      if (v.vector.length !== l.meta.dim) continue; // a model swapped for one of another width: its rows wait for a re-index
      l.graph.addPoint(Array.from(v.vector), v.id, true);
      if (v.id > l.meta.last_id) l.meta.last_id = v.id;
    }
    l.dirty = true;
  }

  private markDeleted(l: Loaded, label: number): void {
    try {
      l.graph.markDelete(label);
      l.dirty = true;
    } catch {
      // already deleted
    }
  }

  /** Records what a stage wrote: labels removed and rows added (already in the vectors table). */
  update(model: string, removed: number[], added: StoredVector[]): void {
    const l = this.open(model, added[0]?.vector.length);
    if (!l) return;
    for (const id of removed) this.markDeleted(l, id);
    if (added.length) this.insert(l, added);
    this.scheduleSave();
  }

  /** Takes an asset's labels out of every graph (before its rows are purged). */
  removeAsset(ids: Array<{ id: number; model: string }>): void {
    for (const { id, model } of ids) {
      const l = this.open(model);
      if (l) this.markDeleted(l, id);
    }
    if (ids.length) this.scheduleSave();
  }

  /** The nearest labels to a unit vector with their cosine similarity, best first. */
  nearest(model: string, query: Float32Array, k: number): Array<{ id: number; similarity: number }> {
    const l = this.open(model);
    if (!l || query.length !== l.meta.dim) return [];
    if (k <= 0 || l.graph.getCurrentCount() === 0) return [];
    // Asking for more than the graph holds gives what it holds.
    l.graph.setEf(Math.max(HNSW_PARAMS.efSearch, k));
    const r = l.graph.searchKnn(Array.from(query), k);
    return r.neighbors.map((id, i) => ({ id, similarity: 1 - r.distances[i] })).sort((a, b) => b.similarity - a.similarity);
  }

  private scheduleSave(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.save();
    }, SAVE_DELAY_MS);
    this.timer.unref();
  }

  /** Writes every changed graph (file first, then the metadata that vouches for it). */
  save(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    for (const [model, l] of this.loaded) {
      if (!l.dirty) continue;
      fs.mkdirSync(this.dir, { recursive: true });
      const f = this.files(model);
      l.graph.writeIndexSync(`${f.graph}.${process.pid}.tmp`);
      fs.renameSync(`${f.graph}.${process.pid}.tmp`, f.graph);
      fs.writeFileSync(`${f.meta}.${process.pid}.tmp`, JSON.stringify(l.meta));
      fs.renameSync(`${f.meta}.${process.pid}.tmp`, f.meta);
      l.dirty = false;
    }
  }
}
