// objects: boxes of everyday things on photos and on the picture pages of documents (not videos,
// SPEC 2.7), from the closed-set COCO detector (bundled) and, when installed, the open-vocabulary
// detector for the spec's phrases and the caller's `vocabulary` (run: objects.run.ts).
// Writes object regions (with the detector as `source`) and search entries.
import type { Box } from '../../contract/common.ts';
import { cornersOfXYWH, iou, unionCorners, type Corners, type XYWH } from '../../geometry.ts';
import type { DetectedObject } from '../../ml/human.ts';
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
  version: 3,
  kinds: ['image', 'document'],
  picturesOnly: true,
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

/** Margin around the people's boxes in the second look, as a share of their union's width and height. */
export const SECOND_LOOK_MARGIN = 0.05;
/** The second look is taken only where it sees the people at least this many times larger than the first. */
export const SECOND_LOOK_MIN_GAIN = 1.25;
/** …and never enlarges the picture's own pixels more than this. */
export const SECOND_LOOK_MAX_ZOOM = 2;
/** …and only at a part of the picture: its long side at most this share of the picture's (not a portrait's whole frame again). */
export const SECOND_LOOK_MAX_PART = 0.8;

/**
 * The tallest person must stand at least this many pixels tall in the second look. Things held or
 * kicked are about a tenth of a person's height, and CenterNet finds little under ≈ 12 px: a look at
 * a street's small walkers (vtest.avi, ≈ 75 px in such a look) finds nothing it can keep.
 */
export const SECOND_LOOK_MIN_PERSON_PX = 128;
/** How near a person's box (a share of its height) a thing the second look finds must be. */
export const SECOND_LOOK_NEAR = 0.1;

/** The part of a picture a second look is taken at, in its pixels, and the side of the square it is seen in. */
export interface SecondLook {
  left: number;
  top: number;
  width: number;
  height: number;
  square: number;
}

/**
 * Where a second look goes: the union of the people found (with a small margin), seen at the
 * detector's input side (`inputSide`), when that makes them at least SECOND_LOOK_MIN_GAIN times larger than the
 * first look did, they fill no more than SECOND_LOOK_MAX_PART of the picture across, and someone
 * stands SECOND_LOOK_MIN_PERSON_PX tall in it; null when no one was found or the look would gain too
 * little (a portrait, a crowd filling the picture, a street's small walkers). CenterNet sees the whole picture at 512 px, where a ball at a footballer's
 * feet is a few pixels across and scored under the threshold (messi5.jpg: 0.43); the people's part
 * seen larger scores it 0.52.
 */
export function secondLookAt(people: readonly XYWH[], width: number, height: number, inputSide: number): SecondLook | null {
  if (people.length === 0) return null;
  const u = unionCorners(people.map(cornersOfXYWH));
  const mx = (u.x1 - u.x0) * SECOND_LOOK_MARGIN;
  const my = (u.y1 - u.y0) * SECOND_LOOK_MARGIN;
  const left = Math.max(0, Math.floor(u.x0 - mx));
  const top = Math.max(0, Math.floor(u.y0 - my));
  const right = Math.min(width, Math.ceil(u.x1 + mx));
  const bottom = Math.min(height, Math.ceil(u.y1 + my));
  const w = right - left;
  const h = bottom - top;
  if (w < 2 || h < 2) return null;
  const long = Math.max(w, h);
  if (long > SECOND_LOOK_MAX_PART * Math.max(width, height)) return null;
  const square = Math.min(inputSide, Math.round(long * SECOND_LOOK_MAX_ZOOM));
  const first = Math.min(1, inputSide / Math.max(width, height));
  if (square / long / first < SECOND_LOOK_MIN_GAIN) return null;
  if (Math.max(...people.map((p) => p[3])) * (square / long) < SECOND_LOOK_MIN_PERSON_PX) return null;
  return { left, top, width: w, height: h, square };
}

/**
 * What the second look adds: its boxes (in the picture's pixels) that the first look has not found
 * (no box of the same label overlapping at IoU ≥ 0.5), of things with someone — their centre in a
 * person's box, grown by SECOND_LOOK_NEAR of its height — and not cut by the look's edge inside the
 * picture (a part of something larger). Things away from people are left to the first look: seen
 * larger, a street's traffic cones pass for sports balls (vtest.avi).
 */
export function addedBySecondLook(
  first: readonly DetectedObject[],
  second: readonly DetectedObject[],
  look: SecondLook,
  size: { width: number; height: number },
): DetectedObject[] {
  const EDGE = 2;
  const people = first.filter((o) => o.label === 'person').map((o) => cornersOfXYWH(o.box));
  const withSomeone = (c: Corners) => {
    const [x, y] = [(c.x0 + c.x1) / 2, (c.y0 + c.y1) / 2];
    return people.some((p) => {
      const m = (p.y1 - p.y0) * SECOND_LOOK_NEAR;
      return x >= p.x0 - m && x <= p.x1 + m && y >= p.y0 - m && y <= p.y1 + m;
    });
  };
  const inner = (c: Corners) =>
    (look.left > 0 && c.x0 <= look.left + EDGE) ||
    (look.top > 0 && c.y0 <= look.top + EDGE) ||
    (look.left + look.width < size.width && c.x1 >= look.left + look.width - EDGE) ||
    (look.top + look.height < size.height && c.y1 >= look.top + look.height - EDGE);
  return second.filter((o) => {
    const c = cornersOfXYWH(o.box);
    return o.label !== 'person' && withSomeone(c) && !inner(c) && !first.some((f) => f.label === o.label && iou(cornersOfXYWH(f.box), c) >= 0.5);
  });
}
