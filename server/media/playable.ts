// A video as a browser plays it. The original where its container and codecs are the web's (MP4 or
// QuickTime with H.264, WebM with VP8 or VP9, AV1; AAC, MP3, Opus or Vorbis sound); else a copy made
// once, on the first request to play it, and kept beside the asset's pictures: the H.264 stream of
// a camera's AVI or Matroska file copied into MP4 as it is (a moment's work), anything else — Windows
// Media, RealVideo, old phones' 3GP, MPEG-4 Part 2, HEVC — converted to H.264 and AAC. The user's
// file is only read.
import fs from 'node:fs';
import path from 'node:path';
import { findFfmpeg, lastError, runTool } from './ffmpeg.ts';
import { probeVideo } from './video.ts';

const WEB_CONTAINERS = ['video/mp4', 'video/quicktime', 'video/webm'];
const WEB_VIDEO = ['h264', 'vp8', 'vp9', 'av1'];
const WEB_AUDIO = ['aac', 'mp3', 'opus', 'vorbis'];
/** The long side of a converted copy at most: a browser's window, not a cinema's. */
const CONVERTED_LONG_SIDE = 1920;
/** A conversion running longer than this is stopped (a video is refused beyond `maxVideoSeconds` anyway). */
const CONVERT_TIMEOUT_MS = 60 * 60_000;

/** How a browser gets to play a video: as it is, or through a copy (its video copied or converted, and what its sound is). */
export type Playback = { how: 'original' } | { how: 'copy' | 'convert'; audio: string | null };

/** How a browser gets to play a video of this type, read from its streams. */
export async function playback(file: string, mimeType: string | null): Promise<Playback> {
  const p = await probeVideo(file);
  const audioOk = p.audio_codec === null || WEB_AUDIO.includes(p.audio_codec);
  if (WEB_CONTAINERS.includes(mimeType ?? '') && WEB_VIDEO.includes(p.video_codec) && audioOk) return { how: 'original' };
  return { how: p.video_codec === 'h264' ? 'copy' : 'convert', audio: p.audio_codec };
}

/** Writes the playable copy of `file` to `out` as `plan` says (through a temporary file: a stopped run leaves nothing). */
export async function makePlayable(file: string, out: string, plan: Exclude<Playback, { how: 'original' }>, signal?: AbortSignal): Promise<void> {
  const t = findFfmpeg();
  if (!t) throw new Error('ffmpeg was not found (set MEDIA_INDEX_FFMPEG or install ffmpeg)');
  const audio = plan.audio === null ? [] : plan.audio === 'aac' || plan.audio === 'mp3' ? ['-c:a', 'copy'] : ['-c:a', 'aac', '-b:a', '160k'];
  const video =
    plan.how === 'copy'
      ? ['-c:v', 'copy']
      : [
          '-vf',
          // At most CONVERTED_LONG_SIDE on the long side, both sides even (H.264's 4:2:0 asks for it).
          `scale='if(gt(iw,ih),min(${CONVERTED_LONG_SIDE},iw),-2)':'if(gt(iw,ih),-2,min(${CONVERTED_LONG_SIDE},ih))',scale=trunc(iw/2)*2:trunc(ih/2)*2`,
          '-c:v',
          'libx264',
          '-preset',
          'veryfast',
          '-crf',
          '23',
          '-pix_fmt',
          'yuv420p',
        ];
  const tmp = path.join(path.dirname(out), `.${path.basename(out)}.${process.pid}.tmp`);
  const args = ['-v', 'error', '-y', '-i', file, '-map', '0:v:0', '-map', '0:a:0?', ...video, ...audio, '-movflags', '+faststart', '-f', 'mp4', tmp];
  try {
    const r = await runTool(t.ffmpeg, args, { timeoutMs: CONVERT_TIMEOUT_MS, maxOutput: 64 * 1024, signal });
    if (signal?.aborted) throw new Error('the service stopped');
    if (r.code !== 0) throw new Error(lastError(r.stderr));
    await fs.promises.rename(tmp, out);
  } finally {
    await fs.promises.rm(tmp, { force: true });
  }
}
