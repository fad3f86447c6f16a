// embeddings (internal): vectors for search by meaning (run: embeddings.run.ts). With the sentence
// encoder installed it embeds the text evidence the other stages indexed — document passages,
// transcript windows (about 30 s), the text seen in a photo or video frame, captions. With the
// image-text model (CLIP) installed, it also embeds the pictures themselves (a photo, the picture
// pages of a document, a video frame every two seconds) as modality `picture`, found by describing
// them. Either model is enough for the stage to run; it uses what is installed. Writes one unit
// vector per piece into the vectors table and the model's HNSW file.
import { EMBEDDED_MODALITIES, PICTURE_EMBEDDING_MODEL, TEXT_EMBEDDING_MODEL } from '../../ml/catalogue.ts';
import type { NewEntry } from '../../store/search.repo.ts';
import type { NewVector } from '../../store/vectors.repo.ts';
import { picturesOf, type PictureInput } from '../picture-input.ts';
import { defineStage, needsModels } from '../stage.ts';
import { sentences } from '../../search/tokenizer.ts';

const WINDOW_S = 30;
/**
 * A passage longer than this is embedded as windows of consecutive sentences, each about this many
 * words, overlapping by a sentence: the sentence encoder was trained on sentence pairs and matches a
 * question to the few sentences that answer it better than to a long paragraph around them.
 */
const PASSAGE_WINDOW_WORDS = 60;
const WINDOW_CHARS = 1200;
const MAX_PIECES = 20_000;

export type Piece = Omit<NewVector, 'vector'>;

/** Windows of consecutive sentences of about `max` words, each starting with the last sentence of the one before. */
export function sentenceWindows(text: string, max = PASSAGE_WINDOW_WORDS): string[] {
  const count = (s: string) => s.split(/\s+/).filter(Boolean).length;
  if (count(text) <= max) return [text];
  const parts = sentences(text);
  const out: string[] = [];
  let i = 0;
  while (i < parts.length) {
    let j = i;
    let words = 0;
    while (j < parts.length && (j === i || words + count(parts[j]) <= max)) words += count(parts[j++]);
    out.push(parts.slice(i, j).join(' '));
    if (j >= parts.length) break;
    i = j - 1 > i ? j - 1 : j;
  }
  return out;
}

/**
 * Joins what belongs together: transcript segments into windows, a frame's text lines into one
 * text; splits what is too long to embed as one: a long passage into sentence windows.
 */
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
    } else if (e.modality === 'passage') {
      for (const w of sentenceWindows(e.text.trim())) out.push({ ...e, text: w });
    } else {
      out.push({ ...e, text: e.text.trim() });
    }
  }
  return out.filter((p) => /[\p{L}\p{N}]/u.test(p.text)).slice(0, MAX_PIECES);
}

export interface EmbeddingsInput {
  pieces: Piece[];
  pictures: PictureInput;
}

/** Vectors of one model for one asset. */
export interface VectorSet {
  model: string;
  vectors: NewVector[];
}

export const embeddingsStage = defineStage<EmbeddingsInput, VectorSet[], 'embeddings'>({
  name: 'embeddings',
  version: 2,
  kinds: ['video', 'image', 'document'],
  dependsOn: ['extract', 'ocr', 'transcript', 'captions'],
  requires: ['extract'],
  ...needsModels([TEXT_EMBEDDING_MODEL, PICTURE_EMBEDDING_MODEL]),
  combines: [TEXT_EMBEDDING_MODEL, PICTURE_EMBEDDING_MODEL],
  prepare: (store, assetId) => ({
    pieces: piecesOf(store.search.entriesOf(assetId, EMBEDDED_MODALITIES[TEXT_EMBEDDING_MODEL])),
    pictures: picturesOf(store, assetId),
  }),
  savesBeyondDatabase: true,
  save(store, assetId, sets) {
    for (const { model, vectors } of sets) {
      const { removed, added } = store.vectors.replaceForAsset(assetId, model, vectors);
      store.vectorIndex.update(model, removed, added);
    }
  },
});
