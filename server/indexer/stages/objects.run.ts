// objects, the run: CenterNet (Human) on each picture, kept at `min_confidence` up to
// `max_regions`. An animal box that is a human face (the detector calls close-up faces cats and
// dogs) is dropped: where an animal is found, faces are looked for too, and an animal box that
// coincides with a face (IoU ≥ 0.7; a pet's own box is its body, far larger than a face) goes. Caller phrases naming a COCO class, or a WordNet synonym of one ("automobile",
// "sofa"), are answered by the closed-set detector. The other phrases (the spec's list and the rest
// of the caller's `vocabulary`) go to the open-vocabulary detector (OWLv2) when it is installed;
// while it is not, the report names the phrases not searched. Where the first look finds people, a
// second look at the part of the picture they stand in, seen larger, finds the small things they
// hold, kick or carry (secondLookAt, objects.stage.ts).
import type { Sharp } from 'sharp';
import { cornersOfXYWH, iou, relativeBox, type XYWH } from '../../geometry.ts';
import { ExtractError } from '../../media/types.ts';
import { COCO_LABELS, OBJECT_INPUT_SIDE, detectFaces, detectObjects, humanRuntime, type DetectedObject } from '../../ml/human.ts';
import { detectPhrases } from '../../ml/open-vocabulary.ts';
import { isInstalled, modelsDir } from '../../ml/models.ts';
import { OPEN_VOCABULARY_MODEL } from '../../ml/catalogue.ts';
import { providerOf } from '../../ml/providers.ts';
import { wordnet } from '../../search/wordnet.ts';
import { pictures } from '../pictures.ts';
import { defineRunner, failedBecause, ok } from '../stage.ts';
import { SPEC_PHRASES, addedBySecondLook, objectsStage, secondLookAt, type FoundObject, type SecondLook } from './objects.stage.ts';

/** The COCO class a phrase names: itself, its singular, or a WordNet synonym of a one-word phrase. */
export function cocoClassFor(phrase: string): string | null {
  const p = phrase.trim().toLowerCase();
  const singular = p.endsWith('s') ? p.slice(0, -1) : p;
  const direct = COCO_LABELS.find((l) => l === p || l === singular);
  if (direct || /\s/.test(p)) return direct ?? null;
  const synonyms = [...wordnet.expand(p)].filter(([, r]) => r === 'synonym').map(([w]) => w);
  return COCO_LABELS.find((l) => synonyms.includes(l)) ?? null;
}

/** COCO classes a face can be taken for. */
const ANIMALS = new Set(['bird', 'cat', 'dog', 'horse', 'sheep', 'cow', 'elephant', 'bear', 'zebra', 'giraffe', 'teddy bear']);
/** Overlap at which an animal box is the face itself. */
export const FACE_IOU = 0.7;

/** The detections that are not a human face taken for an animal (boxes in pixels of the same picture). */
export function notFaces(objects: DetectedObject[], faces: Array<{ box: XYWH }>): DetectedObject[] {
  return objects.filter((o) => !ANIMALS.has(o.label) || !faces.some((f) => iou(cornersOfXYWH(o.box), cornersOfXYWH(f.box)) >= FACE_IOU));
}

/** CenterNet's default confidence (its scores of real objects sit well above it). */
export const CLOSED_SET_MIN_CONFIDENCE = 0.45;
/**
 * OWLv2's default confidence. Its scores of real matches sit around 0.1–0.4 (published examples);
 * this value has not been calibrated here against real OWLv2 weights (docs/models.md, "Thresholds").
 */
export const OPEN_VOCABULARY_MIN_CONFIDENCE = 0.2;

/** CenterNet on a part of a picture (or all of it), padded to a square at its right and bottom; boxes in the picture's pixels. */
async function lookAt(image: Sharp, size: { width: number; height: number }, part: SecondLook | null): Promise<DetectedObject[]> {
  const region = part ?? { left: 0, top: 0, width: size.width, height: size.height };
  const long = Math.max(region.width, region.height);
  // Brought to the detector's own input side here (with a proper filter) rather than inside tf.js;
  // padded at the bottom and right, so boxes keep their coordinates.
  const square = part?.square ?? Math.min(long, OBJECT_INPUT_SIDE);
  const img = part ? image.clone().extract({ left: part.left, top: part.top, width: part.width, height: part.height }) : image.clone();
  const { data } = await img
    .resize(square, square, { fit: 'contain', position: 'left top', background: '#000000' })
    .raw()
    .toBuffer({ resolveWithObject: true });
  const found = await detectObjects(region, { data, width: square, height: square }, long / square);
  return found.map((o) => ({ ...o, box: [o.box[0] + region.left, o.box[1] + region.top, o.box[2], o.box[3]] }));
}

export const runObjects = defineRunner(objectsStage, async ({ asset, options, assetDir, input, dataDir, progress }) => {
  const minConfidence = options.min_confidence ?? CLOSED_SET_MIN_CONFIDENCE;
  // The open-vocabulary detector scores on another scale: its own default unless the caller sets one.
  const minPhraseConfidence = options.min_confidence ?? OPEN_VOCABULARY_MIN_CONFIDENCE;
  const maxRegions = options.max_regions ?? 50;
  const vocabulary = options.vocabulary ?? [];
  const closedSet = vocabulary.map((p) => [p, cocoClassFor(p)] as const);
  const openPhrases = [...new Set([...SPEC_PHRASES, ...closedSet.filter(([, c]) => c === null).map(([p]) => p.trim())])];
  const open = isInstalled(dataDir, OPEN_VOCABULARY_MODEL);
  const found: FoundObject[] = [];
  let frames = 0;
  let facesNotAnimals = 0;
  let secondLooks = 0;
  let foundInSecondLooks = 0;
  try {
    for await (const pic of pictures(asset, assetDir, input, 1, progress)) {
      frames++;
      const { width, height } = pic.size;
      const side = Math.max(width, height);
      let detected = (await lookAt(pic.image, pic.size, null)).filter((o) => o.score >= minConfidence);
      const second = secondLookAt(
        detected.filter((o) => o.label === 'person').map((o) => o.box),
        width,
        height,
        OBJECT_INPUT_SIDE,
      );
      if (second) {
        secondLooks++;
        const more = addedBySecondLook(
          detected,
          (await lookAt(pic.image, pic.size, second)).filter((o) => o.score >= minConfidence),
          second,
          pic.size,
        );
        foundInSecondLooks += more.length;
        detected = [...detected, ...more];
      }
      if (detected.some((o) => ANIMALS.has(o.label))) {
        const kept = notFaces(detected, await detectFaces(await pic.pixels(), undefined, { whereOnly: true }));
        facesNotAnimals += detected.length - kept.length;
        detected = kept;
      }
      const here: FoundObject[] = detected.map((o) => ({
        timestamp: pic.timestamp,
        page: pic.page,
        label: o.label,
        confidence: Math.round(o.score * 1000) / 1000,
        box: relativeBox(cornersOfXYWH(o.box), { width, height }),
        source: 'centernet-coco' as const,
      }));
      if (open) {
        // OWLv2 was trained on pictures padded with gray (0.5), not black.
        const { data: gray } = await pic.image
          .clone()
          .extend({ right: side - width, bottom: side - height, background: { r: 128, g: 128, b: 128 } })
          .raw()
          .toBuffer({ resolveWithObject: true });
        // Boxes come relative to the padded square: back to the picture's own width and height.
        for (const b of await detectPhrases(modelsDir(dataDir), OPEN_VOCABULARY_MODEL, { data: gray, side }, openPhrases, minPhraseConfidence)) {
          const [x0, y0, x1, y1] = [b.box[0] * side, b.box[1] * side, Math.min(width, b.box[2] * side), Math.min(height, b.box[3] * side)];
          if (x1 <= x0 || y1 <= y0) continue;
          here.push({
            timestamp: pic.timestamp,
            page: pic.page,
            label: b.phrase,
            confidence: Math.round(b.score * 1000) / 1000,
            box: relativeBox({ x0, y0, x1, y1 }, { width, height }),
            source: OPEN_VOCABULARY_MODEL,
          });
        }
      }
      found.push(...here.sort((a, b) => b.confidence - a.confidence).slice(0, maxRegions));
    }
  } catch (err) {
    if (err instanceof ExtractError) return failedBecause(err);
    throw err;
  }
  const answered = {
    phrases_answered_by_closed_set: Object.fromEntries(closedSet.filter(([, c]) => c !== null)),
    ...(facesNotAnimals ? { faces_not_taken_for_animals: facesNotAnimals } : {}),
    second_looks: secondLooks,
    found_in_second_looks: foundInSecondLooks,
  };
  return ok(
    { frames, objects: found.length, open_vocabulary: found.filter((f) => f.source !== 'centernet-coco').length },
    found,
    open
      ? {
          closed_set: 'centernet-coco',
          open_vocabulary: OPEN_VOCABULARY_MODEL,
          provider: providerOf(OPEN_VOCABULARY_MODEL),
          phrases_searched: openPhrases,
          ...answered,
        }
      : {
          closed_set: 'centernet-coco',
          ...humanRuntime('centernet'),
          open_vocabulary: `model_not_installed: ${OPEN_VOCABULARY_MODEL}`,
          phrases_not_searched: openPhrases,
          ...answered,
        },
  );
});
