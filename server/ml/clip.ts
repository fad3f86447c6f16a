// Pictures and words in one space (CLIP through transformers.js, from the models folder only):
// unit-length picture embeddings from the vision half, text embeddings from the text half, and
// zero-shot scores over a list of phrases. Each half is loaded once per process and model.
import { onProvider } from './providers.ts';
import { loadOnce, transformersAt, unitRows, type TensorLike, shaped } from './transformers.ts';

/** CLIP's learned temperature (logit_scale = ln 100): the softmax of zero-shot scores uses it. */
export const CLIP_LOGIT_SCALE = 100;

type Callable = (inputs: Record<string, unknown>) => Promise<Record<string, TensorLike>>;
type Processor = (images: unknown[]) => Promise<Record<string, unknown>>;
type Tokenizer = (texts: string[], opts: { padding: boolean; truncation: boolean }) => Record<string, unknown>;

type RawImageClass = new (data: Uint8ClampedArray | Buffer, w: number, h: number, c: number) => unknown;

function visionHalf(modelsRoot: string, model: string) {
  return loadOnce(['clip-vision', modelsRoot, model], async () => {
    const t = await transformersAt(modelsRoot);
    // transformers.js types its loaded models loosely: name the call shape used here (checked by the tests' stand-ins).
    return {
      processor: shaped<Processor>(await t.AutoProcessor.from_pretrained(model)),
      model: shaped<Callable>(await onProvider(model, (device) => t.CLIPVisionModelWithProjection.from_pretrained(model, { dtype: 'fp32', device }))),
      RawImage: shaped<RawImageClass>(t.RawImage),
    };
  });
}

function textHalf(modelsRoot: string, model: string) {
  return loadOnce(['clip-text', modelsRoot, model], async () => {
    const t = await transformersAt(modelsRoot);
    // transformers.js types its loaded models loosely: name the call shape used here (checked by the tests' stand-ins).
    return {
      tokenizer: shaped<Tokenizer>(await t.AutoTokenizer.from_pretrained(model)),
      model: shaped<Callable>(await onProvider(model, (device) => t.CLIPTextModelWithProjection.from_pretrained(model, { dtype: 'fp32', device }))),
    };
  });
}

/** One unit vector per RGB picture (interleaved 8-bit, 3 channels). */
export async function embedPictures(
  modelsRoot: string,
  model: string,
  pictures: Array<{ data: Buffer; width: number; height: number }>,
): Promise<Float32Array[]> {
  if (pictures.length === 0) return [];
  const vision = await visionHalf(modelsRoot, model);
  const images = pictures.map((p) => new vision.RawImage(p.data, p.width, p.height, 3));
  const { image_embeds } = await vision.model(await vision.processor(images));
  return unitRows(image_embeds);
}

/** One unit vector per text, in the pictures' space. */
export async function embedClipTexts(modelsRoot: string, model: string, texts: string[]): Promise<Float32Array[]> {
  if (texts.length === 0) return [];
  const text = await textHalf(modelsRoot, model);
  const { text_embeds } = await text.model(text.tokenizer(texts, { padding: true, truncation: true }));
  return unitRows(text_embeds);
}

/** Zero-shot: for each picture vector, the softmax over `phrases` (given as unit text vectors). */
export function zeroShot(picture: Float32Array, phrases: Float32Array[]): number[] {
  const logits = phrases.map((p) => {
    let dot = 0;
    for (let i = 0; i < p.length; i++) dot += p[i] * picture[i];
    return dot * CLIP_LOGIT_SCALE;
  });
  const max = Math.max(...logits);
  const exp = logits.map((l) => Math.exp(l - max));
  const sum = exp.reduce((a, b) => a + b, 0);
  return exp.map((e) => e / sum);
}

/**
 * What CLIP was trained to match a picture against: a caption, "a photo of a dog.", not a bare word.
 * A description that already reads as one ("a photo of…", "two dogs on a beach") is kept as written
 * after the prefix; a bare noun gets its article.
 */
export function photoPrompt(what: string): string {
  const w = what.trim().replace(/[.!?]+$/, '');
  if (/^(an? |the )?(photo|picture|image|snapshot)s? of\b/i.test(w)) return `${w}.`;
  if (/^(an?|the|some|two|three|many|several|\d+)\b/i.test(w) || /\s/.test(w) || /s$/i.test(w)) return `a photo of ${w}.`;
  return `a photo of ${/^[aeiou]/i.test(w) ? 'an' : 'a'} ${w}.`;
}
