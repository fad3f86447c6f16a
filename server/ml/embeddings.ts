// Sentence embeddings through transformers.js (feature extraction, mean pooling, unit length),
// from the models folder only. Loaded once per process and model.
import { onProvider } from './providers.ts';
import { loadOnce, transformersAt, shaped } from './transformers.ts';

type Extractor = (texts: string[], opts: { pooling: 'mean'; normalize: boolean }) => Promise<{ data: Float32Array; dims: number[] }>;

export async function embedTexts(modelsRoot: string, model: string, texts: string[]): Promise<Float32Array[]> {
  const p = loadOnce(['sentences', modelsRoot, model], async () => {
    const t = await transformersAt(modelsRoot);
    // transformers.js types its loaded models loosely: name the call shape used here (checked by the tests' stand-ins).
    return shaped<Extractor>(await onProvider(model, (device) => t.pipeline('feature-extraction', model, { dtype: 'q8', device })));
  });
  const extract = await p;
  if (texts.length === 0) return [];
  const out = await extract(texts, { pooling: 'mean', normalize: true });
  const dim = out.dims[out.dims.length - 1];
  return texts.map((_, i) => out.data.slice(i * dim, (i + 1) * dim));
}
