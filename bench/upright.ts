// Never turn an upright photo: the faces stage's way-up judgement (faces.run.ts, `upright`) on every
// photo of the folders given, as stored (all upright: any turn is a photo shown wrong) and turned a
// quarter clockwise (the turn that shows it upright again is 270; recall). In this process, one
// core, the real face models; each picture through the stored frame, as the stage gets it.
// A wallpaper package's sizes of one picture count once (the largest); files under 4 KB (icons)
// are left out. Usage: npm run bench -- upright <folder>... The figures of docs/performance.md:
// ../shared/corpus; the Debian packages mate-backgrounds, gnome-backgrounds, ukui-wallpapers,
// lomiri-wallpapers(-16.04, -20.04) and plasma-workspace-wallpapers (`apt-get download`, then
// `dpkg-deb -x` into one folder); node_modules/@vladmandic/human/assets; the sample pictures of
// OpenCV 4.6.0 (Debian source tarball, samples/data); the text photos of the OCR tests (the cache
// folder of test/helpers/text-photos.ts); the pages of ../shared/corpus/docs/carroll-wonderland.pdf
// (`pdftoppm -r 110 -jpeg`); and the screens e2e/screenshots holds after `vitest run e2e`.
// A picture found in two folders counts once.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { detectFaces } from '../server/ml/human.ts';
import { extractImage } from '../server/media/image.ts';
import { upright } from '../server/indexer/stages/faces.run.ts';
import { writeResults } from './report.ts';

const EXT = /\.(jpe?g|png|webp)$/i;

function photos(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (EXT.test(e.name) && fs.statSync(p).size > 4_000) out.push(p);
    }
  };
  walk(dir);
  // One picture per wallpaper (its folder of sizes: …/Name/contents/images/1920x1080.jpg).
  const bySet = new Map<string, string>();
  for (const p of out) {
    const m = /^(.*)\/contents\/images(?:_dark)?\/[^/]+$/.exec(p);
    const k = m ? m[1] : p;
    const have = bySet.get(k);
    if (!have || fs.statSync(p).size > fs.statSync(have).size) bySet.set(k, p);
  }
  return [...bySet.values()].sort();
}

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'mi-bench-upright-'));
process.on('exit', () => fs.rmSync(scratch, { recursive: true, force: true }));

/**
 * The picture as the faces stage gets it: the frame extraction stores (a JPEG of at most 2048 px,
 * EXIF orientation applied), decoded; a quarter-turned copy is written losslessly first, as a
 * sideways photo without an EXIF orientation would come.
 */
async function rgbOf(file: string, turn: number) {
  let src = file;
  if (turn) {
    src = path.join(scratch, 'turned.png');
    await sharp(file).rotate().rotate(turn).png().toFile(src);
  }
  await extractImage(src, path.extname(src).toLowerCase(), scratch);
  const { data, info } = await sharp(path.join(scratch, 'frame.jpg')).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

const dirs = process.argv.slice(2);
if (!dirs.length) {
  console.error('usage: npm run bench -- upright <folder>...');
  process.exit(2);
}
// The same picture in two folders (OpenCV's samples and the corpus's copies of them) counts once.
const seen = new Set<string>();
const folderOf = new Map<string, string>();
const files = dirs.flatMap((d) =>
  photos(d).filter((f) => {
    const hash = createHash('sha256').update(fs.readFileSync(f)).digest('hex');
    if (seen.has(hash)) return false;
    seen.add(hash);
    folderOf.set(f, d);
    return true;
  }),
);
const turnedUpright: string[] = [];
let quarterRight = 0;
let withFaces = 0;
const t0 = performance.now();
for (const [i, file] of files.entries()) {
  try {
    const stored = await rgbOf(file, 0);
    const first = await detectFaces(stored);
    if (first.length) withFaces++;
    const asStored = await upright(stored, first);
    if (asStored.turn !== 0) turnedUpright.push(`${path.relative(process.cwd(), file)} → ${asStored.turn}`);
    const quarter = await rgbOf(file, 90);
    if ((await upright(quarter, await detectFaces(quarter))).turn === 270) quarterRight++;
  } catch (err) {
    console.error(`${file}: ${(err as Error).message}`);
  }
  if ((i + 1) % 20 === 0) console.error(`${i + 1}/${files.length}, ${turnedUpright.length} upright photos turned`);
}
writeResults('upright', `Which way up on ${files.length} upright photos (${dirs.join(', ')})`, {
  photos: files.length,
  with_a_face: withFaces,
  upright_turned: turnedUpright.length,
  upright_turned_list: turnedUpright.join('; ') || 'none',
  quarter_turned_set_right: quarterRight,
  quarter_recall: Math.round((quarterRight / Math.max(1, files.length)) * 1000) / 1000,
  per_folder: dirs.map((d) => `${d} ${files.filter((f) => folderOf.get(f) === d).length}`).join('; '),
  seconds: Math.round((performance.now() - t0) / 1000),
});
process.exit(0);
