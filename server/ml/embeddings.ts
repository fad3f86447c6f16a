// Sentence embeddings through transformers.js (feature extraction, mean pooling, unit length),
// from the models folder only. Loaded once per process and model.
import { executionProvider } from './providers.ts';

type Extractor = (texts: string[], opts: { pooling: 'mean'; normalize: boolean }) => Promise<{ data: Float32Array; dims: number[] }>;

const loaded = new Map<string, Promise<Extractor>>();

export async function embedTexts(modelsRoot: string, model: string, texts: string[]): Promise<Float32Array[]> {
  const key = `${modelsRoot}\u0000${model}`;
  let p = loaded.get(key);
  if (!p) {
    p = (async () => {
      const { pipeline, env } = await import('@huggingface/transformers');
      env.allowRemoteModels = false;
      env.allowLocalModels = true;
      env.localModelPath = modelsRoot.endsWith('/') ? modelsRoot : `${modelsRoot}/`;
      const device = executionProvider();
      return (await pipeline('feature-extraction', model, { dtype: 'q8', device })) as unknown as Extractor;
    })();
    p.catch(() => loaded.delete(key));
    loaded.set(key, p);
  }
  const extract = await p;
  if (texts.length === 0) return [];
  const out = await extract(texts, { pooling: 'mean', normalize: true });
  const dim = out.dims[out.dims.length - 1];
  return texts.map((_, i) => out.data.slice(i * dim, (i + 1) * dim));
}
