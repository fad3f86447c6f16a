// ffmpeg for tests that make their own media: quiet, overwriting, arguments as one string.
import { execFileSync } from 'node:child_process';
import { findFfmpeg } from '../../server/media/ffmpeg.ts';

/** Runs ffmpeg with `args` (split on spaces; no argument of these holds one) after `-v error -y`. */
export function ffmpeg(args: string, ...files: string[]): void {
  const parts = args.split(' ').map((a) => (a.startsWith('$') ? files[Number(a.slice(1))] : a));
  execFileSync(findFfmpeg()!.ffmpeg, ['-v', 'error', '-y', ...parts]);
}

/**
 * A grey 320x240 video at 5 frames a second (H.264) with a recording for its sound (AAC): from
 * `delayS` in and padded with silence to `seconds` long; without `delayS`, as long as the recording
 * (at most `seconds`); without `audio`, `seconds` of a mute video. Returns `out`.
 */
export function greyVideo(out: string, seconds: number, audio?: { file: string; delayS?: number }): string {
  const picture = ['-f', 'lavfi', '-i', `color=c=gray:size=320x240:rate=5:duration=${seconds}`];
  const sound = !audio
    ? []
    : audio.delayS === undefined
      ? ['-i', audio.file, '-map', '0:v', '-map', '1:a', '-shortest']
      : ['-i', audio.file, '-filter_complex', `[1:a]adelay=${audio.delayS * 1000},apad[a]`, '-map', '0:v', '-map', '[a]', '-t', String(seconds)];
  const codecs = ['-c:v', 'libx264', '-pix_fmt', 'yuv420p', ...(audio ? ['-c:a', 'aac'] : [])];
  execFileSync(findFfmpeg()!.ffmpeg, ['-v', 'error', '-y', ...picture, ...sound, ...codecs, out]);
  return out;
}
