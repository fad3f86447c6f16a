// Speech to text with Whisper through transformers.js, from the models folder only (nothing is
// fetched): the pipeline is loaded once per indexer process and model. With language `auto` the
// spoken language is found first, as Whisper does it: the decoder's most likely language token
// after <|startoftranscript|>, over the longest window of speech.
import { deflateSync } from 'node:zlib';
import { modelsDir } from './models.ts';
import { onProvider } from './providers.ts';
import { loadOnce, transformersAt, shaped, type SecondsHeard } from './transformers.ts';

export interface TranscriptSegment {
  start_s: number;
  end_s: number;
  text: string;
}

interface TensorLike {
  data: Float32Array | BigInt64Array;
  dims: number[];
}

type Asr = ((
  audio: Float32Array,
  opts: Record<string, unknown>,
) => Promise<{ text: string; chunks?: Array<{ timestamp: [number, number | null]; text: string }> }>) & {
  processor: (audio: Float32Array) => Promise<{ input_features: TensorLike }>;
  model: ((inputs: Record<string, unknown>) => Promise<{ logits: TensorLike }>) & {
    generation_config: { decoder_start_token_id: number; lang_to_id?: Record<string, number>; is_multilingual?: boolean } | null;
  };
};

function asr(dataDir: string, model: string): Promise<Asr> {
  const root = modelsDir(dataDir);
  return loadOnce(['asr', root, model], async () => {
    const t = await transformersAt(root);
    // transformers.js types its loaded models loosely: name the call shape used here (checked by the tests' stand-ins).
    return shaped<Asr>(await onProvider(model, (device) => t.pipeline('automatic-speech-recognition', model, { dtype: 'q8', device })));
  });
}

/** The language Whisper hears in `audio` (≤ 30 s at 16 kHz), as an ISO 639-1 code; null for an English-only model. */
async function detectLanguage(run: Asr, audio: Float32Array): Promise<string | null> {
  const config = run.model.generation_config;
  if (!config?.is_multilingual || !config.lang_to_id) return null;
  const { Tensor } = await import('@huggingface/transformers');
  const { input_features } = await run.processor(audio);
  const { logits } = await run.model({ input_features, decoder_input_ids: new Tensor('int64', [BigInt(config.decoder_start_token_id)], [1, 1]) });
  const scores = logits.data as Float32Array;
  const offset = scores.length - logits.dims[logits.dims.length - 1];
  let best: [string, number] | null = null;
  for (const [token, id] of Object.entries(config.lang_to_id)) {
    if (!best || scores[offset + id] > best[1]) best = [token, scores[offset + id]];
  }
  return best ? best[0].replace(/^<\|(.+)\|>$/, '$1') : null;
}

export interface Transcript {
  /** The language transcribed: the one asked for, or the one heard when asked for `auto`. */
  language: string | null;
  segments: TranscriptSegment[];
}

/** Whisper hears 30 s at a time. */
export const WINDOW_S = 30;
/** A window of speech shorter than this is not transcribed (Whisper invents words for fragments). */
export const MIN_WINDOW_S = 0.5;

/**
 * The windows Whisper is run on: consecutive speech segments joined while they fit in 30 s (fewer
 * passes, and no fragment padded alone to 30 s of silence), a longer segment cut into 30 s
 * windows; windows under half a second dropped.
 */
export function speechWindows(speech: Array<{ start_s: number; end_s: number }>): Array<[number, number]> {
  const windows: Array<[number, number]> = [];
  for (const s of [...speech].sort((a, b) => a.start_s - b.start_s)) {
    for (let t = s.start_s; t < s.end_s; t += WINDOW_S) {
      const end = Math.min(s.end_s, t + WINDOW_S);
      const last = windows.at(-1);
      if (last && end - last[0] <= WINDOW_S && t >= last[1]) last[1] = end;
      else windows.push([t, end]);
    }
  }
  return windows.filter(([a, b]) => b - a >= MIN_WINDOW_S);
}

/**
 * Transcribes the speech segments of 16 kHz audio (joined into windows of at most 30 s) and returns
 * timed segments on the audio's clock.
 */
export async function transcribe(
  dataDir: string,
  model: string,
  audio: Float32Array,
  speech: Array<{ start_s: number; end_s: number }>,
  language: string,
  /** Told, before each window, how far into the audio the transcript has got (seconds). */
  progress?: SecondsHeard,
): Promise<Transcript> {
  const run = await asr(dataDir, model);
  const windows = speechWindows(speech);
  const slice = ([a, b]: [number, number]) => audio.subarray(Math.floor(a * 16000), Math.ceil(b * 16000));
  const englishOnly = run.model.generation_config?.is_multilingual === false;
  if (englishOnly && language !== 'auto' && language !== 'en') throw new Error(`${model} hears English only; install whisper-base to transcribe "${language}"`);
  const spoken = englishOnly
    ? 'en'
    : language === 'auto'
      ? windows.length
        ? await detectLanguage(run, slice(windows.reduce((x, y) => (y[1] - y[0] > x[1] - x[0] ? y : x))))
        : null
      : language;
  const segments: TranscriptSegment[] = [];
  const total = audio.length / 16000;
  for (const [a, b] of windows) {
    progress?.({ done: a, total, unit: 'seconds' });
    // An English-only model is given no language or task (it has neither token).
    const asked = { return_timestamps: true, ...(spoken && !englishOnly ? { task: 'transcribe', language: spoken } : {}) };
    let r = await run(slice([a, b]), asked);
    // Greedy decoding can fall into a loop ("the the the…"): a window whose text compresses too well
    // is decoded again with repeated three-word runs forbidden and repeats penalised.
    if (compressionRatio(r.text) > LOOPING) r = await run(slice([a, b]), { ...asked, no_repeat_ngram_size: 3, repetition_penalty: 1.2 });
    const chunks = r.chunks?.length ? r.chunks : [{ timestamp: [0, b - a] as [number, number], text: r.text }];
    for (const c of chunks) {
      const text = c.text.trim();
      if (!text) continue;
      segments.push({ start_s: Math.round((a + c.timestamp[0]) * 100) / 100, end_s: Math.round((a + (c.timestamp[1] ?? b - a)) * 100) / 100, text });
    }
  }
  return { language: spoken, segments: withoutRepeats(segments.filter((seg) => heard(seg, speech))) };
}

/** Above this, a window's text is taken for a decoding loop (Whisper's own rule: gzip ratio 2.4). */
export const LOOPING = 2.4;

/** How well a text compresses (bytes over deflated bytes): high for text that repeats itself. */
export function compressionRatio(text: string): number {
  const bytes = Buffer.from(text, 'utf8');
  return bytes.length ? bytes.length / deflateSync(bytes).length : 0;
}

/** Segments without the ones that say again, word for word, what the segment before said. */
export function withoutRepeats(segments: TranscriptSegment[]): TranscriptSegment[] {
  const norm = (t: string) =>
    t
      .toLowerCase()
      .replace(/[^\p{L}\p{N}]+/gu, ' ')
      .trim();
  return segments.filter((s, i) => i === 0 || norm(s.text) !== norm(segments[i - 1].text) || norm(s.text).split(' ').length < 3);
}

/**
 * Whether a segment lies on speech: it overlaps the speech segments by at least 0.2 s or a third of
 * its length. Whisper writes words into the silence at the end of a window ("you", "Thank you."),
 * which no voice said.
 */
export function heard(seg: { start_s: number; end_s: number }, speech: Array<{ start_s: number; end_s: number }>): boolean {
  let overlap = 0;
  for (const s of speech) overlap += Math.max(0, Math.min(seg.end_s, s.end_s) - Math.max(seg.start_s, s.start_s));
  return overlap >= Math.min(0.2, (seg.end_s - seg.start_s) / 3);
}
