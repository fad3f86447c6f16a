// Speech to text with Whisper through transformers.js, from the models folder only (nothing is
// fetched): the pipeline is loaded once per indexer process and model.
import { modelsDir } from './models.ts';
import { executionProvider } from './providers.ts';

export interface TranscriptSegment {
  start_s: number;
  end_s: number;
  text: string;
}

type Asr = (audio: Float32Array, opts: Record<string, unknown>) => Promise<{ text: string; chunks?: Array<{ timestamp: [number, number | null]; text: string }> }>;

const loaded = new Map<string, Promise<Asr>>();

async function asr(dataDir: string, model: string): Promise<Asr> {
  let p = loaded.get(model);
  if (!p) {
    p = (async () => {
      const { pipeline, env } = await import('@huggingface/transformers');
      env.allowRemoteModels = false;
      env.allowLocalModels = true;
      env.localModelPath = `${modelsDir(dataDir)}/`;
      const device = executionProvider();
      return (await pipeline('automatic-speech-recognition', model, { dtype: 'q8', device: device === 'dml' ? 'dml' : device })) as unknown as Asr;
    })();
    p.catch(() => loaded.delete(model));
    loaded.set(model, p);
  }
  return p;
}

/**
 * Transcribes the speech segments of 16 kHz audio (each cut to at most 30 s windows) and returns
 * timed segments on the audio's clock.
 */
export async function transcribe(
  dataDir: string,
  model: string,
  audio: Float32Array,
  speech: Array<{ start_s: number; end_s: number }>,
  language: string,
): Promise<TranscriptSegment[]> {
  const run = await asr(dataDir, model);
  const windows: Array<[number, number]> = [];
  for (const s of speech) {
    for (let t = s.start_s; t < s.end_s; t += 30) windows.push([t, Math.min(s.end_s, t + 30)]);
  }
  const out: TranscriptSegment[] = [];
  for (const [a, b] of windows) {
    const slice = audio.subarray(Math.floor(a * 16000), Math.ceil(b * 16000));
    const r = await run(slice, { return_timestamps: true, task: 'transcribe', ...(language === 'auto' ? {} : { language }) });
    const chunks = r.chunks?.length ? r.chunks : [{ timestamp: [0, b - a] as [number, number], text: r.text }];
    for (const c of chunks) {
      const text = c.text.trim();
      if (!text) continue;
      out.push({ start_s: Math.round((a + c.timestamp[0]) * 100) / 100, end_s: Math.round((a + (c.timestamp[1] ?? b - a)) * 100) / 100, text });
    }
  }
  return out;
}
