// Speaker embeddings, from the models folder only, one unit vector per stretch of audio: a WeSpeaker
// ResNet through transformers.js (Kaldi-style 80-bin filter banks, mean-centred), or the GE2E encoder
// with its own front end (ge2e.ts) when the model's config says so. Loaded once per process and model.
import path from 'node:path';
import { ge2eConfig, ge2eEmbeddings } from './ge2e.ts';
import { onProvider } from './providers.ts';
import { loadOnce, transformersAt, unitRows, type SecondsHeard, type TensorLike, shaped } from './transformers.ts';

interface Embedder {
  extract: (audio: Float32Array) => Promise<Record<string, unknown>>;
  model: (inputs: Record<string, unknown>) => Promise<Record<string, TensorLike>>;
}

function embedder(modelsRoot: string, model: string): Promise<Embedder> {
  return loadOnce(['speakers', modelsRoot, model], async () => {
    const t = await transformersAt(modelsRoot);
    // transformers.js types its loaded models loosely: name the call shape used here (checked by the tests' stand-ins).
    return {
      extract: shaped<Embedder['extract']>(await t.AutoFeatureExtractor.from_pretrained(model)),
      model: shaped<Embedder['model']>(await onProvider(model, (device) => t.AutoModel.from_pretrained(model, { dtype: 'fp32', device }))),
    };
  });
}

/** One unit vector per span of 16 kHz audio (`speech`: where someone talks, for the GE2E front end's loudness). */
export async function speakerEmbeddings(
  modelsRoot: string,
  model: string,
  audio: Float32Array,
  spans: Array<{ start_s: number; end_s: number }>,
  speech?: Array<{ start_s: number; end_s: number }>,
  progress?: SecondsHeard,
): Promise<Float32Array[]> {
  const ge2e = ge2eConfig(path.join(modelsRoot, model));
  if (ge2e) return ge2eEmbeddings(path.join(modelsRoot, model), ge2e, audio, spans, speech, progress);
  const e = await embedder(modelsRoot, model);
  const out: Float32Array[] = [];
  for (const s of spans) {
    progress?.({ done: s.start_s, total: audio.length / 16000, unit: 'seconds' });
    const slice = audio.slice(Math.floor(s.start_s * 16000), Math.ceil(s.end_s * 16000));
    const result = await e.model(await e.extract(slice));
    out.push(unitRows(result.embeddings ?? result.embedding ?? Object.values(result)[0])[0]);
  }
  return out;
}
