// ocr: text with boxes, read by tesseract (English by default, Hindi when asked; run: ocr.run.ts),
// photos and frames by PP-OCR where its model (ppocr-v6) is installed.
// Photos: the original or the normalized frame. Documents: pages extract marked `needs_ocr`
// (scans, broken text layers); their text and passages are replaced and the text-layer lines of
// those pages are superseded. Videos: frames sampled at `fps`.
// Writes text regions, page text/passages (documents) and search entries.
import type { Box } from '../../contract/common.ts';
import type { AssetKind } from '../../contract/assets.ts';
import type { NewEntry } from '../../store/search.repo.ts';
import { BUNDLED_MODELS, PHOTO_TEXT_MODEL } from '../../ml/catalogue.ts';
import { ALWAYS_AVAILABLE, defineStage } from '../stage.ts';

export interface ReadLine {
  text: string;
  box: Box;
  confidence: number;
}
export interface ReadParagraph {
  text: string;
  box: Box;
  lines: ReadLine[];
  /** A document's running head or foot met on an earlier page read: shown on its page, searched only on the first (as text layers' are). */
  repeated?: boolean;
}
export interface ReadFrame {
  timestamp: number;
  page: number | null;
  paragraphs: ReadParagraph[];
}
export interface OcrOutput {
  kind: AssetKind;
  frames: ReadFrame[];
}

/** The pages of a document that need reading (no usable text layer). */
type PagesToRead = number[];

export const ocrStage = defineStage<PagesToRead, OcrOutput, 'ocr'>({
  name: 'ocr',
  version: 3,
  kinds: ['video', 'image', 'document'],
  picturesOnly: true,
  // A video's frames are those its shots pass kept (media/types.ts, SAMPLED_DIR); without it, its own.
  dependsOn: ['extract', 'shots'],
  requires: ['extract'],
  model: `${BUNDLED_MODELS.ocr}; photos and frames: ${PHOTO_TEXT_MODEL} where installed`,
  combines: [PHOTO_TEXT_MODEL],
  // Pages of documents are read by tesseract whatever is installed.
  combinesKinds: ['image', 'video'],
  availability: ALWAYS_AVAILABLE,
  prepare: (store, assetId) => store.media.pagesNeedingOcr(assetId),
  nothingToDo: (pages, asset) => {
    if (asset.kind !== 'document') return null;
    if (pages.length === 0) return 'every page has a usable text layer';
    return asset.ext === '.pdf' ? null : 'only PDF pages are read by OCR';
  },
  save(store, assetId, out) {
    const regions = out.frames.flatMap((f) =>
      f.paragraphs.flatMap((p) =>
        p.lines.map((l) => ({
          timestamp: f.timestamp,
          kind: 'text' as const,
          ...l.box,
          label: null,
          text: l.text,
          confidence: l.confidence,
          quality: null,
          person_id: null,
          source: 'ocr',
        })),
      ),
    );
    const ids = store.regions.replaceForStage(assetId, 'ocr', regions);
    const entries: NewEntry[] = [];
    if (out.kind === 'document') {
      for (const f of out.frames) {
        const page = f.page ?? f.timestamp + 1;
        const passages = f.paragraphs.map((p, idx) => ({ idx, text: p.text, ...p.box, source: 'ocr' }));
        store.media.replacePageText(assetId, page, f.paragraphs.map((p) => p.text).join('\n\n'), 'ocr', passages);
        store.regions.deleteAt(assetId, 'extract', f.timestamp);
        store.search.deleteForPage(assetId, 'extract', page);
        passages.forEach((p, i) => {
          if (!f.paragraphs[i].repeated) entries.push({ modality: 'passage', timestamp: f.timestamp, page, ref: p.idx, region_id: null, text: p.text });
        });
      }
    } else {
      // A caption on screen for many seconds is one piece of evidence, at its first appearance.
      let previous = new Set<string>();
      let i = 0;
      for (const f of out.frames) {
        const seen = new Set<string>();
        for (const p of f.paragraphs) {
          for (const l of p.lines) {
            const key = l.text.toLowerCase();
            seen.add(key);
            if (!previous.has(key)) entries.push({ modality: 'ocr', timestamp: f.timestamp, page: null, ref: null, region_id: ids[i], text: l.text });
            i++;
          }
        }
        previous = seen;
      }
    }
    store.search.replaceForStage(assetId, 'ocr', entries);
  },
});
