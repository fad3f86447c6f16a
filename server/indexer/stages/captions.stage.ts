// captions: a sentence per shot of a video (its keyframe), per photo and per picture page of a
// document, and a summary (the distinct captions in order, at most five), from the captioning model
// downloaded with `media-index models pull vit-gpt2-image-captioning`. Writes search entries
// (modality `caption`); the report holds the summary.
import sharp from 'sharp';
import { caption, summarize } from '../../ml/captions.ts';
import { modelsDir } from '../../ml/models.ts';
import { executionProvider } from '../../ml/providers.ts';
import { modelBackedStage, notApplicable, ok } from '../stage.ts';

interface Picture {
  timestamp: number;
  page: number | null;
  file: string;
}

interface Caption {
  timestamp: number;
  page: number | null;
  text: string;
}

export const captionsStage = modelBackedStage(
  'captions',
  ['video', 'image', 'document'],
  ['extract'],
  ['vit-gpt2-image-captioning'],
  async ({ input, dataDir }, model) => {
    const pictures = input as Picture[];
    if (pictures.length === 0) return notApplicable('no pictures to describe');
    const out: Caption[] = [];
    for (const p of pictures) {
      const { data, info } = await sharp(p.file).removeAlpha().raw().toBuffer({ resolveWithObject: true });
      const text = await caption(modelsDir(dataDir), model, { data, width: info.width, height: info.height });
      if (text) out.push({ timestamp: p.timestamp, page: p.page, text });
    }
    const summary = summarize(out.map((c) => c.text));
    return ok({ captions: out.length, pictures: pictures.length }, out, { model, provider: executionProvider(), summary });
  },
  {
    prepare: (store, assetId): Picture[] => {
      const kind = store.assets.byId(assetId)?.kind;
      if (kind === 'document') return store.media.picturePages(assetId).map((p) => ({ timestamp: p.page - 1, page: p.page, file: store.files.abs(p.render_path) }));
      const frames = store.media.frames(assetId).filter((f) => f.kind === (kind === 'video' ? 'keyframe' : 'frame'));
      return frames.sort((a, b) => a.timestamp - b.timestamp).map((f) => ({ timestamp: f.timestamp, page: null, file: store.files.abs(f.path) }));
    },
    save: (store, assetId, output) => {
      store.search.replaceForStage(
        assetId,
        'captions',
        (output as Caption[]).map((c) => ({ modality: 'caption', timestamp: c.timestamp, page: c.page, ref: null, region_id: null, text: c.text })),
      );
    },
  },
);
