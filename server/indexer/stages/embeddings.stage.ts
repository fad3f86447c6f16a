// embeddings (internal): vectors for search by meaning, from a sentence encoder downloaded with
// `media-index models pull all-MiniLM-L6-v2`. Reads the text evidence the other stages indexed —
// document passages, transcript windows (about 30 s), the text seen in a photo or video frame,
// captions — and writes one unit vector per piece into the vectors table and the model's HNSW file.
// Picture-only evidence needs an image-text model (CLIP), whose text half is not pinned in this build.
import { embedTexts } from '../../ml/embeddings.ts';
import { modelsDir } from '../../ml/models.ts';
import { executionProvider } from '../../ml/providers.ts';
import type { NewEntry } from '../../store/search.repo.ts';
import type { NewVector } from '../../store/vectors.repo.ts';
import { modelBackedStage, ok } from '../stage.ts';

export const TEXT_EMBEDDING_MODEL = 'all-MiniLM-L6-v2';
const MODALITIES = ['passage', 'transcript', 'ocr', 'caption'] as const;
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

export const embeddingsStage = modelBackedStage(
  'embeddings',
  ['video', 'image', 'document'],
  ['extract', 'ocr', 'transcript', 'captions'],
  [TEXT_EMBEDDING_MODEL],
  async ({ input, dataDir }, model) => {
    const pieces = input as Piece[];
    const out: NewVector[] = [];
    for (let i = 0; i < pieces.length; i += BATCH) {
      const batch = pieces.slice(i, i + BATCH);
      const vectors = await embedTexts(modelsDir(dataDir), model, batch.map((p) => p.text));
      batch.forEach((p, j) => out.push({ ...p, vector: vectors[j] }));
    }
    const counts: Record<string, number> = { vectors: out.length };
    for (const p of out) counts[p.modality] = (counts[p.modality] ?? 0) + 1;
    return ok(counts, { model, vectors: out }, { model, provider: executionProvider(), dim: out[0]?.vector.length ?? null });
  },
  {
    requires: ['extract'],
    prepare: (store, assetId) => piecesOf(store.search.entriesOf(assetId, MODALITIES)),
    save: (store, assetId, output) => {
      const { model, vectors } = output as { model: string; vectors: NewVector[] };
      const { removed, added } = store.vectors.replaceForAsset(assetId, model, vectors);
      store.vectorIndex.update(model, removed, added);
    },
  },
);
