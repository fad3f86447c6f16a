// The corpus files the indexing benchmarks share.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { findFfmpeg } from '../server/media/ffmpeg.ts';

/** ../shared/corpus, or MEDIA_INDEX_BENCH_CORPUS (a copy of its files, on a machine without it). */
export const CORPUS = process.env.MEDIA_INDEX_BENCH_CORPUS || path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../shared/corpus');
const c = (p: string) => path.join(CORPUS, p);

/** Photos of people, scenes, objects and text (bench:index, bench:ab). */
export const PHOTOS = [
  ...fs
    .readdirSync(c('faces/face-api-samples'))
    .sort()
    .map((f) => c(`faces/face-api-samples/${f}`)),
  ...['chelsea.png', 'coffee.png', 'motorcycle_left.png', 'rocket.jpg', 'astronaut.png'].map((f) =>
    f === 'astronaut.png' ? c('faces/portraits/astronaut.png') : c(`scenes/skimage/${f}`),
  ),
  ...['fruits.jpg', 'building.jpg', 'home.jpg', 'baboon.jpg', 'board.jpg', 'licenseplate_motion.jpg'].map((f) => c(`scenes/opencv/${f}`)),
];

/** Every still picture of the corpus but one (digits.png: a synthetic sheet of 5,000 handwritten digits, not a photo). */
function corpusPictures(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.(jpe?g|png|webp|tiff?|gif|bmp)$/i.test(e.name) && e.name !== 'digits.png') out.push(p);
    }
  };
  for (const d of ['faces', 'scenes', 'ocr/images']) walk(c(d));
  return out;
}

/**
 * At least `n` different photos: the corpus's pictures, then stills of its two real videos (a street
 * scene and a face talking), one every 0.8 s, written to `dir` by ffmpeg. No picture twice.
 */
export function variedPhotos(dir: string, n = 200): { files: string[]; about: string } {
  const pictures = corpusPictures();
  const tools = findFfmpeg();
  if (!tools) throw new Error('ffmpeg is needed for the stills of the videos');
  for (const [name, video] of [
    ['vtest', 'video/opencv/vtest.avi'],
    ['hello', 'video/forensics/movie-hello.mp4'],
  ]) {
    execFileSync(tools.ffmpeg, ['-v', 'error', '-i', c(video), '-vf', 'fps=1.25', '-q:v', '2', path.join(dir, `${name}-%03d.jpg`)]);
  }
  const stills = fs
    .readdirSync(dir)
    .sort()
    .map((f) => path.join(dir, f));
  const need = Math.max(0, n - pictures.length);
  // Taken evenly from all the stills.
  const picked = Array.from({ length: Math.min(need, stills.length) }, (_, i) => stills[Math.floor((i * stills.length) / need)]);
  return {
    files: [...pictures, ...picked],
    about: `${pictures.length} pictures of the corpus (faces, scenes, photographed text) and ${picked.length} stills of vtest.avi and movie-hello.mp4 (one every 0.8 s)`,
  };
}
