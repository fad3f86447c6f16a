// Text in photos people take, read three ways and compared with transcriptions made by hand
// (test/fixtures/photo-text-truth.ts: real photos and screenshots from OCR projects' own test
// images, fetched by test/helpers/text-photos.ts):
// - tesseract as the app reads photos without the ppocr-v6 model: the OCR stage through the service
//   (compiled, its indexer processes, the text detector deciding where to look), its text regions
//   read back;
// - PP-OCRv6 (rapidocr's files from PyPI, `npm run real-models -- fetch ppocr-v6`, imported into
//   the service's data folder): the same stage through the service, as a user with the model has it;
// - PP-OCRv4's bundled recognizer on the bundled detector's lines (server/ml/text-recognize.ts), in
//   this process, for reference.
// Figures per kind (photographed pages, scenes, screenshots) on the held-out half (every other
// photo, the odd ones; the even ones are the tuning half, on which the recognizer's line stretch was
// chosen, and every setting of the PP-OCRv6 reading: its detector's size, the line stretch, the
// curved lines, the classifier's double reading): character error rate (edit distance over the reference, lines in reading order, spaces
// folded) and word recall (the reference's words, case and punctuation aside, found among the
// words read; and as search compares words: `_word_recall_search`). Usage: npm run bench -- photo-text [-- --half tune|held-out|all] [--ppocr-only]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import sharp from 'sharp';
import { openStore } from '../server/store/index.ts';
import { AuthService } from '../server/services/auth.service.ts';
import { textLines } from '../server/ml/text-detect.ts';
import { readLines } from '../server/ml/text-recognize.ts';
import { inReadingOrder } from '../server/ml/photo-text.ts';
import { cer } from '../test/fixtures/ocr-truth.ts';
import { TEXT_PHOTOS } from '../test/fixtures/photo-text-truth.ts';
import { textPhotos } from '../test/helpers/text-photos.ts';
import { regionsText, wordRecall } from '../test/helpers/word-recall.ts';
import { fetchPpocr } from '../scripts/real-models.ts';
import { writeResults } from './report.ts';
import { allCompleted, serve, uploadAll } from './serve.ts';

const halfAt = process.argv.indexOf('--half');
const half = halfAt > 0 ? process.argv[halfAt + 1] : 'held-out';
const chosen = TEXT_PHOTOS.filter((_, i) => half === 'all' || (half === 'tune' ? i % 2 === 0 : i % 2 === 1));
const dir = await textPhotos();

async function ppocr(file: string): Promise<string> {
  const img = sharp(file).rotate().resize({ width: 2048, height: 2048, fit: 'inside', withoutEnlargement: true }).flatten({ background: '#ffffff' });
  const { data, info } = await img.removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const rgb = { data, width: info.width, height: info.height };
  const boxes = await textLines({ ...rgb, channels: 3 }, rgb);
  const read = await readLines(rgb, boxes);
  return inReadingOrder(
    boxes.map((b, i) => ({ ...b, text: read[i].text, confidence: read[i].confidence })),
    (l) => l,
  )
    .filter((l) => l.text && l.confidence >= 0.5)
    .map((l) => l.text)
    .join('\n');
}

/** The OCR stage through the service; with `model`, the ppocr-v6 folder imported first. */
async function throughService(files: string[], model?: string): Promise<string[]> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mi-bench-photo-text-'));
  if (model) execFileSync(process.execPath, ['bin/media-index.js', 'models', 'import', 'ppocr-v6', '--from', model, '--data', dataDir], { stdio: 'ignore' });
  const store = openStore(dataDir);
  const key = new AuthService(store).createKey({ workspace: 'bench', scopes: ['read', 'write'] }).key;
  store.close();
  const server = await serve(dataDir);
  try {
    const api = { url: server.url, key };
    const only = { faces: false, people: false, objects: false, labels: false, captions: false };
    const ids = await uploadAll(
      api,
      files.map((f) => ({ name: path.basename(f), data: fs.readFileSync(f) })),
      only,
    );
    await allCompleted(api, ids);
    const out: string[] = [];
    for (const id of ids) {
      const r = await fetch(`${server.url}/api/v1/videos/${id}/regions?timestamp=0`, { headers: { 'X-API-Key': key } });
      out.push(regionsText((await r.json()).data.text));
    }
    return out;
  } finally {
    await server.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

const files = chosen.map((p) => path.join(dir, p.file));
/** `--ppocr-only`: the recognizer alone (tuning it), no service started. */
const ppocrOnly = process.argv.includes('--ppocr-only');
const byTesseract = ppocrOnly ? files.map(() => '') : await throughService(files);
const t6 = performance.now();
const byV6 = ppocrOnly ? files.map(() => '') : await throughService(files, await fetchPpocr());
const v6Seconds = (performance.now() - t6) / 1000;
const byPpocr: string[] = [];
const t0 = performance.now();
for (const f of files) byPpocr.push(await ppocr(f));
const ppocrSeconds = (performance.now() - t0) / 1000;

const results: Record<string, number | string> = {
  half,
  photos: chosen.length,
  ppocr_s_per_photo: Math.round((ppocrSeconds / files.length) * 100) / 100,
  ppocr_v6_service_s_per_photo: Math.round((v6Seconds / files.length) * 100) / 100,
};
for (const kind of ['all', 'printed', 'book', 'scene', 'screenshot', 'scan'] as const) {
  // printed: text in photos other than book pages (scenes, screenshots, scans).
  const idx = chosen.map((p, i) => (kind === 'all' || p.kind === kind || (kind === 'printed' && p.kind !== 'book') ? i : -1)).filter((i) => i >= 0);
  if (!idx.length) continue;
  for (const [name, read] of ppocrOnly
    ? ([['ppocr', byPpocr]] as const)
    : ([
        ['tesseract', byTesseract],
        ['ppocr_v6', byV6],
        ['ppocr', byPpocr],
      ] as const)) {
    let found = 0;
    let foundBySearch = 0;
    let of = 0;
    const cers: number[] = [];
    for (const i of idx) {
      const truth = chosen[i].lines.join('\n');
      const r = wordRecall(read[i], truth);
      found += r.found;
      foundBySearch += wordRecall(read[i], truth, 'search').found;
      of += r.of;
      cers.push(Math.min(1, cer(read[i], truth)));
    }
    results[`${kind}_${name}_word_recall`] = Math.round((found / of) * 1000) / 1000;
    // The same words compared as search compares them (test/helpers/word-recall.ts).
    results[`${kind}_${name}_word_recall_search`] = Math.round((foundBySearch / of) * 1000) / 1000;
    results[`${kind}_${name}_cer_mean`] = Math.round((cers.reduce((a, b) => a + b, 0) / cers.length) * 1000) / 1000;
  }
  results[`${kind}_photos`] = idx.length;
}
if (ppocrOnly) console.table(results);
else
  writeResults(`photo-text-${half}`, `Text in photos: tesseract, PP-OCRv6 (imported) through the OCR stage, PP-OCRv4 (bundled) lines, ${half} half`, results);
process.exit(0);
