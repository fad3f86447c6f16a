// The GE2E speaker encoder (resemblyzer's, as ONNX: three LSTM layers over 40 mel bands, a unit
// vector of 256 out) and its front end, written to match resemblyzer's: the recording's volume brought
// to -30 dBFS, a power mel spectrogram of 25 ms Hann windows every 10 ms (centred, zero-padded;
// Slaney mel scale and area normalisation, as librosa makes it), each window of speech embedded from
// its own frames. The session is loaded once per process and model folder.
import fs from 'node:fs';
import path from 'node:path';
import { ortSession } from './providers.ts';
import { loadOnce, type SecondsHeard } from './transformers.ts';

export interface Ge2eConfig {
  model_type: 'ge2e';
  sampling_rate: number;
  n_fft: number;
  hop_length: number;
  n_mels: number;
  target_dbfs: number;
}

/** The folder's config when it holds a GE2E encoder, else null. */
export function ge2eConfig(dir: string): Ge2eConfig | null {
  try {
    const c = JSON.parse(fs.readFileSync(path.join(dir, 'config.json'), 'utf8')) as Partial<Ge2eConfig>;
    return c.model_type === 'ge2e' ? (c as Ge2eConfig) : null;
  } catch {
    return null;
  }
}

const hzToMel = (f: number) => (f < 1000 ? (3 * f) / 200 : 15 + Math.log(f / 1000) / (Math.log(6.4) / 27));
const melToHz = (m: number) => (m < 15 ? (200 * m) / 3 : 1000 * Math.exp((Math.log(6.4) / 27) * (m - 15)));

/** Triangular filters on the Slaney mel scale from 0 Hz to Nyquist, each scaled to unit area (librosa's `norm='slaney'`). */
export function melFilters(rate: number, nFft: number, nMels: number): Float64Array[] {
  const bins = nFft / 2 + 1;
  const freqs = Array.from({ length: bins }, (_, i) => (i * rate) / nFft);
  const top = hzToMel(rate / 2);
  const edges = Array.from({ length: nMels + 2 }, (_, i) => melToHz((i * top) / (nMels + 1)));
  return Array.from({ length: nMels }, (_, m) => {
    const row = new Float64Array(bins);
    const [lo, mid, hi] = [edges[m], edges[m + 1], edges[m + 2]];
    const norm = 2 / (hi - lo);
    for (let k = 0; k < bins; k++) row[k] = Math.max(0, Math.min((freqs[k] - lo) / (mid - lo), (hi - freqs[k]) / (hi - mid))) * norm;
    return row;
  });
}

/**
 * The power mel spectrogram of `audio` (one Float32Array of `n_mels` per 10 ms frame, frame k centred
 * on sample k·hop), its loudness first brought to the target over the samples of `loudnessFrom`.
 */
export function melFrames(audio: Float32Array, c: Ge2eConfig, loudnessFrom: Float32Array = audio): Float32Array[] {
  let energy = 0;
  for (const v of loudnessFrom) energy += v * v;
  const rmsDb = 10 * Math.log10(energy / Math.max(1, loudnessFrom.length) + 1e-20);
  const gain = 10 ** ((c.target_dbfs - rmsDb) / 20);
  const { n_fft: n, hop_length: hop } = c;
  const bins = n / 2 + 1;
  const window = Float64Array.from({ length: n }, (_, i) => 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / n));
  const cos = new Float64Array(bins * n);
  const sin = new Float64Array(bins * n);
  for (let k = 0; k < bins; k++)
    for (let i = 0; i < n; i++) {
      const a = (2 * Math.PI * ((k * i) % n)) / n;
      cos[k * n + i] = Math.cos(a);
      sin[k * n + i] = Math.sin(a);
    }
  const filters = melFilters(c.sampling_rate, n, c.n_mels);
  const count = 1 + Math.floor(audio.length / hop);
  const frame = new Float64Array(n);
  const power = new Float64Array(bins);
  const out: Float32Array[] = [];
  for (let f = 0; f < count; f++) {
    const start = f * hop - n / 2;
    for (let i = 0; i < n; i++) {
      const j = start + i;
      frame[i] = j >= 0 && j < audio.length ? audio[j] * gain * window[i] : 0;
    }
    for (let k = 0; k < bins; k++) {
      let re = 0;
      let im = 0;
      const row = k * n;
      for (let i = 0; i < n; i++) {
        re += frame[i] * cos[row + i];
        im -= frame[i] * sin[row + i];
      }
      power[k] = re * re + im * im;
    }
    const mel = new Float32Array(c.n_mels);
    for (let m = 0; m < c.n_mels; m++) {
      let s = 0;
      const w = filters[m];
      for (let k = 0; k < bins; k++) s += w[k] * power[k];
      mel[m] = s;
    }
    out.push(mel);
  }
  return out;
}

type Ort = typeof import('onnxruntime-node');

function session(dir: string): Promise<{ ort: Ort; run: import('onnxruntime-node').InferenceSession }> {
  return loadOnce(['ge2e', dir], async () => {
    const ort = await import('onnxruntime-node');
    const run = await ortSession('ge2e-resemblyzer', path.join(dir, 'onnx', 'model.onnx'));
    return { ort, run };
  });
}

/**
 * One unit vector per window of 16 kHz audio: the window's frames of the recording's mel spectrogram
 * (loudness taken over `speech`, the stretches where someone talks) through the encoder.
 */
export async function ge2eEmbeddings(
  dir: string,
  c: Ge2eConfig,
  audio: Float32Array,
  windows: Array<{ start_s: number; end_s: number }>,
  speech: Array<{ start_s: number; end_s: number }> = [{ start_s: 0, end_s: audio.length / c.sampling_rate }],
  progress?: SecondsHeard,
): Promise<Float32Array[]> {
  if (windows.length === 0) return [];
  const { ort, run } = await session(dir);
  const rate = c.sampling_rate;
  const spoken = speech.map((s) => audio.subarray(Math.floor(s.start_s * rate), Math.ceil(s.end_s * rate)));
  const loudness = new Float32Array(spoken.reduce((n, s) => n + s.length, 0));
  spoken.reduce((at, s) => (loudness.set(s, at), at + s.length), 0);
  // Only the frames the windows need are computed.
  const perSecond = rate / c.hop_length;
  const from = Math.max(0, Math.round(Math.min(...windows.map((w) => w.start_s)) * perSecond));
  const to = Math.round(Math.max(...windows.map((w) => w.end_s)) * perSecond);
  // A margin of whole frames on each side, so that the frames kept are those of the whole recording.
  const margin = Math.ceil(c.n_fft / c.hop_length);
  const first = Math.max(0, from - margin);
  const mel = melFrames(audio.subarray(first * c.hop_length, Math.min(audio.length, (to + margin) * c.hop_length)), c, loudness);
  const shift = -first;
  const out: Float32Array[] = [];
  for (const w of windows) {
    // The recording's seconds before this window.
    progress?.({ done: w.start_s, total: audio.length / rate, unit: 'seconds' });
    const a = Math.round(w.start_s * perSecond) + shift;
    const frames = mel.slice(a, Math.max(a + 1, Math.round(w.end_s * perSecond) + shift));
    const data = new Float32Array(frames.length * c.n_mels);
    frames.forEach((f, i) => data.set(f, i * c.n_mels));
    const result = await run.run({ mels: new ort.Tensor('float32', data, [1, frames.length, c.n_mels]) });
    out.push(Float32Array.from(result.embedding.data as Float32Array));
  }
  return out;
}
