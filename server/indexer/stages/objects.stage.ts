// objects: boxes of everyday things on photos and on the picture pages of documents (not videos,
// SPEC 2.7), from the closed-set COCO detector (CenterNet in Human, bundled), kept at
// `min_confidence` up to `max_regions`. The open-vocabulary phrases (the spec's list and the
// caller's `vocabulary`) need the open-vocabulary model; while it is not installed the report says
// so, and caller phrases naming a COCO class are answered by the closed-set detector.
// Writes object regions and search entries.
import { clampBox } from '../../media/layout.ts';
import { ExtractError } from '../../media/types.ts';
import { COCO_LABELS, detectObjects } from '../../ml/human.ts';
import type { Box } from '../../contract/common.ts';
import { picturesOf, pictures, type PictureInput } from '../pictures.ts';
import { ALWAYS_AVAILABLE, failed, notApplicable, ok, type StageDefinition } from '../stage.ts';

/** Phrases SPEC 2.7 asks the open-vocabulary detector about on every picture. */
export const SPEC_PHRASES = ['logo', 'sign', 'screen', 'flag', 'chart', 'diagram', 'map', 'poster', 'helmet'] as const;
export const OPEN_VOCABULARY_MODEL = 'owlv2-base-patch16';

interface FoundObject {
  timestamp: number;
  page: number | null;
  box: Box;
  label: string;
  confidence: number;
}

function cocoClassFor(phrase: string): string | null {
  const p = phrase.trim().toLowerCase();
  const singular = p.endsWith('s') ? p.slice(0, -1) : p;
  return COCO_LABELS.find((l) => l === p || l === singular) ?? null;
}

export const objectsStage: StageDefinition = {
  name: 'objects',
  version: 1,
  kinds: ['image', 'document'],
  dependsOn: ['extract'],
  model: 'CenterNet COCO (Human, bundled); open vocabulary: ' + OPEN_VOCABULARY_MODEL,
  availability: ALWAYS_AVAILABLE,
  prepare: picturesOf,
  async run({ asset, options, assetDir, input }) {
    const minConfidence = Number(options.min_confidence ?? 0.45);
    const maxRegions = Number(options.max_regions ?? 50);
    const vocabulary = (options.vocabulary as string[] | undefined) ?? [];
    const pics = input as PictureInput;
    if (asset.kind === 'document' && pics.pages.length === 0) return notApplicable('no picture pages to look at');

    const closedSet = vocabulary.map((p) => [p, cocoClassFor(p)] as const);
    const found: FoundObject[] = [];
    let frames = 0;
    try {
      for await (const pic of pictures(asset, assetDir, pics, 1)) {
        frames++;
        const { width, height } = pic.rgb;
        const side = Math.max(width, height);
        // Padded to a square at the bottom and right, so boxes keep their pixel coordinates.
        const { data } = await pic.image
          .clone()
          .extend({ right: side - width, bottom: side - height, background: '#000000' })
          .raw()
          .toBuffer({ resolveWithObject: true });
        const objects = await detectObjects(pic.rgb, { data, width: side, height: side });
        objects
          .filter((o) => o.score >= minConfidence)
          .sort((a, b) => b.score - a.score)
          .slice(0, maxRegions)
          .forEach((o) =>
            found.push({
              timestamp: pic.timestamp,
              page: pic.page,
              label: o.label,
              confidence: Math.round(o.score * 1000) / 1000,
              box: clampBox({ x: o.box[0] / width, y: o.box[1] / height, w: o.box[2] / width, h: o.box[3] / height }),
            }),
          );
      }
    } catch (err) {
      if (err instanceof ExtractError) return failed(err.reason);
      throw err;
    }
    return ok({ frames, objects: found.length }, found, {
      closed_set: 'centernet-coco',
      open_vocabulary: `model_not_installed: ${OPEN_VOCABULARY_MODEL}`,
      phrases_not_searched: [...SPEC_PHRASES, ...closedSet.filter(([, c]) => c === null).map(([p]) => p)],
      phrases_answered_by_closed_set: Object.fromEntries(closedSet.filter(([, c]) => c !== null)),
    });
  },
  save(store, assetId, output) {
    const objects = output as FoundObject[];
    const ids = store.regions.replaceForStage(
      assetId,
      'objects',
      objects.map((o) => ({
        timestamp: o.timestamp, kind: 'object' as const, ...o.box, label: o.label, text: null,
        confidence: o.confidence, quality: null, person_id: null, source: 'centernet-coco',
      })),
    );
    store.search.replaceForStage(
      assetId,
      'objects',
      objects.map((o, i) => ({ modality: 'object', timestamp: o.timestamp, page: o.page, ref: null, region_id: ids[i], text: o.label })),
    );
  },
};
