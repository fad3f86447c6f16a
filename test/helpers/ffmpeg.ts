// ffmpeg for tests that make their own media: quiet, overwriting, arguments as one string.
import { execFileSync } from 'node:child_process';
import { findFfmpeg } from '../../server/media/ffmpeg.ts';
import { corpus } from './corpus.ts';

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

/**
 * Two real voices taking turns over a grey picture, 22 s: 1 s of silence, a LibriVox reader (7.1 s),
 * 2 s, TIMIT's SA1 speaker (2.8 s), 2 s, the reader again (5.3 s), 1 s. Returns `out`.
 */
export function conversationVideo(out: string): string {
  const parts = [
    corpus('audio/librivox/sense_and_sensibility_01_austen_64kb-0870.wav'),
    corpus('audio/timit-sa1/sa1.wav'),
    corpus('audio/librivox/sense_and_sensibility_01_austen_64kb-0890.wav'),
  ];
  const mono = 'aresample=16000,aformat=sample_fmts=fltp:channel_layouts=mono';
  const filter = `[1:a]${mono},adelay=1000[a0];[2:a]${mono},adelay=2000[a1];[3:a]${mono},adelay=2000,apad=pad_len=16000[a2];[a0][a1][a2]concat=n=3:v=0:a=1[a]`;
  const picture = ['-f', 'lavfi', '-i', 'color=c=gray:size=320x240:rate=5:duration=22'];
  const codecs = ['-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-c:a', 'aac'];
  execFileSync(findFfmpeg()!.ffmpeg, [
    '-v',
    'error',
    '-y',
    ...picture,
    ...parts.flatMap((p) => ['-i', p]),
    '-filter_complex',
    filter,
    '-map',
    '0:v',
    '-map',
    '[a]',
    '-shortest',
    ...codecs,
    out,
  ]);
  return out;
}

/**
 * A page of text (the corpus's imageTextN.png, 1000 px wide) on white in a 1280x720 video of 12 s
 * at 10 frames a second, shown a few lines more every 2 s (105 px: about three lines, the last
 * one cut) until all of it is: a slide built up, a terminal typed into. Returns `out`.
 */
export function revealedPage(out: string): string {
  // prettier-ignore
  execFileSync(findFfmpeg()!.ffmpeg, [
    '-v', 'error', '-y',
    '-f', 'lavfi', '-i', 'color=c=white:s=1280x720:d=12:r=10',
    '-loop', '1', '-i', corpus('ocr/images/imageTextN.png'),
    '-f', 'lavfi', '-i', 'color=c=white:s=1000x720:d=12:r=10',
    '-filter_complex', "[1]scale=1000:-2[page];[0][page]overlay=x=140:y=100:shortest=1[shown];[shown][2]overlay=x=140:y='100+105*floor(t/2)',format=yuv420p",
    '-t', '12', out,
  ]);
  return out;
}
