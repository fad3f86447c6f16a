// What the picture stages (faces, objects, embeddings) look at, read from the store on the host:
// a photo's normalized frame with its scale, or the picture pages of a document. Videos are
// sampled by the run itself (pictures.ts).
import type { Store } from '../store/index.ts';

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
