// ffmpeg for tests that make their own media: quiet, overwriting, arguments as one string.
import { execFileSync } from 'node:child_process';
import { findFfmpeg } from '../../server/media/ffmpeg.ts';

/** Runs ffmpeg with `args` (split on spaces; no argument of these holds one) after `-v error -y`. */
export function ffmpeg(args: string, ...files: string[]): void {
  const parts = args.split(' ').map((a) => (a.startsWith('$') ? files[Number(a.slice(1))] : a));
  execFileSync(findFfmpeg()!.ffmpeg, ['-v', 'error', '-y', ...parts]);
}
