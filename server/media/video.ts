// Videos through ffmpeg. Phase 1 (extract): the container probed and a poster frame drawn from the
// middle, the thumbnail made of it. Phase 2 (the `shots` stage): one decoding pass that finds shot
// boundaries (scene-change score) and writes 16 kHz mono PCM audio for the audio stages; then a
// keyframe per shot; in the same pass, the frames the picture stages sample (ocr, faces,
// embeddings) are kept for them (sampledFrames), so that a video is decoded once, not once a stage.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { limits } from '../config.ts';
import { findFfmpeg, ffmpegFailure, runTool, type FfmpegTools } from './ffmpeg.ts';
import {
  ExtractError,
  MAX_SAMPLE_FPS,
  SAMPLED_DIR,
  THUMB_LONG_SIDE,
  type ExtractOutput,
  type Frame,
  type Shot,
  type VideoShots,
  type VideoStreams,
} from './types.ts';

export const SCENE_THRESHOLD = 0.3;
export const MIN_SHOT_S = 0.5;
export const MAX_SHOTS = 2000;
export const KEYFRAME_LONG_SIDE = 1280;
export const AUDIO_RATE = 16_000;
/** Beside the frames the shots pass keeps (SAMPLED_DIR): at what rate, how many and how large. */
const SAMPLED_INDEX = 'frames.json';
/**
 * The most frames it keeps, all rates together (10 minutes at the default one and a half a second;
 * a 1280 × 720 frame of camera footage is ≈ 1.5 MB as PNG): a longer video is decoded by each stage.
 */
const MAX_SAMPLED_FRAMES = 900;
/** Free space the disk keeps beyond the frames (counted at 2 MB each), else none are kept. */
const SAMPLE_FREE_BYTES = 2 * 1024 ** 3;
const SAMPLE_FRAME_BYTES = 2 * 1024 ** 2;
/** How long framesAt waits for ffmpeg's next bytes. */
const FRAME_WAIT_MS = 5 * 60_000;
/** Longer videos are refused (`too_long`); 0 means no limit. */

export interface VideoProbe {
  duration_s: number;
  width: number;
  height: number;
  fps: number | null;
  video_codec: string;
  audio_codec: string | null;
  has_audio: boolean;
}

function tools(): FfmpegTools {
  const t = findFfmpeg();
  if (!t) throw new ExtractError('decoder_missing', 'ffmpeg was not found (set MEDIA_INDEX_FFMPEG or install ffmpeg)');
  return t;
}

function rate(r: string | undefined): number | null {
  if (!r) return null;
  const [n, d] = r.split('/').map(Number);
  const v = d ? n / d : n;
  return Number.isFinite(v) && v > 0 && v < 1000 ? Math.round(v * 1000) / 1000 : null;
}

export async function probeVideo(file: string): Promise<VideoProbe> {
  const t = tools();
  const r = await runTool(t.ffprobe, ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', file], { timeoutMs: 60_000 });
  if (r.code !== 0) throw ffmpegFailure(r.stderr);
  let info: { format?: { duration?: string }; streams?: Array<Record<string, unknown>> };
  try {
    info = JSON.parse(r.stdout);
  } catch {
    throw new ExtractError('corrupt', 'ffprobe gave no readable answer');
  }
  const streams = info.streams ?? [];
  const video = streams.find((s) => s.codec_type === 'video' && (s.disposition as { attached_pic?: number })?.attached_pic !== 1);
  if (!video) throw new ExtractError('no_video_stream', 'the file holds no video');
  const audio = streams.find((s) => s.codec_type === 'audio');
  const rotation = Math.abs(Number((video.tags as { rotate?: string })?.rotate ?? 0)) % 180 === 90;
  const w = Number(video.width) || 0;
  const h = Number(video.height) || 0;
  const duration = Number(info.format?.duration ?? video.duration ?? 0);
  return {
    duration_s: Number.isFinite(duration) ? duration : 0,
    width: rotation ? h : w,
    height: rotation ? w : h,
    fps: rate(video.avg_frame_rate as string) ?? rate(video.r_frame_rate as string),
    video_codec: String(video.codec_name ?? 'unknown'),
    audio_codec: audio ? String(audio.codec_name ?? 'unknown') : null,
    has_audio: Boolean(audio),
  };
}

/** Shot boundaries from scene-change times: shots shorter than MIN_SHOT_S merge into the previous one. */
export function shotsFromCuts(cuts: number[], duration: number): Shot[] {
  const bounds = [0];
  for (const c of [...cuts].sort((a, b) => a - b)) {
    if (c - bounds[bounds.length - 1] >= MIN_SHOT_S && duration - c >= MIN_SHOT_S) bounds.push(c);
  }
  while (bounds.length > MAX_SHOTS) {
    // Keep the longest shots: drop the boundary that closes the shortest one.
    let shortest = 1;
    for (let i = 2; i < bounds.length; i++) if (bounds[i] - bounds[i - 1] < bounds[shortest] - bounds[shortest - 1]) shortest = i;
    bounds.splice(shortest, 1);
  }
  return bounds.map((start, idx) => {
    const end = idx + 1 < bounds.length ? bounds[idx + 1] : Math.max(duration, start);
    const r3 = (v: number) => Math.round(v * 1000) / 1000;
    return { idx, start_s: r3(start), end_s: r3(end), keyframe_s: r3(start + (end - start) / 2) };
  });
}

/** One frame at a time: a fast input seek, or (for files whose index does not allow it) a decode up to it. */
async function grabFrame(t: FfmpegTools, file: string, at: number, out: string, longSide: number, seek: 'input' | 'output'): Promise<boolean> {
  const scale = `scale='if(gt(iw,ih),min(${longSide},iw),-2)':'if(gt(iw,ih),-2,min(${longSide},ih))'`;
  const ss = ['-ss', at.toFixed(3)];
  const args = [
    '-v',
    'error',
    '-y',
    ...(seek === 'input' ? ss : []),
    '-i',
    file,
    ...(seek === 'output' ? ss : []),
    '-frames:v',
    '1',
    '-vf',
    scale,
    '-q:v',
    '3',
    out,
  ];
  const r = await runTool(t.ffmpeg, args, { timeoutMs: 120_000 });
  return r.code === 0 && fs.existsSync(out);
}

/** Where a video's poster is taken: its middle, to the millisecond. */
const posterTime = (duration: number): number => Math.round((duration / 2) * 1000) / 1000;

/** A video's poster frame in its asset folder (its thumbnail is drawn from it), named as a photo's frame is. */
export const POSTER_FRAME = 'frame.jpg';

/**
 * Phase 1 of a video: its container read (length, size, codecs) and one frame drawn, from its
 * middle, as its poster and thumbnail — a seek, not a decoding of the whole file, so a video is
 * searchable by its name and metadata in well under a second. Its shots, keyframes and audio are
 * read by the `shots` stage (readShots), in phase 2. Refuses a file with no readable frame.
 */
export async function readVideoPoster(file: string, assetDir: string): Promise<ExtractOutput> {
  const t = tools();
  const probe = await probeVideo(file);
  if (limits.maxDurationS > 0 && probe.duration_s > limits.maxDurationS) {
    throw new ExtractError('too_long', `${Math.round(probe.duration_s)} s; the limit is ${limits.maxDurationS} s`);
  }
  await fs.promises.mkdir(assetDir, { recursive: true });
  const middle = posterTime(probe.duration_s);
  const out = path.join(assetDir, POSTER_FRAME);
  // A seek can fail (near the end of a stream, a copy cut short): a decode up to the middle, then
  // the first frame. The poster's time is the one it was taken at.
  let at = middle;
  let ok = (await grabFrame(t, file, middle, out, KEYFRAME_LONG_SIDE, 'input')) || (await grabFrame(t, file, middle, out, KEYFRAME_LONG_SIDE, 'output'));
  if (!ok) {
    at = 0;
    ok = await grabFrame(t, file, 0, out, KEYFRAME_LONG_SIDE, 'output');
  }
  if (!ok) throw new ExtractError('corrupt', 'no frame could be decoded');
  const sharp = (await import('sharp')).default;
  const m = await sharp(out).metadata();
  await sharp(out).resize({ width: THUMB_LONG_SIDE, height: THUMB_LONG_SIDE, fit: 'inside' }).jpeg({ quality: 80 }).toFile(path.join(assetDir, 'thumb.jpg'));
  return {
    // A container that does not say its length leaves it to the reading through (`shots`).
    facts: { duration_s: probe.duration_s > 0 ? Math.round(probe.duration_s * 1000) / 1000 : undefined, width: probe.width, height: probe.height },
    pages: [],
    shots: [],
    frames: [{ timestamp: at, kind: 'frame', file: POSTER_FRAME, width: m.width ?? 0, height: m.height ?? 0, shot: null }],
    audio: null,
    thumbnail: 'thumb.jpg',
    details: { fps: probe.fps, video_codec: probe.video_codec, audio_codec: probe.audio_codec, ffmpeg: t.source },
  };
}

/**
 * Phase 2 of a video: one decoding pass over the whole file that finds its shot boundaries
 * (scene-change score, at 192 px) and writes its sound as 16 kHz mono PCM for the audio stages;
 * then a keyframe per shot. `progress` hears how far it has got: the seconds of the video decoded
 * (ffmpeg's own reports, about two a second), then the shots whose keyframe is drawn.
 */
export async function readShots(
  file: string,
  assetDir: string,
  progress?: (p: { done: number; total: number; unit: 'seconds' | 'shots' }) => void,
  known?: VideoStreams | null,
  sampleRates: readonly number[] = [],
): Promise<VideoShots> {
  const t = tools();
  const probe = known ?? (await probeVideo(file));
  await fs.promises.mkdir(path.join(assetDir, 'frames'), { recursive: true });
  const sampled = path.join(assetDir, SAMPLED_DIR);
  await fs.promises.rm(sampled, { recursive: true, force: true });
  const rates = [...new Set(sampleRates)];
  const keep = (await roomForSamples(assetDir, probe.duration_s, rates)) ? rates : [];
  const audioFile = path.join(assetDir, 'audio.wav');
  const args = [
    '-v',
    'info',
    '-nostats',
    '-hide_banner',
    '-y',
    ...(progress ? ['-progress', 'pipe:1'] : []),
    '-i',
    file,
    '-map',
    '0:v:0',
    '-an',
    '-sn',
    '-vf',
    `scale=192:-2,select='gt(scene,${SCENE_THRESHOLD})',showinfo`,
    '-f',
    'null',
    '-',
  ];
  for (const fps of keep) {
    // The picture stages' frames exactly as framesAt draws them at each of their rates (the frames,
    // size, way up and RGB), kept without loss (PNG, its quickest compression): ffmpeg hands the
    // frames it decodes to these outputs too.
    const dir = path.join(sampled, rateDir(fps));
    await fs.promises.mkdir(dir, { recursive: true });
    args.push(
      '-map',
      '0:v:0',
      '-an',
      '-sn',
      '-vf',
      `fps=${fps},${fitScale(KEYFRAME_LONG_SIDE)}`,
      '-pix_fmt',
      'rgb24',
      '-c:v',
      'png',
      '-compression_level',
      '1',
    );
    args.push('-start_number', '0', '-f', 'image2', path.join(dir, '%06d.png'));
  }
  if (probe.has_audio) {
    // Padded or cut to the container's duration, so audio time and video time are the same clock.
    const fit = probe.duration_s > 0 ? ['-af', 'apad', '-t', probe.duration_s.toFixed(3)] : [];
    args.push('-map', '0:a:0', '-vn', '-ac', '1', '-ar', String(AUDIO_RATE), ...fit, '-c:a', 'pcm_s16le', audioFile);
  }
  // In the video's length as stored (to the millisecond).
  const length = Math.round(probe.duration_s * 1000) / 1000;
  const decoded = (chunk: string) => {
    // "out_time_us=12345678" lines; the last of a chunk is the newest.
    const us = [...chunk.matchAll(/^out_time_us=(\d+)$/gm)].at(-1)?.[1];
    if (us !== undefined) progress?.({ done: Math.min(Number(us) / 1e6, length), total: length, unit: 'seconds' });
  };
  if (length > 0) progress?.({ done: 0, total: length, unit: 'seconds' });
  const r = await runTool(t.ffmpeg, args, {
    timeoutMs: Math.max(120_000, probe.duration_s * 4000),
    ...(progress && length > 0 ? { onStdout: decoded } : {}),
  });
  if (r.code !== 0) throw ffmpegFailure(r.stderr);
  for (const fps of keep) {
    const dir = path.join(sampled, rateDir(fps));
    const count = (await fs.promises.readdir(dir)).filter((n) => n.endsWith('.png')).length;
    await fs.promises.writeFile(path.join(dir, SAMPLED_INDEX), JSON.stringify({ fps, count, long_side: KEYFRAME_LONG_SIDE }));
  }
  const cuts = [...r.stderr.matchAll(/Parsed_showinfo.*?pts_time:\s*([\d.]+)/g)].map((m) => Number(m[1]));
  const endsEarly = DAMAGED.test(r.stderr) ? await endsBefore(t.ffmpeg, file, probe.duration_s) : null;

  let audio: ExtractOutput['audio'] = null;
  if (probe.has_audio && fs.existsSync(audioFile)) {
    const bytes = (await fs.promises.stat(audioFile)).size;
    audio = { file: 'audio.wav', duration_s: Math.round((Math.max(0, bytes - 44) / 2 / AUDIO_RATE) * 1000) / 1000, sample_rate: AUDIO_RATE };
  }
  const duration = probe.duration_s || audio?.duration_s || (cuts.at(-1) ?? 0);
  const shots = shotsFromCuts(cuts, duration);
  const frames: Frame[] = [];
  for (const shot of shots) {
    // The shots whose keyframe is drawn before this one.
    progress?.({ done: shot.idx, total: shots.length, unit: 'shots' });
    const name = path.join('frames', `k${String(shot.idx + 1).padStart(5, '0')}.jpg`);
    // Near the end of a stream a seek can land past the last frame; step back once.
    const out = path.join(assetDir, name);
    const ok =
      (await posterAt(assetDir, shot.keyframe_s, known?.poster_s, out)) ||
      (await grabFrame(t, file, shot.keyframe_s, out, KEYFRAME_LONG_SIDE, 'input')) ||
      (await grabFrame(t, file, shot.keyframe_s, out, KEYFRAME_LONG_SIDE, 'output')) ||
      (await grabFrame(t, file, shot.start_s, out, KEYFRAME_LONG_SIDE, 'output'));
    if (ok) frames.push({ timestamp: shot.keyframe_s, kind: 'keyframe', file: name, width: 0, height: 0, shot: shot.idx });
  }
  if (frames.length === 0) throw new ExtractError('corrupt', 'no frame could be decoded');
  const sharp = (await import('sharp')).default;
  for (const f of frames) {
    const m = await sharp(path.join(assetDir, f.file)).metadata();
    f.width = m.width ?? 0;
    f.height = m.height ?? 0;
  }
  return {
    duration_s: Math.round(duration * 1000) / 1000,
    shots,
    frames,
    audio,
    details: {
      shots: shots.length,
      ...(endsEarly === null
        ? {}
        : {
            readable_s: endsEarly,
            damaged: `the file ends after ${endsEarly.toFixed(1)} s of its ${probe.duration_s.toFixed(1)} s: it may have been copied only in part`,
          }),
    },
  };
}

/**
 * A keyframe at the poster's time (the one shot of a video without cuts, or any shot whose middle
 * is the video's) is the poster itself: copied, not drawn again. False where it is not, or where
 * the poster's time is not known.
 */
async function posterAt(assetDir: string, at: number, posterS: number | undefined, out: string): Promise<boolean> {
  if (posterS === undefined || Math.abs(at - posterS) > 0.002) return false;
  try {
    await fs.promises.copyFile(path.join(assetDir, POSTER_FRAME), out);
    return true;
  } catch {
    return false;
  }
}

/** What ffmpeg says of a file whose data stops or breaks before its end (a copy cut short, a card pulled out). */
const DAMAGED = /partial file|Truncating packet|corrupt input packet|Invalid NAL unit size|Premature end/i;

/**
 * Where a damaged video's readable part ends, when that is well before the end its header gives
 * (more than a second and a twentieth of it): its packets copied, not decoded, to nowhere, and the
 * last time reached read. Null when it reads to its end.
 */
async function endsBefore(ffmpeg: string, file: string, duration: number): Promise<number | null> {
  if (!(duration > 0)) return null;
  const r = await runTool(ffmpeg, ['-v', 'error', '-i', file, '-map', '0:v:0', '-c', 'copy', '-f', 'null', '-', '-progress', 'pipe:1'], {
    timeoutMs: 120_000,
  });
  const times = [...r.stdout.matchAll(/^out_time_us=(\d+)$/gm)].map((m) => Number(m[1]) / 1e6);
  const reached = times.at(-1);
  if (reached === undefined || duration - reached <= Math.max(1, duration / 20)) return null;
  return Math.round(reached * 1000) / 1000;
}

/** Whether the frames of a video this long, at these rates, are kept: not too many, and the disk keeps room to spare. */
async function roomForSamples(assetDir: string, durationS: number, rates: readonly number[]): Promise<boolean> {
  if (rates.length === 0 || rates.some((fps) => !(fps > 0) || fps > MAX_SAMPLE_FPS) || !(durationS > 0)) return false;
  const frames = rates.reduce((n, fps) => n + Math.ceil(durationS * fps) + 1, 0);
  if (frames > MAX_SAMPLED_FRAMES) return false;
  try {
    const disk = await fs.promises.statfs(assetDir);
    return disk.bavail * disk.bsize > SAMPLE_FREE_BYTES + frames * SAMPLE_FRAME_BYTES;
  } catch {
    return false;
  }
}

/** A scale to at most `longSide` pixels on the long side, never up (framesAt's and the kept frames'). */
function fitScale(longSide: number): string {
  return `scale='if(gt(iw,ih),min(${longSide},iw),-2)':'if(gt(iw,ih),-2,min(${longSide},ih))'`;
}

/** The folder of the frames kept at one rate ("0.5", "1"). */
function rateDir(fps: number): string {
  return String(fps);
}

/**
 * A picture stage's frames of a video at `fps`: those the shots pass kept at that rate, where it
 * did, else decoded from the file (framesAt). The same pixels either way, at the same times.
 */
export async function* sampledFrames(file: string, assetDir: string, fps: number): AsyncGenerator<SampledFrame> {
  const dir = path.join(assetDir, SAMPLED_DIR, rateDir(fps));
  const kept = await keptFrames(dir, fps);
  if (!kept) {
    yield* framesAt(file, fps);
    return;
  }
  const sharp = (await import('sharp')).default;
  for (let i = 0; i < kept.count; i++) {
    const { data, info } = await sharp(path.join(dir, sampleName(i)))
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    yield { timestamp: Math.round((i / fps) * 1000) / 1000, pixels: { data, width: info.width, height: info.height, channels: 3 } };
  }
}

function sampleName(index: number): string {
  return `${String(index).padStart(6, '0')}.png`;
}

/** What the shots pass kept at `fps`, where it kept all it says it did (the stage then reads none of the file). */
async function keptFrames(dir: string, fps: number): Promise<{ fps: number; count: number } | null> {
  try {
    const kept = JSON.parse(await fs.promises.readFile(path.join(dir, SAMPLED_INDEX), 'utf8')) as { fps: number; count: number; long_side: number };
    if (kept.fps !== fps || !(kept.count > 0) || kept.long_side !== KEYFRAME_LONG_SIDE) return null;
    const names = new Set(await fs.promises.readdir(dir));
    for (let i = 0; i < kept.count; i++) if (!names.has(sampleName(i))) return null;
    return kept;
  } catch {
    return null;
  }
}

/** A picture's pixels: RGB, a row after another. */
export interface RgbPixels {
  data: Buffer;
  width: number;
  height: number;
  channels: 3;
}

/** A frame sampled from a video: its time and its pixels (the way up the video is shown). */
export interface SampledFrame {
  timestamp: number;
  pixels: RgbPixels;
}

/**
 * Frames at a fixed rate (the ocr and faces stages' `fps`), at most `longSide` pixels on their long
 * side, one at a time as ffmpeg decodes them: handed over as pixels through a pipe (PPM), so that no
 * frame is encoded to a file and decoded again, and a long video never lies on disk as pictures.
 * ffmpeg waits while a frame is being looked at. Throws as extraction does where ffmpeg fails, or
 * sends nothing for `waitMs`.
 */
export async function* framesAt(file: string, fps: number, longSide = KEYFRAME_LONG_SIDE, waitMs = FRAME_WAIT_MS): AsyncGenerator<SampledFrame> {
  const t = tools();
  const args = [
    '-v',
    'error',
    '-nostdin',
    '-i',
    file,
    '-an',
    '-vf',
    `fps=${fps},${fitScale(longSide)}`,
    '-pix_fmt',
    'rgb24',
    '-f',
    'image2pipe',
    '-c:v',
    'ppm',
    '-',
  ];
  const child = spawn(t.ffmpeg, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => {
    if (stderr.length < 64 * 1024) stderr += c.toString();
  });
  const closed = new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
  });
  closed.catch(() => {}); // awaited below
  // A frame is waited for at most `waitMs` (a decoder stuck on a damaged file); the time
  // the stage takes over each frame is its own, under the stage's time limit.
  let timer: NodeJS.Timeout | undefined;
  let stalled = false;
  let ended = false;
  try {
    const reader = new PpmReader();
    const chunks = (child.stdout as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
    let index = 0;
    for (;;) {
      timer = setTimeout(() => {
        stalled = true;
        child.kill('SIGKILL');
      }, waitMs);
      const next = await chunks.next();
      clearTimeout(timer);
      if (next.done) break;
      for (const pixels of reader.push(next.value)) yield { timestamp: Math.round((index++ / fps) * 1000) / 1000, pixels };
    }
    const code = await closed;
    ended = true;
    if (stalled) throw new ExtractError('corrupt', `ffmpeg drew no frame for ${waitMs / 1000} s`);
    if (code !== 0 || reader.partial) throw ffmpegFailure(stderr || `ffmpeg ended with code ${code}`);
  } finally {
    clearTimeout(timer);
    // Left before the end (the stage stopped looking, or failed): ffmpeg is not needed any more.
    if (!ended) child.kill('SIGKILL');
  }
}

/** "P6", width, height and levels, each followed by one whitespace byte. */
const PPM_HEADER = /^P6\s(\d+)\s(\d+)\s(\d+)\s/;

/** Binary PPM pictures (P6, 8 bits), one after another in a stream: each whole picture as pixels. */
export class PpmReader {
  private head = Buffer.alloc(0);
  private body: Buffer | null = null;
  private filled = 0;
  private size = { width: 0, height: 0 };

  /** Whether a picture was begun and not finished. */
  get partial(): boolean {
    return this.body !== null || this.head.length > 0;
  }

  /** The pictures `chunk` completes. */
  *push(chunk: Buffer): Generator<RgbPixels> {
    let data = chunk;
    let at = 0;
    while (at < data.length) {
      if (!this.body) {
        if (this.head.length) {
          data = Buffer.concat([this.head, data.subarray(at)]);
          at = 0;
          this.head = Buffer.alloc(0);
        }
        const m = PPM_HEADER.exec(data.toString('latin1', at, Math.min(data.length, at + 64)));
        if (!m) {
          const begun = data.toString('latin1', at, Math.min(data.length, at + 2));
          if (data.length - at >= 64 || !'P6'.startsWith(begun)) throw new Error('not a stream of PPM pictures');
          this.head = Buffer.from(data.subarray(at)); // the rest of the header comes with the next chunk
          return;
        }
        if (Number(m[3]) !== 255) throw new Error(`PPM of ${m[3]} levels`);
        this.size = { width: Number(m[1]), height: Number(m[2]) };
        if (!this.size.width || !this.size.height) throw new Error('a PPM picture without pixels');
        this.body = Buffer.allocUnsafe(this.size.width * this.size.height * 3);
        this.filled = 0;
        at += m[0].length;
        continue;
      }
      const n = Math.min(this.body.length - this.filled, data.length - at);
      data.copy(this.body, this.filled, at, at + n);
      this.filled += n;
      at += n;
      if (this.filled === this.body.length) {
        yield { data: this.body, width: this.size.width, height: this.size.height, channels: 3 };
        this.body = null;
      }
    }
  }
}
