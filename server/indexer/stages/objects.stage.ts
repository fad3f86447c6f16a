// objects: boxes of everyday things on photos and on the picture pages of documents (not videos,
// SPEC 2.7), from the closed-set COCO detector (bundled) and, when installed, the open-vocabulary
// detector for the spec's phrases and the caller's `vocabulary` (run: objects.run.ts).
// Writes object regions (with the detector as `source`) and search entries.
import type { Box } from '../../contract/common.ts';
import { BUNDLED_MODELS, OPEN_VOCABULARY_MODEL } from '../../ml/catalogue.ts';
import { picturesOf, type PictureInput } from '../picture-input.ts';
import { ALWAYS_AVAILABLE, defineStage } from '../stage.ts';

/** Phrases SPEC 2.7 asks the open-vocabulary detector about on every picture. */
export const SPEC_PHRASES = ['logo', 'sign', 'screen', 'flag', 'chart', 'diagram', 'map', 'poster', 'helmet'] as const;

export interface FoundObject {
  timestamp: number;
  page: number | null;
  box: Box;
  label: string;
  confidence: number;
  source: 'centernet-coco' | typeof OPEN_VOCABULARY_MODEL;
}

export const objectsStage = defineStage<PictureInput, FoundObject[], 'objects'>({
  name: 'objects',
  version: 2,
  kinds: ['image', 'document'],
  dependsOn: ['extract'],
  model: `${BUNDLED_MODELS.objects}; open vocabulary: ${OPEN_VOCABULARY_MODEL}`,
  combines: [OPEN_VOCABULARY_MODEL],
  availability: ALWAYS_AVAILABLE,
  prepare: picturesOf,
  nothingToDo: (input, asset) => (asset.kind === 'document' && input.pages.length === 0 ? 'no picture pages to look at' : null),
  save(store, assetId, objects) {
    const ids = store.regions.replaceForStage(
      assetId,
      'objects',
      objects.map((o) => ({
        timestamp: o.timestamp,
        kind: 'object' as const,
        ...o.box,
        label: o.label,
        text: null,
        confidence: o.confidence,
        quality: null,
        person_id: null,
        source: o.source,
      })),
    );
    store.search.replaceForStage(
      assetId,
      'objects',
      objects.map((o, i) => ({ modality: 'object', timestamp: o.timestamp, page: o.page, ref: null, region_id: ids[i], text: o.label })),
    );
  },
});
