// embeddings, the run: the sentence encoder over the text pieces, in batches, and the image-text
// model over the pictures (a photo, the picture pages, a video frame every two seconds).
import { embedTexts } from '../../ml/embeddings.ts';
import { embedPictures } from '../../ml/clip.ts';
import { isInstalled, modelsDir } from '../../ml/models.ts';
import { PICTURE_EMBEDDING_MODEL, TEXT_EMBEDDING_MODEL } from '../../ml/catalogue.ts';
import { providerOf } from '../../ml/providers.ts';
import { ExtractError } from '../../media/types.ts';
import type { NewVector } from '../../store/vectors.repo.ts';
import { pictures } from '../pictures.ts';
import { videoFps } from '../picture-input.ts';
import { ok, withModel } from '../stage.ts';
import { embeddingsStage, type VectorSet } from './embeddings.stage.ts';

const PICTURE_BATCH = 8;
const BATCH = 32;

export const runEmbeddings = withModel(embeddingsStage, async ({ asset, assetDir, input: { pieces, pictures: pics }, dataDir, progress }) => {
  const root = modelsDir(dataDir);
  const sets: VectorSet[] = [];
  let picturesSkipped: string | null = null;
  if (isInstalled(dataDir, TEXT_EMBEDDING_MODEL)) {
    const vectors: NewVector[] = [];
    for (let i = 0; i < pieces.length; i += BATCH) {
      // The passages encoded before this batch.
      progress?.({ done: i, total: pieces.length, unit: 'passages' });
      const batch = pieces.slice(i, i + BATCH);
      const embedded = await embedTexts(
        root,
        TEXT_EMBEDDING_MODEL,
        batch.map((p) => p.text),
      );
      batch.forEach((p, j) => vectors.push({ ...p, vector: embedded[j] }));
    }
    if (pieces.length > 0) progress?.({ done: pieces.length, total: pieces.length, unit: 'passages' });
    sets.push({ model: TEXT_EMBEDDING_MODEL, vectors });
  }
  if (isInstalled(dataDir, PICTURE_EMBEDDING_MODEL)) {
    const vectors: NewVector[] = [];
    let batch: Array<{ timestamp: number; page: number | null; rgb: { data: Buffer; width: number; height: number } }> = [];
    const flush = async () => {
      const embedded = await embedPictures(
        root,
        PICTURE_EMBEDDING_MODEL,
        batch.map((b) => b.rgb),
      );
      batch.forEach((b, j) =>
        vectors.push({ modality: 'picture', timestamp: b.timestamp, page: b.page, ref: null, region_id: null, text: '', vector: embedded[j] }),
      );
      batch = [];
    };
    try {
      for await (const pic of pictures(asset, assetDir, pics, videoFps('embeddings'), progress)) {
        batch.push({ timestamp: pic.timestamp, page: pic.page, rgb: await pic.pixels() });
        if (batch.length === PICTURE_BATCH) await flush();
      }
      if (batch.length) await flush();
    } catch (err) {
      // Pictures that cannot be read (a video without a picture stream) leave the text vectors be.
      if (!(err instanceof ExtractError)) throw err;
      picturesSkipped = err.reason;
      vectors.length = 0;
    }
    sets.push({ model: PICTURE_EMBEDDING_MODEL, vectors });
  }
  const all = sets.flatMap((s) => s.vectors);
  const counts: Record<string, number> = { vectors: all.length };
  for (const p of all) counts[p.modality] = (counts[p.modality] ?? 0) + 1;
  return ok(counts, sets, {
    model: sets.map((s) => s.model).join(' + '),
    models: Object.fromEntries(sets.map((s) => [s.model, { vectors: s.vectors.length, dim: s.vectors[0]?.vector.length ?? null }])),
    provider: providerOf(sets[0]?.model ?? ''),
    dim: sets[0]?.vectors[0]?.vector.length ?? null,
    ...(picturesSkipped ? { pictures_skipped: picturesSkipped } : {}),
  });
});
