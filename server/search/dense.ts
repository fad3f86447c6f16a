// Dense retrieval: the query's nearest evidence by meaning, from one embedding model's vectors (the
// sentence encoder over text evidence, or CLIP's text half against the pictures), in assets the
// workspaces see. The encoders load on the first query (never at start-up).
import type { Store } from '../store/index.ts';
import type { VectorHit } from '../store/vectors.repo.ts';
import { isInstalled, modelsDir } from '../ml/models.ts';
import { PICTURE_EMBEDDING_MODEL } from '../ml/catalogue.ts';
import type { Modality } from '../contract/search.ts';
import type { Engine } from './lexical.ts';

/**
 * Below this cosine a dense neighbour is not evidence. Measured with the real all-MiniLM-L6-v2 by
 * `npm run test:real-models`: the value 99 % of unrelated passages stay below for its tuning
 * questions (0.33; unrelated text sits near 0.12 at the median); on held-out questions 90 % of the
 * pages that answer them are above it and 1.9 % of unrelated passages.
 */
export const MIN_DENSE_SIMILARITY = 0.33;
/** The same for a description against a picture (CLIP puts matching pairs near 0.25–0.35, unrelated near 0.1–0.2). */
export const MIN_PICTURE_SIMILARITY = 0.22;
/** How far under the true cosine the index's int8 similarity may fall (measured errors stay under 0.01). */
const QUANTIZATION_MARGIN = 0.02;

const dot = (a: Float32Array, b: Float32Array) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
};

async function embedQuery(modelsRoot: string, model: string, query: string): Promise<Float32Array> {
  const [q] =
    model === PICTURE_EMBEDDING_MODEL
      ? await (async () => {
          const clip = await import('../ml/clip.ts');
          return clip.embedClipTexts(modelsRoot, model, [clip.photoPrompt(query)]);
        })()
      : await (await import('../ml/embeddings.ts')).embedTexts(modelsRoot, model, [query]);
  return q;
}

/** Nearest evidence, best first; null when the model is not installed. */
export async function nearestByMeaning(
  store: Store,
  model: string,
  query: string,
  opts: { workspaceIds: string[]; assetId?: string; engine: Engine; limit: number },
): Promise<VectorHit[] | null> {
  const dataDir = store.files.root;
  if (!isInstalled(dataDir, model)) return null;
  const q = await embedQuery(modelsDir(dataDir), model, query);
  const min = model === PICTURE_EMBEDDING_MODEL ? MIN_PICTURE_SIMILARITY : MIN_DENSE_SIMILARITY;
  // One asset: every vector of it, scored exactly. Else the index proposes (its similarities come from
  // quantized vectors, so those a little under the cut-off stay candidates) and the rows decide.
  const candidates = opts.assetId
    ? store.vectors
        .idsOfAsset(opts.assetId)
        .filter((v) => v.model === model)
        .map((v) => v.id)
    : store.vectorIndex
        .nearest(model, q, opts.limit)
        .filter((n) => n.similarity >= min - QUANTIZATION_MARGIN)
        .map((n) => n.id);
  return store.vectors
    .visible(candidates, opts)
    .map(({ vector, ...v }) => ({ ...v, similarity: dot(q, vector) }))
    .filter((v) => v.similarity >= min)
    .sort((a, b) => b.similarity - a.similarity);
}

/**
 * What the second and third nearest pieces of evidence of a moment add to its best (this share, then
 * its square): a page whose several passages are near the question is likelier its answer than a
 * page with one near sentence. Chosen with the real encoder on the tuning questions of
 * `npm run test:real-models` (0.4–0.7 measure alike), reported there on held-out questions.
 */
const SUPPORT = 0.5;

/**
 * One entry per moment (its best, weighted by the caller's weight for its kind of evidence), of the
 * kinds allowed; `weighted` ranks the moment: its best, plus the support of its next two.
 */
export function bestPerMoment(
  near: VectorHit[],
  keyOf: (e: VectorHit) => string,
  allowed: readonly Modality[] | undefined,
  weights: Partial<Record<Modality, number>>,
): Map<string, VectorHit & { weighted: number }> {
  const found = new Map<string, { best: VectorHit; scores: number[] }>();
  for (const v of near) {
    if (allowed && !allowed.includes(v.modality)) continue;
    const weighted = v.similarity * (weights[v.modality] ?? 1);
    if (weighted <= 0) continue;
    const key = keyOf(v);
    const m = found.get(key);
    if (!m) found.set(key, { best: v, scores: [weighted] });
    else {
      if (weighted > Math.max(...m.scores)) m.best = v;
      m.scores.push(weighted);
    }
  }
  const best = new Map<string, VectorHit & { weighted: number }>();
  for (const [key, { best: v, scores }] of found) {
    const [a, b = 0, c = 0] = scores.sort((x, y) => y - x);
    best.set(key, { ...v, weighted: a + SUPPORT * b + SUPPORT * SUPPORT * c });
  }
  return best;
}
