// captions: a sentence per shot of a video (its keyframe), per photo and per picture page of a
// document, and a summary (the distinct captions in order, at most five), from the captioning model
// downloaded with `media-index models pull vit-gpt2-image-captioning` (run: captions.run.ts).
// Writes search entries (modality `caption`); the report holds the summary.
import { CAPTION_MODEL } from '../../ml/catalogue.ts';
import { defineStage, needsModels } from '../stage.ts';

export interface CaptionPicture {
  timestamp: number;
  page: number | null;
  file: string;
}

export interface Caption {
  timestamp: number;
  page: number | null;
  text: string;
}

export const captionsStage = defineStage<CaptionPicture[], Caption[], 'captions'>({
  name: 'captions',
  version: 1,
  kinds: ['video', 'image', 'document'],
  picturesOnly: true,
  // A video's keyframes are drawn by `shots`, which photos and documents do not have.
  dependsOn: ['extract', 'shots'],
  requires: ['extract'],
  ...needsModels([CAPTION_MODEL]),
  prepare: (store, assetId) => {
    const kind = store.assets.byId(assetId)?.kind;
    if (kind === 'document')
      return store.media.picturePages(assetId).map((p) => ({ timestamp: p.page - 1, page: p.page, file: store.files.abs(p.render_path) }));
    const frames = store.media.frames(assetId).filter((f) => f.kind === (kind === 'video' ? 'keyframe' : 'frame'));
    return frames.sort((a, b) => a.timestamp - b.timestamp).map((f) => ({ timestamp: f.timestamp, page: null, file: store.files.abs(f.path) }));
  },
  nothingToDo: (pictures) => (pictures.length === 0 ? 'no pictures to describe' : null),
  save(store, assetId, captions) {
    store.search.replaceForStage(
      assetId,
      'captions',
      captions.map((c) => ({ modality: 'caption', timestamp: c.timestamp, page: c.page, ref: null, region_id: null, text: c.text })),
    );
  },
});
