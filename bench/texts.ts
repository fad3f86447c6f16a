// Real English prose for the search benchmarks, so that a synthetic library has a natural spread of
// common and rare words: the corpus's book (carroll-wonderland.pdf) and e-book
// (project-history.en.epub), and Debian's `fortunes` collection (quotations, literature, poems,
// definitions; about 880k words), fetched once with `apt-get download` into a cache folder.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import JSZip from 'jszip';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const DOCS = path.resolve(HERE, '../../shared/corpus/docs');
const CACHE = path.join(os.homedir(), '.cache', 'media-index', 'texts');

async function pdfText(file: string): Promise<string> {
  const { getDocument } = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const pdf = await getDocument({ data: new Uint8Array(fs.readFileSync(file)), useSystemFonts: false }).promise;
  const out: string[] = [];
  for (let p = 1; p <= pdf.numPages; p++) {
    const c = await (await pdf.getPage(p)).getTextContent();
    for (const it of c.items) if ('str' in it) out.push(it.str);
  }
  await pdf.destroy();
  return out.join(' ');
}

async function epubText(file: string): Promise<string> {
  const zip = await JSZip.loadAsync(fs.readFileSync(file));
  const pages = Object.keys(zip.files).filter((n) => /\.x?html?$/.test(n));
  const texts = await Promise.all(pages.map((n) => zip.files[n].async('string')));
  return texts.map((t) => t.replace(/<[^>]+>/g, ' ').replace(/&[a-z#0-9]+;/g, ' ')).join(' ');
}

function fortunes(): string {
  const dir = path.join(CACHE, 'fortunes', 'usr', 'share', 'games', 'fortunes');
  if (!fs.existsSync(dir)) {
    const work = fs.mkdtempSync(path.join(os.tmpdir(), 'mi-fortunes-'));
    execFileSync('apt-get', ['download', 'fortunes'], { cwd: work, stdio: 'ignore' });
    const deb = fs.readdirSync(work).find((f) => f.endsWith('.deb'));
    if (!deb) throw new Error('apt-get download fortunes gave no package');
    fs.mkdirSync(path.join(CACHE, 'fortunes'), { recursive: true });
    execFileSync('dpkg-deb', ['-x', path.join(work, deb), path.join(CACHE, 'fortunes')]);
    fs.rmSync(work, { recursive: true, force: true });
  }
  return fs
    .readdirSync(dir)
    .filter((f) => !/\.(dat|u8)$/.test(f) && fs.statSync(path.join(dir, f)).isFile())
    .map((f) => fs.readFileSync(path.join(dir, f), 'utf8'))
    .join(' ');
}

/** The sources, each as its words (lower case, letters only, three or more). */
export async function realTexts(): Promise<Array<{ name: string; words: string[] }>> {
  const split = (t: string) => t.toLowerCase().match(/[a-z]{3,}/g) ?? [];
  return [
    { name: 'carroll-wonderland.pdf', words: split(await pdfText(path.join(DOCS, 'carroll-wonderland.pdf'))) },
    { name: 'project-history.en.epub', words: split(await epubText(path.join(DOCS, 'project-history.en.epub'))) },
    { name: 'Debian fortunes', words: split(fortunes()) },
  ];
}

/**
 * A seeded random source (a linear congruential generator: the same numbers for the same seed) and
 * runs of `n` consecutive words of the prose drawn with it.
 */
export function proseSampler(words: readonly string[], seed: number): { rand(): number; sentence(n: number): string } {
  let state = seed;
  const rand = () => (state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 2 ** 32;
  return {
    rand,
    sentence(n) {
      const at = Math.floor(rand() * (words.length - n));
      return words.slice(at, at + n).join(' ');
    },
  };
}
