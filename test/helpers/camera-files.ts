// Real camera files from exiftool's own test set (Image-ExifTool 12.57, t/images: a Canon EOS 350D
// CR2 and its DNG conversion, a Canon EOS M50 CR3, a Nikon D70 NEF, a Panasonic DMC-LX3 RW2, a
// Fujifilm S5Pro RAF, …), whose sensor data and previews were cut down to a few bytes to keep them
// small while every tag is the camera's. Fetched once from Debian's archive (the source tarball of
// libimage-exiftool-perl) into a cache folder outside the repository, checked by its SHA-256.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { downloadChecked } from './download.ts';

const TARBALL = 'libimage-exiftool-perl_12.57+dfsg.orig.tar.xz';
const URL_ = `http://deb.debian.org/debian/pool/main/libi/libimage-exiftool-perl/${TARBALL}`;
const SHA256 = '9de7ccd6ed6adf92038c8d943b1960d087b58c00b3924d19f61a1d774b7610fc';
const CACHE = process.env.MEDIA_INDEX_TEST_DATA_CACHE || path.join(os.homedir(), '.cache', 'media-index', 'test-data');

/** The folder of exiftool's test images (fetched on first use). */
export async function cameraFiles(): Promise<string> {
  const dir = path.join(CACHE, 'exiftool-12.57-images');
  if (fs.existsSync(path.join(dir, '.complete'))) return dir;
  fs.mkdirSync(CACHE, { recursive: true });
  const tarball = await downloadChecked(URL_, path.join(CACHE, TARBALL), SHA256);
  const tmp = fs.mkdtempSync(path.join(CACHE, 'unpack-'));
  try {
    execFileSync('tar', ['-xJf', tarball, '-C', tmp, '--wildcards', '*/t/images/*']);
    fs.rmSync(dir, { recursive: true, force: true });
    fs.renameSync(path.join(tmp, 'Image-ExifTool-12.57', 't', 'images'), dir);
    fs.writeFileSync(path.join(dir, '.complete'), '');
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  return dir;
}
