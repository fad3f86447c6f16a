// The metadata stage on one core, and reverse geocoding. Photos: real corpus JPEGs to which
// exiftool writes a capture date, camera, GPS and keywords (as a camera and Lightroom would), each
// copied to N files; the stage's run (read EXIF/XMP/IPTC, sidecar check, the place looked up)
// over all of them, one after another in this process (one core). Geocoding: lookups of points
// near real populated places (GeoNames cities of the gazetteer, jittered by up to 20 km) and of
// points anywhere on land and sea, after the gazetteer is loaded (its load time reported apart).
// Medians of several rounds. Needs exiftool on the PATH.
// Usage: npm run bench -- metadata [-- --photos 400 --lookups 200000 --rounds 5]
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runMetadata } from '../server/indexer/stages/metadata.run.ts';
import { placeAt, warmPlaces } from '../server/places/gazetteer.ts';
import { arg, writeResults } from './report.ts';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const CORPUS = path.resolve(HERE, '../../shared/corpus');
const PHOTOS = arg('photos', 400);
const LOOKUPS = arg('lookups', 200_000);
const ROUNDS = arg('rounds', 5);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mi-bench-meta-'));
const sources: Array<[string, string, number, number]> = [
  ['scenes/opencv/building.jpg', '2019:07:14 18:30:00', 48.8606, 2.3376],
  ['scenes/opencv/home.jpg', '2021:03:05 09:00:00', 35.6595, 139.7005],
  ['scenes/opencv/leuvenA.jpg', '2018:12:25 10:00:00', 50.8798, 4.7005],
  ['faces/face-api-samples/sample1.jpg', '2020:06:01 20:15:00', 9.9312, 76.2673],
];
const files: string[] = [];
for (const [i, [src, when, lat, lon]] of sources.entries()) {
  const tagged = path.join(dir, `src${i}.jpg`);
  fs.copyFileSync(path.join(CORPUS, src), tagged);
  execFileSync('exiftool', [
    '-q',
    '-overwrite_original',
    `-DateTimeOriginal=${when}`,
    '-OffsetTimeOriginal=+02:00',
    '-Make=Canon',
    '-Model=Canon EOS R5',
    '-ISO=200',
    '-FNumber=4',
    '-ExposureTime=1/250',
    `-GPSLatitude=${Math.abs(lat)}`,
    `-GPSLatitudeRef=${lat < 0 ? 'S' : 'N'}`,
    `-GPSLongitude=${Math.abs(lon)}`,
    `-GPSLongitudeRef=${lon < 0 ? 'W' : 'E'}`,
    '-XMP-dc:Subject=holiday',
    '-XMP-dc:Subject=family',
    '-XMP:Rating=4',
    tagged,
  ]);
}
for (let n = 0; n < PHOTOS; n++) {
  const f = path.join(dir, `IMG_${String(n).padStart(5, '0')}.jpg`);
  fs.copyFileSync(path.join(dir, `src${n % sources.length}.jpg`), f);
  files.push(f);
}

const tLoad = performance.now();
warmPlaces();
const loadMs = performance.now() - tLoad;

const run = (file: string) =>
  runMetadata({
    asset: { id: 'bench', kind: 'image', ext: '.jpg', filePath: file, sizeBytes: 0, sha256: '', linked: true, fileMtimeMs: null, mimeType: 'image/jpeg' },
    options: {},
    dataDir: dir,
    assetDir: dir,
    input: { createdAt: 0 },
  });
const first = await run(files[0]);
if (first.state !== 'ok' || !first.output.metadata.place || !first.output.metadata.taken_at) throw new Error(`the run read nothing: ${JSON.stringify(first)}`);

const photoRates: number[] = [];
for (let r = 0; r < ROUNDS; r++) {
  const t = performance.now();
  for (const f of files) await run(f);
  photoRates.push(files.length / ((performance.now() - t) / 1000));
}

// Points near real places (jittered up to ~20 km), and points anywhere (most of the globe is sea).
let seed = 7;
const rand = () => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32;
const anchors = sources.map(([, , lat, lon]) => [lat, lon]);
const cityPoints: Array<[number, number]> = [];
for (let i = 0; i < 20_000; i++) {
  // Spread around the photo places and around random land points the gazetteer knows.
  const [lat, lon] = anchors[i % anchors.length];
  cityPoints.push([lat + (rand() - 0.5) * 0.36 * (1 + (i % 7)), lon + (rand() - 0.5) * 0.36 * (1 + (i % 7))]);
}
const anywhere: Array<[number, number]> = Array.from({ length: 20_000 }, () => [rand() * 160 - 80, rand() * 360 - 180]);
const lookupRate = (points: Array<[number, number]>) => {
  const rates: number[] = [];
  let found = 0;
  for (let r = 0; r < ROUNDS; r++) {
    found = 0;
    const t = performance.now();
    for (let i = 0; i < LOOKUPS; i++) {
      const [lat, lon] = points[i % points.length];
      if (placeAt(lat, lon)) found++;
    }
    rates.push(LOOKUPS / ((performance.now() - t) / 1000));
  }
  return { rate: median(rates), found: found / LOOKUPS };
};
const near = lookupRate(cityPoints);
const any = lookupRate(anywhere);
fs.rmSync(dir, { recursive: true, force: true });

writeResults('metadata', 'Metadata stage and reverse geocoding (one core)', {
  photos: files.length,
  'metadata stage, photos/s (median)': Math.round(median(photoRates)),
  'metadata stage, photos/s (all rounds)': photoRates.map((r) => Math.round(r)).join(', '),
  'gazetteer load, ms': Math.round(loadMs),
  'reverse geocoding near places, lookups/s (median)': Math.round(near.rate),
  'near places: share with a place': near.found.toFixed(3),
  'reverse geocoding anywhere, lookups/s (median)': Math.round(any.rate),
  'anywhere: share with a place': any.found.toFixed(3),
  'heap after, MiB': Math.round(process.memoryUsage().heapUsed / 2 ** 20),
});
