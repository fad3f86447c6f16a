// transformers.js pointed at the models folder (nothing is ever fetched), and a cache so that each
// model is loaded once per process.
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
