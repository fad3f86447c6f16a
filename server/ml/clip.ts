// Pictures and words in one space (CLIP through transformers.js, from the models folder only):
// unit-length picture embeddings from the vision half, text embeddings from the text half, and
// zero-shot scores over a list of phrases. Each half is loaded once per process and model.
import { executionProvider } from './providers.ts';

/** CLIP's learned temperature (logit_scale = ln 100): the softmax of zero-shot scores uses it. */
export const CLIP_LOGIT_SCALE = 100;

interface TensorLike {
  data: Float32Array;
  dims: number[];
}
type Callable = (inputs: Record<string, unknown>) => Promise<Record<string, TensorLike>>;
type Processor = (images: unknown[]) => Promise<Record<string, unknown>>;
type Tokenizer = (texts: string[], opts: { padding: boolean; truncation: boolean }) => Record<string, unknown>;

interface Halves {
  vision?: Promise<{ processor: Processor; model: Callable; RawImage: new (data: Uint8ClampedArray | Buffer, w: number, h: number, c: number) => unknown }>;
  text?: Promise<{ tokenizer: Tokenizer; model: Callable }>;
}

const loaded = new Map<string, Halves>();

async function library(modelsRoot: string) {
  const t = await import('@huggingface/transformers');
  t.env.allowRemoteModels = false;
  t.env.allowLocalModels = true;
  t.env.localModelPath = modelsRoot.endsWith('/') ? modelsRoot : `${modelsRoot}/`;
  return t;
}

function halves(modelsRoot: string, model: string): Halves {
  const key = `${modelsRoot}\u0000${model}`;
  let h = loaded.get(key);
  if (!h) loaded.set(key, (h = {}));
  return h;
}

function once<T>(h: Halves, part: 'vision' | 'text', load: () => Promise<T>): Promise<T> {
  let p = h[part] as Promise<T> | undefined;
  if (!p) {
    p = load();
    p.catch(() => delete h[part]);
    (h as Record<string, Promise<T>>)[part] = p;
  }
  return p;
}

function unitRows(t: TensorLike): Float32Array[] {
  const dim = t.dims[t.dims.length - 1];
  const out: Float32Array[] = [];
  for (let i = 0; i < t.data.length / dim; i++) {
    const row = t.data.slice(i * dim, (i + 1) * dim);
    let n = 0;
    for (const v of row) n += v * v;
    n = Math.sqrt(n) || 1;
    for (let j = 0; j < dim; j++) row[j] /= n;
    out.push(row);
  }
  return out;
}

/** One unit vector per RGB picture (interleaved 8-bit, 3 channels). */
export async function embedPictures(modelsRoot: string, model: string, pictures: Array<{ data: Buffer; width: number; height: number }>): Promise<Float32Array[]> {
  if (pictures.length === 0) return [];
  const vision = await once(halves(modelsRoot, model), 'vision', async () => {
    const t = await library(modelsRoot);
    const device = executionProvider();
    return {
      processor: (await t.AutoProcessor.from_pretrained(model)) as unknown as Processor,
      model: (await t.CLIPVisionModelWithProjection.from_pretrained(model, { dtype: 'fp32', device })) as unknown as Callable,
      RawImage: t.RawImage as unknown as NonNullable<Awaited<Halves['vision']>>['RawImage'],
    };
  });
  const images = pictures.map((p) => new vision.RawImage(p.data, p.width, p.height, 3));
  const { image_embeds } = await vision.model(await vision.processor(images));
  return unitRows(image_embeds);
}

/** One unit vector per text, in the pictures' space. */
export async function embedClipTexts(modelsRoot: string, model: string, texts: string[]): Promise<Float32Array[]> {
  if (texts.length === 0) return [];
  const text = await once(halves(modelsRoot, model), 'text', async () => {
    const t = await library(modelsRoot);
    const device = executionProvider();
    return {
      tokenizer: (await t.AutoTokenizer.from_pretrained(model)) as unknown as Tokenizer,
      model: (await t.CLIPTextModelWithProjection.from_pretrained(model, { dtype: 'fp32', device })) as unknown as Callable,
    };
  });
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
