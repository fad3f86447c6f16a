// When a photo was taken, as read by the two readers that could serve the metadata stage, against
// what exiftool itself resolves: every photo of exiftool's own test set (real files of some 30
// makers and tools: Apple, Canon, Casio, Fujifilm, GoPro, JVC, Kodak, Minolta, Motorola, Nikon,
// Olympus, Panasonic, Pentax, Ricoh, Sanyo, Sigma, Sony, FLIR, Photo Mechanic, FotoStation…, and
// the RAW files) that names a capture time.
// - Reference: exiftool's MWG composite DateTimeOriginal (the Metadata Working Group's priority:
//   EXIF DateTimeOriginal with its sub-seconds and offset, then IPTC DateCreated + TimeCreated, then
//   XMP photoshop:DateCreated), with EXIF CreateDate and XMP CreateDate after it, as exiftool gives
//   them; compared to the second, and the offset where exiftool gives one.
// - exifr: the metadata stage's own reading (media/metadata.ts: exifr for photos, exiftool for RAW).
// - exiftool-vendored: every file through exiftool (one stay_open process), its tags in exifr's
//   shape through the same date priority (media/capture-time.ts).
// Files per second on one core (medians of 3 rounds), in this process.
// Usage: npm run bench -- date-readers
import path from 'node:path';
import fs from 'node:fs';
import { readMetadata } from '../server/media/metadata.ts';
import { asExifrShape, closeExiftool, rawTags } from '../server/media/raw.ts';
import { captureTime, parseDate } from '../server/media/capture-time.ts';
import { EXTENSION_KINDS, RAW_EXTENSIONS } from '../server/contract/assets.ts';
import { cameraFiles } from '../test/helpers/camera-files.ts';
import { writeResults } from './report.ts';

const dir = await cameraFiles();
const files = fs
  .readdirSync(dir)
  .filter((f) => EXTENSION_KINDS[path.extname(f).toLowerCase()] === 'image')
  .map((f) => path.join(dir, f));

/** exiftool's own answer, as ISO (to the second, with its offset when it has one), or null. */
function reference(tags: Record<string, unknown>): string | null {
  for (const k of ['MWG:DateTimeOriginal', 'Composite:SubSecDateTimeOriginal', 'ExifIFD:CreateDate', 'XMP-xmp:CreateDate']) {
    const v = parseDate(tags[k]);
    if (v) return v;
  }
  return null;
}

const sameSecond = (a: string | null, b: string | null) => a !== null && b !== null && a.slice(0, 19) === b.slice(0, 19);
const offsetOf = (iso: string) => /(Z|[+-]\d{2}:\d{2})$/.exec(iso)?.[1] ?? null;

const rows: Array<{ file: string; want: string; exifr: string | null; exiftool: string | null }> = [];
for (const file of files) {
  const tags = await rawTags(file);
  const want = reference(tags);
  if (!want) continue;
  const ext = path.extname(file).toLowerCase();
  const exifr = (await readMetadata(file, ext, 'image', { linked: false })).metadata.taken_at;
  const exiftool = captureTime(asExifrShape(tags))?.taken_at ?? null;
  rows.push({ file: path.basename(file), want, exifr, exiftool });
}

function score(pick: (r: (typeof rows)[number]) => string | null) {
  let second = 0;
  let offsetRight = 0;
  let offsetAsked = 0;
  const wrong: string[] = [];
  for (const r of rows) {
    const got = pick(r);
    if (sameSecond(got, r.want)) second++;
    else wrong.push(`${r.file}: ${got ?? 'none'} (exiftool ${r.want})`);
    const want = offsetOf(r.want);
    if (want) {
      offsetAsked++;
      if (got && offsetOf(got) === want) offsetRight++;
    }
  }
  return { second, offsetRight, offsetAsked, wrong };
}

/** Files per second reading them all, one after another (median of 3 rounds). */
async function rate(list: string[], read: (file: string) => Promise<unknown>): Promise<number> {
  const per: number[] = [];
  for (let round = 0; round < 3; round++) {
    const t0 = performance.now();
    for (const f of list) await read(f);
    per.push(list.length / ((performance.now() - t0) / 1000));
  }
  return Math.round(per.sort((a, b) => a - b)[1]);
}

const a = score((r) => r.exifr);
const b = score((r) => r.exiftool);
const photos = files.filter((f) => !RAW_EXTENSIONS.includes(path.extname(f).toLowerCase()));
const stage = (f: string) => readMetadata(f, path.extname(f).toLowerCase(), 'image', { linked: false });
const exifrPhotosRate = await rate(photos, stage);
const exifrRate = await rate(files, stage);
const exiftoolRate = await rate(photos, (f) => rawTags(f));
await closeExiftool();
writeResults('date-readers', `Capture time of ${rows.length} real camera and tool files, against exiftool's own answer`, {
  files_with_a_date: rows.length,
  stage_same_second: a.second,
  stage_offset_right: `${a.offsetRight} of ${a.offsetAsked}`,
  stage_differs: a.wrong.join('; ') || 'none',
  exiftool_vendored_same_second: b.second,
  exiftool_vendored_offset_right: `${b.offsetRight} of ${b.offsetAsked}`,
  exiftool_vendored_differs: b.wrong.join('; ') || 'none',
  stage_photos_per_s_photos_only: exifrPhotosRate,
  stage_files_per_s_with_raw: exifrRate,
  exiftool_vendored_photos_per_s: exiftoolRate,
});
process.exit(0);
