// Open-vocabulary detection (OWLv2 through transformers.js, from the models folder only): boxes for
// phrases the closed COCO set lacks ("logo", "sign", a caller's "red helmet"). Each phrase is its own
// query; a box's score for it is a sigmoid, kept at `minConfidence`, overlapping boxes of one phrase
// reduced by non-maximum suppression. Loaded once per process and model.
import { cornersOfArray, iou } from '../geometry.ts';
import { onProvider } from './providers.ts';
import { loadOnce, transformersAt, type TensorLike, shaped } from './transformers.ts';

interface Detector {
  tokenizer: (texts: string[], opts: { padding: boolean; truncation: boolean }) => Record<string, unknown>;
  processor: (images: unknown[]) => Promise<{ pixel_values: unknown }>;
  model: (inputs: Record<string, unknown>) => Promise<{ logits: TensorLike; pred_boxes: TensorLike }>;
  RawImage: new (data: Buffer, w: number, h: number, c: number) => unknown;
}

function detector(modelsRoot: string, model: string): Promise<Detector> {
  return loadOnce(['open-vocabulary', modelsRoot, model], async () => {
    const t = await transformersAt(modelsRoot);
    // transformers.js types its loaded models loosely: name the call shape used here (checked by the tests' stand-ins).
    return {
      tokenizer: shaped<Detector['tokenizer']>(await t.AutoTokenizer.from_pretrained(model)),
      processor: shaped<Detector['processor']>(await t.AutoImageProcessor.from_pretrained(model)),
      model: shaped<Detector['model']>(
        await onProvider(model, (device) => t.AutoModelForZeroShotObjectDetection.from_pretrained(model, { dtype: 'q8', device })),
      ),
      RawImage: shaped<Detector['RawImage']>(t.RawImage),
    };
  });
}

export interface PhraseBox {
  phrase: string;
  score: number;
  /** Corners relative to the square picture given: [x0, y0, x1, y1] in 0..1. */
  box: [number, number, number, number];
}

/**
 * Boxes for `phrases` on one square RGB picture (pad a picture to a square at the bottom and right
 * first, as OWLv2 was trained), best first.
 */
export async function detectPhrases(
  modelsRoot: string,
  model: string,
  square: { data: Buffer; side: number },
  phrases: string[],
  minConfidence: number,
): Promise<PhraseBox[]> {
  if (phrases.length === 0) return [];
  const d = await detector(modelsRoot, model);
  const { pixel_values } = await d.processor([new d.RawImage(square.data, square.side, square.side, 3)]);
  const { logits, pred_boxes } = await d.model({ ...d.tokenizer(phrases, { padding: true, truncation: true }), pixel_values });
  const [, boxes, queries] = logits.dims;
  const found: PhraseBox[] = [];
  for (let j = 0; j < boxes; j++) {
    const [cx, cy, w, h] = pred_boxes.data.subarray(j * 4, j * 4 + 4);
    for (let q = 0; q < queries && q < phrases.length; q++) {
      const score = 1 / (1 + Math.exp(-logits.data[j * queries + q]));
      if (score < minConfidence) continue;
      const clamp = (v: number) => Math.min(1, Math.max(0, v));
      found.push({ phrase: phrases[q], score, box: [clamp(cx - w / 2), clamp(cy - h / 2), clamp(cx + w / 2), clamp(cy + h / 2)] });
    }
  }
  found.sort((a, b) => b.score - a.score);
  const kept: PhraseBox[] = [];
  for (const f of found) if (!kept.some((k) => k.phrase === f.phrase && iou(cornersOfArray(k.box), cornersOfArray(f.box)) > 0.5)) kept.push(f);
  return kept;
}
