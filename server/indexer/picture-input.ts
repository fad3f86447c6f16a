// What the picture stages (faces, objects, embeddings) look at, read from the store on the host:
// a photo's normalized frame with its scale, or the picture pages of a document. Videos are
// sampled by the run itself (pictures.ts).
import type { Store } from '../store/index.ts';

/** The stages that look at a video's frames, each at a rate of its own (frames a second); objects looks at none. */
export const VIDEO_PICTURE_STAGES = ['ocr', 'faces', 'embeddings'] as const;
export type VideoPictureStage = (typeof VIDEO_PICTURE_STAGES)[number];

/**
 * The rate each picture stage samples a video at, where its values say none (ocr's and faces' are
 * their `fps`, whose defaults these are: contract/stages.ts; a worker loads no schema).
 */
const VIDEO_FPS: Record<VideoPictureStage, number> = { ocr: 0.5, faces: 1, embeddings: 0.5 };

/** The rate a picture stage samples a video at, given its values. */
export function videoFps(stage: VideoPictureStage, values: { fps?: unknown } = {}): number {
  return stage !== 'embeddings' && typeof values.fps === 'number' ? values.fps : VIDEO_FPS[stage];
}

export interface PictureInput {
  /** For photos: original width over the analysed frame's width (sizes are judged in original pixels). */
  scale: number;
  pages: Array<{ page: number; file: string }>;
  /**
   * For documents: its pages are shown upright. A document with text of its own (a text layer) was
   * laid out by a program, its pictures placed as they are seen; a document of scans alone may hold
   * a page scanned sideways.
   */
  upright: boolean;
}

export function picturesOf(store: Store, assetId: string): PictureInput {
  const asset = store.assets.byId(assetId);
  const frame = store.media.frames(assetId).find((f) => f.kind === 'frame');
  const scale = asset?.width && frame?.width ? asset.width / frame.width : 1;
  const pages = store.media.picturePages(assetId).map((p) => ({ page: p.page, file: store.files.abs(p.render_path) }));
  return { scale, pages, upright: pages.length > 0 && store.media.hasOwnText(assetId) };
}
