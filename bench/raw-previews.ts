// Camera RAW through its preview: the extract stage's work on RAW files (the largest embedded JPEG
// read by exiftool, decoded, the 2048 px frame and the thumbnail written) and the metadata reading,
// files per second on one core, against the same photos as plain JPEGs. The RAW files are real
// camera files of exiftool's test set (Canon EOS 350D CR2, Nikon D70 NEF, the DNG of the 350D,
// Panasonic LX3 RW2) into which exiftool writes a full-size 24-megapixel preview (a corpus photo
// brought up to 6000 × 4000, ≈ 5 MB), as cameras of today embed. Medians of 3 rounds.
// Usage: npm run bench -- raw-previews [-- --files 24]
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { extractImage } from '../server/media/image.ts';
import { readMetadata } from '../server/media/metadata.ts';
import { closeExiftool } from '../server/media/raw.ts';
import { cameraFiles } from '../test/helpers/camera-files.ts';
import { arg, spread, writeResults } from './report.ts';
import { CORPUS } from './sets.ts';

const FILES = arg('files', 24);
const cams = await cameraFiles();
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mi-bench-raw-'));
try {
  const preview = path.join(dir, 'preview.jpg');
  await sharp(path.join(CORPUS, 'scenes/opencv/building.jpg')).resize(6000, 4000, { fit: 'fill' }).jpeg({ quality: 92 }).toFile(preview);
  const kinds: Array<[string, string]> = [
    ['CanonRaw.cr2', '-PreviewImage'],
    ['Nikon.nef', '-JpgFromRaw'],
    ['DNG.dng', '-JpgFromRaw'],
    ['Panasonic.rw2', '-JpgFromRaw'],
  ];
  const raws: string[] = [];
  const jpegs: string[] = [];
  for (let i = 0; i < FILES; i++) {
    const [name, tag] = kinds[i % kinds.length];
    const out = path.join(dir, `raw-${i}${path.extname(name)}`);
    fs.copyFileSync(path.join(cams, name), out);
    execFileSync('exiftool', ['-q', '-m', '-overwrite_original', `${tag}<=${preview}`, `-ImageDescription=shot ${i}`, out]);
    raws.push(out);
    const jpeg = path.join(dir, `photo-${i}.jpg`);
    fs.copyFileSync(preview, jpeg);
    jpegs.push(jpeg);
  }
  const round = async (files: string[], what: 'extract' | 'metadata') => {
    const t0 = performance.now();
    for (const [i, f] of files.entries()) {
      const ext = path.extname(f).toLowerCase();
      if (what === 'extract') await extractImage(f, ext, path.join(dir, `asset-${what}-${i}`));
      else await readMetadata(f, ext, 'image', { linked: false });
    }
    return files.length / ((performance.now() - t0) / 1000);
  };
  const results: Record<string, number | string> = { files: FILES, preview: '6000 × 4000 JPEG, q92' };
  await round(raws.slice(0, 2), 'extract'); // exiftool started, sharp warm
  for (const [key, files, what] of [
    ['raw_extract_per_s', raws, 'extract'],
    ['jpeg_extract_per_s', jpegs, 'extract'],
    ['raw_metadata_per_s', raws, 'metadata'],
  ] as const) {
    const s = spread([await round(files, what), await round(files, what), await round(files, what)], 2);
    results[key] = s.median;
    results[`${key}_range`] = s.range;
  }
  writeResults('raw-previews', 'Camera RAW through its preview, one core', results);
} finally {
  await closeExiftool();
  fs.rmSync(dir, { recursive: true, force: true });
}
process.exit(0);
