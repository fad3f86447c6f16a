// Sound events with an Audio Spectrogram Transformer fine-tuned on AudioSet (transformers.js, from
// the models folder only). AudioSet is multi-label, so each label's score is its own sigmoid, not a
// share of a softmax. Loaded once per process and model.
import { onProvider } from './providers.ts';
import { loadOnce, transformersAt, type SecondsHeard, type TensorLike, shaped } from './transformers.ts';

/** AST looks at 1024 frames of 10 ms: windows of 10.24 s of 16 kHz audio. */
export const WINDOW_S = 10.24;
const RATE = 16000;

interface Tagger {
  extract: (audio: Float32Array, opts: { sampling_rate: number }) => Promise<Record<string, unknown>>;
  model: (inputs: Record<string, unknown>) => Promise<{ logits: TensorLike }>;
  labels: Record<string, string>;
}

function tagger(modelsRoot: string, model: string): Promise<Tagger> {
  return loadOnce(['sounds', modelsRoot, model], async () => {
    const t = await transformersAt(modelsRoot);
    const extractor = await t.AutoFeatureExtractor.from_pretrained(model);
    const m = await onProvider(model, (device) => t.AutoModelForAudioClassification.from_pretrained(model, { dtype: 'q8', device }));
    // transformers.js types its loaded models loosely: name the call shape used here (checked by the tests' stand-ins).
    return {
      extract: shaped<Tagger['extract']>(extractor),
      model: shaped<Tagger['model']>(m),
      labels: shaped<{ id2label: Record<string, string> }>(m.config).id2label,
    };
  });
}

export interface SoundEvent {
  label: string;
  start_s: number;
  end_s: number;
  confidence: number;
}

/**
 * Tags each 10.24 s window of 16 kHz audio with the labels scoring at least `minConfidence` (at
 * most `perWindow` of them), and joins a label found in consecutive windows into one event.
 */
export async function soundEvents(
  modelsRoot: string,
  model: string,
  audio: Float32Array,
  minConfidence: number,
  perWindow = 5,
  progress?: SecondsHeard,
): Promise<{ windows: number; events: SoundEvent[] }> {
  const tag = await tagger(modelsRoot, model);
  const step = Math.round(WINDOW_S * RATE);
  const open = new Map<string, SoundEvent>();
  const events: SoundEvent[] = [];
  let windows = 0;
  for (let from = 0; from < audio.length; from += step) {
    const slice = audio.subarray(from, Math.min(audio.length, from + step));
    if (slice.length < RATE / 2) break; // less than half a second left
    // The seconds heard before this window.
    progress?.({ done: from / RATE, total: audio.length / RATE, unit: 'seconds' });
    windows++;
    const { logits } = await tag.model(await tag.extract(slice, { sampling_rate: RATE }));
    const found = Array.from(logits.data, (l, i) => ({ label: tag.labels[i] ?? `class ${i}`, score: 1 / (1 + Math.exp(-l)) }))
      .filter((x) => x.score >= minConfidence)
      .sort((a, b) => b.score - a.score)
      .slice(0, perWindow);
    const start = from / RATE;
    const end = Math.round(((from + slice.length) / RATE) * 100) / 100;
    const seen = new Set<string>();
    for (const f of found) {
      seen.add(f.label);
      const e = open.get(f.label);
      if (e) {
        e.end_s = end;
        e.confidence = Math.max(e.confidence, Math.round(f.score * 1000) / 1000);
      } else {
        const ev = { label: f.label, start_s: Math.round(start * 100) / 100, end_s: end, confidence: Math.round(f.score * 1000) / 1000 };
        open.set(f.label, ev);
        events.push(ev);
      }
    }
    for (const label of [...open.keys()]) if (!seen.has(label)) open.delete(label);
  }
  return { windows, events: events.sort((a, b) => a.start_s - b.start_s || b.confidence - a.confidence) };
}
