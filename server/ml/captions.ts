// Image captioning (a ViT encoder + GPT-2 decoder, vit-gpt2-image-captioning, through
// transformers.js, from the models folder only): one sentence per picture. Loaded once per process
// and model.
import { onProvider } from './providers.ts';
import { loadOnce, transformersAt, shaped } from './transformers.ts';

interface Captioner {
  run: (image: unknown, opts: Record<string, unknown>) => Promise<Array<{ generated_text: string }>>;
  RawImage: new (data: Buffer, w: number, h: number, c: number) => unknown;
}

function captioner(modelsRoot: string, model: string): Promise<Captioner> {
  return loadOnce(['captions', modelsRoot, model], async () => {
    const t = await transformersAt(modelsRoot);
    // transformers.js types its loaded models loosely: name the call shape used here (checked by the tests' stand-ins).
    return {
      run: shaped<Captioner['run']>(await onProvider(model, (device) => t.pipeline('image-to-text', model, { dtype: 'q8', device }))),
      RawImage: shaped<Captioner['RawImage']>(t.RawImage),
    };
  });
}

/** A sentence describing an RGB picture (interleaved 8-bit, 3 channels); empty when the model says nothing. */
export async function caption(modelsRoot: string, model: string, picture: { data: Buffer; width: number; height: number }): Promise<string> {
  const c = await captioner(modelsRoot, model);
  const [out] = await c.run(new c.RawImage(picture.data, picture.width, picture.height, 3), { max_new_tokens: 30 });
  return (out?.generated_text ?? '').trim();
}

/** A summary of a video's or document's captions: the distinct ones in order of appearance, at most `max`. */
export function summarize(captions: string[], max = 5): string {
  const seen = new Set<string>();
  const kept: string[] = [];
  for (const c of captions) {
    const key = c.toLowerCase();
    if (!c || seen.has(key)) continue;
    seen.add(key);
    kept.push(c);
    if (kept.length === max) break;
  }
  return kept.join('; ');
}
