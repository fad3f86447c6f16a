// embeddings (internal): vectors for search by meaning, from a sentence encoder downloaded with
// `media-index models pull all-MiniLM-L6-v2`. Reads the text evidence the other stages indexed —
// document passages, transcript windows (about 30 s), the text seen in a photo or video frame,
// captions — and writes one unit vector per piece into the vectors table and the model's HNSW file.
// With the image-text model (CLIP) installed, it also embeds the pictures themselves (a photo, the
// picture pages of a document, a video frame every two seconds) as modality `picture`, found by
// describing them. Either model is enough for the stage to run; it uses what is installed.
import { embedTexts } from '../../ml/embeddings.ts';
import { embedPictures } from '../../ml/clip.ts';
import { isInstalled, modelsDir } from '../../ml/models.ts';
import { executionProvider } from '../../ml/providers.ts';
import type { NewEntry } from '../../store/search.repo.ts';
import type { NewVector } from '../../store/vectors.repo.ts';
import { pictures, picturesOf, type PictureInput } from '../pictures.ts';
import { modelBackedStage, ok } from '../stage.ts';
import { ExtractError } from '../../media/types.ts';

export const TEXT_EMBEDDING_MODEL = 'all-MiniLM-L6-v2';
export const PICTURE_EMBEDDING_MODEL = 'clip-vit-base-patch32';
/** Video frames embedded per second. */
const PICTURE_FPS = 0.5;
const PICTURE_BATCH = 8;
/** The kinds of evidence each model's vectors hold. */
export const EMBEDDED_MODALITIES = { [TEXT_EMBEDDING_MODEL]: ['passage', 'transcript', 'ocr', 'caption'], [PICTURE_EMBEDDING_MODEL]: ['picture'] } as const;
const MODALITIES = EMBEDDED_MODALITIES[TEXT_EMBEDDING_MODEL];
const WINDOW_S = 30;
const WINDOW_CHARS = 1200;
const MAX_PIECES = 20_000;
const BATCH = 32;

type Piece = Omit<NewVector, 'vector'>;

/** Joins what belongs together: transcript segments into windows, a frame's text lines into one text. */
export function piecesOf(entries: NewEntry[]): Piece[] {
  const out: Piece[] = [];
  let window: Piece | null = null;
  let frame: Piece | null = null;
  for (const e of entries) {
    if (e.modality === 'transcript') {
      if (window && e.timestamp - window.timestamp < WINDOW_S && window.text.length + e.text.length < WINDOW_CHARS) {
        window.text += ` ${e.text.trim()}`;
      } else {
        window = { ...e, text: e.text.trim() };
        out.push(window);
      }
    } else if (e.modality === 'ocr') {
      if (frame && frame.timestamp === e.timestamp && frame.page === e.page && frame.text.length + e.text.length < WINDOW_CHARS) {
        frame.text += `\n${e.text.trim()}`;
      } else {
        frame = { ...e, text: e.text.trim() };
        out.push(frame);
      }
    } else {
      out.push({ ...e, text: e.text.trim() });
    }
  }
  return out.filter((p) => /[\p{L}\p{N}]/u.test(p.text)).slice(0, MAX_PIECES);
}

interface EmbeddingsInput {
  pieces: Piece[];
  pictures: PictureInput;
}

/** Vectors of one model for one asset. */
interface VectorSet {
  model: string;
  vectors: NewVector[];
}

export const embeddingsStage = modelBackedStage(
  'embeddings',
  ['video', 'image', 'document'],
  ['extract', 'ocr', 'transcript', 'captions'],
  [TEXT_EMBEDDING_MODEL, PICTURE_EMBEDDING_MODEL],
  async ({ asset, assetDir, input, dataDir }) => {
    const { pieces, pictures: pics } = input as EmbeddingsInput;
    const root = modelsDir(dataDir);
    const sets: VectorSet[] = [];
    let picturesSkipped: string | null = null;
    if (isInstalled(dataDir, TEXT_EMBEDDING_MODEL)) {
      const vectors: NewVector[] = [];
      for (let i = 0; i < pieces.length; i += BATCH) {
        const batch = pieces.slice(i, i + BATCH);
        const embedded = await embedTexts(root, TEXT_EMBEDDING_MODEL, batch.map((p) => p.text));
        batch.forEach((p, j) => vectors.push({ ...p, vector: embedded[j] }));
      }
      sets.push({ model: TEXT_EMBEDDING_MODEL, vectors });
    }
    if (isInstalled(dataDir, PICTURE_EMBEDDING_MODEL)) {
      const vectors: NewVector[] = [];
      let batch: Array<{ timestamp: number; page: number | null; rgb: { data: Buffer; width: number; height: number } }> = [];
      const flush = async () => {
        const embedded = await embedPictures(root, PICTURE_EMBEDDING_MODEL, batch.map((b) => b.rgb));
        batch.forEach((b, j) => vectors.push({ modality: 'picture', timestamp: b.timestamp, page: b.page, ref: null, region_id: null, text: '', vector: embedded[j] }));
        batch = [];
      };
      try {
        for await (const pic of pictures(asset, assetDir, pics, PICTURE_FPS)) {
          batch.push({ timestamp: pic.timestamp, page: pic.page, rgb: pic.rgb });
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
      provider: executionProvider(),
      dim: sets[0]?.vectors[0]?.vector.length ?? null,
      ...(picturesSkipped ? { pictures_skipped: picturesSkipped } : {}),
    });
  },
  {
    requires: ['extract'],
    combines: [TEXT_EMBEDDING_MODEL, PICTURE_EMBEDDING_MODEL],
    prepare: (store, assetId): EmbeddingsInput => ({ pieces: piecesOf(store.search.entriesOf(assetId, MODALITIES)), pictures: picturesOf(store, assetId) }),
    save: (store, assetId, output) => {
      for (const { model, vectors } of output as VectorSet[]) {
        const { removed, added } = store.vectors.replaceForAsset(assetId, model, vectors);
        store.vectorIndex.update(model, removed, added);
      }
    },
  },
);
