// The corpus files the indexing benchmarks share.
import path from 'node:path';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

export const CORPUS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../shared/corpus');
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
