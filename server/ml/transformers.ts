// transformers.js pointed at the models folder (nothing is ever fetched), a cache so that each
// model is loaded once per process, and unit-length rows of an output tensor.
export async function transformersAt(modelsRoot: string) {
  const t = await import('@huggingface/transformers');
  t.env.allowRemoteModels = false;
  t.env.allowLocalModels = true;
  t.env.localModelPath = modelsRoot.endsWith('/') ? modelsRoot : `${modelsRoot}/`;
  return t;
}

const loaded = new Map<string, Promise<unknown>>();

/** The value `load` gave for `key` in this process, loading it on first use (a failed load is tried again next time). */
export function loadOnce<T>(key: string[], load: () => Promise<T>): Promise<T> {
  const k = key.join('\u0000');
  let p = loaded.get(k) as Promise<T> | undefined;
  if (!p) {
    p = load();
    p.catch(() => loaded.delete(k));
    loaded.set(k, p);
  }
  return p;
}

/** Hears how far a reading of audio has got: the seconds before the window it is at, of the recording's length. */
export type SecondsHeard = (p: { done: number; total: number; unit: 'seconds' }) => void;

export interface TensorLike {
  data: Float32Array;
  dims: number[];
}

/** The rows of a [..., dim] tensor, each scaled to unit length. */
export function unitRows(t: TensorLike): Float32Array[] {
  const dim = t.dims[t.dims.length - 1];
  const out: Float32Array[] = [];
  for (let i = 0; i < t.data.length / dim; i++) {
    const row = t.data.slice(i * dim, (i + 1) * dim);
    let n = 0;
    for (const v of row) n += v * v;
    n = Math.sqrt(n) || 1;
    for (let j = 0; j < dim; j++) row[j] /= n;
    out.push(row);
  }
  return out;
}

/**
 * transformers.js types what it loads loosely (its pipelines, processors, models and RawImage are
 * unions over every task): each adapter names the call shape it uses, and this is the one place that
 * shape is taken on trust (the stand-in model tests and the real-weight tests exercise every one).
 */
export function shaped<T>(loaded: unknown): T {
  return loaded as T;
}
