// Text in photos people take, read by the real PP-OCRv6 (rapidocr's ONNX files from PyPI, installed
// with `media-index models import ppocr-v6` as a user without a network would) through the real
// server's OCR stage, against transcriptions made by hand (test/fixtures/photo-text-truth.ts) on the
// held-out half of the set — the half no setting was chosen on (bench/photo-text.ts).
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startTestServer, tempDir, type TestServer } from '../test/helpers/server.ts';
import { corpus } from '../test/helpers/corpus.ts';
import { TEXT_PHOTOS } from '../test/fixtures/photo-text-truth.ts';
import { regionsText, wordRecall } from '../test/helpers/word-recall.ts';
import { STAGE_NAMES } from '../server/contract/stages.ts';
import { makePdf } from '../test/helpers/pdf.ts';
import sharp from 'sharp';
import { ffmpeg, revealedPage } from '../test/helpers/ffmpeg.ts';
import { OCR_TRUTH } from '../test/fixtures/ocr-truth.ts';
import { importWithCli } from './helpers.ts';
import { slantedPage } from '../test/helpers/slanted-page.ts';
import { photoTextModels, readPhotoLines } from '../server/ml/photo-text.ts';

const HELD_OUT = TEXT_PHOTOS.filter((_, i) => i % 2 === 1);
const OCR_ONLY = JSON.stringify(Object.fromEntries(STAGE_NAMES.map((n) => [n, n === 'ocr'])));

describe('text in photos read by a real PP-OCRv6', () => {
  const data = tempDir('mi-real-photo-text-');
  let t: TestServer;
  let key: string;

  beforeAll(async () => {
    expect(await importWithCli('ppocr-v6', inject('ppocr'), data)).toMatch(/ppocr-v6.*installed \(pinned\)/s);
    t = await startTestServer({ workers: 2 }, data);
    key = t.key('photo-text');
  });
  afterAll(async () => {
    await t?.close();
  });

  it('reads the held-out photos: word recall ≥ 0.85 on printed text in photos, ≥ 0.95 on photographed book pages as search finds their words', async () => {
    const dir = inject('textPhotos');
    const ids: string[] = [];
    for (const p of HELD_OUT) {
      const up = await t.upload(key, path.join(dir, p.file), { pipeline: 'arrow', options: OCR_ONLY });
      expect(up.status, p.file).toBe(201);
      ids.push(up.body.data.video_id);
    }
    // Words compared by their letters, and as search compares them (the long s as s: the French
    // page of the 18th century is transcribed as printed, "ſuivre", and read "suivre" once its f is read as s).
    const tally = { printed: { found: 0, bySearch: 0, of: 0 }, book: { found: 0, bySearch: 0, of: 0 } };
    for (const [i, id] of ids.entries()) {
      const d = await t.waitCompleted(key, id, 300_000);
      expect(d.index.report.stages.ocr, HELD_OUT[i].file).toMatchObject({ state: 'ok', details: { reader: 'ppocr-v6', text_models: ['ppocr-v6'] } });
      const r = await t.api('GET', `/videos/${id}/regions?timestamp=0`, { key });
      const truth = HELD_OUT[i].lines.join('\n');
      const kind = tally[HELD_OUT[i].kind === 'book' ? 'book' : 'printed'];
      kind.found += wordRecall(regionsText(r.body.data.text), truth).found;
      const bySearch = wordRecall(regionsText(r.body.data.text), truth, 'search');
      kind.bySearch += bySearch.found;
      kind.of += bySearch.of;
    }
    const share = (n: number, of: number) => (n / of).toFixed(3);
    console.log(
      `held-out word recall (letters / as search compares): printed ${share(tally.printed.found, tally.printed.of)} / ${share(tally.printed.bySearch, tally.printed.of)} (${tally.printed.of} words), ` +
        `book pages ${share(tally.book.found, tally.book.of)} / ${share(tally.book.bySearch, tally.book.of)} (${tally.book.of} words)`,
    );
    expect(tally.printed.found / tally.printed.of).toBeGreaterThanOrEqual(0.85);
    expect(tally.book.found / tally.book.of).toBeGreaterThanOrEqual(0.9);
    expect(tally.book.bySearch / tally.book.of).toBeGreaterThanOrEqual(0.95);
    // Found by search, as a user would look for a line of a photographed page.
    const s = await t.api('POST', '/search', { key, json: { query: 'sprinkle with salt and pepper, dredge with flour' } });
    expect(s.body.data.hits[0]).toMatchObject({ video_id: ids[HELD_OUT.findIndex((p) => p.file === 'dewarp_boston_a.jpg')], modality: 'ocr' });
    // …and the page printed with the long s by words that hold one ("conſiſte", "juſte", "ſes").
    const old = await t.api('POST', '/search', { key, json: { query: 'la beauté consiste dans la juste proportion de ses parties' } });
    expect(old.body.data.hits[0]).toMatchObject({ video_id: ids[HELD_OUT.findIndex((p) => p.file === 'lept_cavalerie.jpg')], modality: 'ocr' });
  });

  it('reads a page photographed at a strong slant, its text block drawn again as a rectangle, and boxes its lines where they are in the photo', async () => {
    const { file: slanted, truth } = await slantedPage(tempDir('mi-real-slant-'));
    const up = await t.upload(key, slanted, { pipeline: 'arrow', options: OCR_ONLY });
    expect(up.status).toBe(201);
    await t.waitCompleted(key, up.body.data.video_id, 300_000);
    const regions = (await t.api('GET', `/videos/${up.body.data.video_id}/regions?timestamp=0`, { key })).body.data.text as Array<{
      text: string;
      x: number;
      y: number;
      w: number;
      h: number;
    }>;
    const read = wordRecall(regionsText(regions), truth);
    // Read where the lines are, as before the page was drawn again: 0.807 of its words.
    const { data: pixels, info } = await sharp(slanted).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    const asFound = await readPhotoLines({ data: pixels, width: info.width, height: info.height, channels: 3 }, photoTextModels(path.join(data, 'models')), {
      perspective: false,
    });
    const before = wordRecall(asFound.map((l) => l.text).join('\n'), truth);
    console.log(
      `slanted page: word recall ${(read.found / read.of).toFixed(3)} drawn again, ${(before.found / before.of).toFixed(3)} read where the lines are (${read.of} words)`,
    );
    expect(read.found / read.of).toBeGreaterThanOrEqual(0.86);
    expect(before.found / before.of).toBeLessThan(0.86);
    // The last line ("…go back by railway,' she said to") is boxed low on the slanted page, across its middle.
    const last = regions.find((r) => r.text.includes('railway'));
    expect(last, JSON.stringify(regions.map((r) => r.text))).toBeDefined();
    expect(last!.y + last!.h / 2).toBeGreaterThan(0.55);
    expect(last!.y + last!.h / 2).toBeLessThan(0.66);
    expect(last!.x).toBeLessThan(0.35);
    expect(last!.x + last!.w).toBeGreaterThan(0.6);
  });

  it('leaves a photo to tesseract where Hindi is asked for (no PP-OCR model reads Devanagari here)', async () => {
    const options = JSON.stringify({ ...JSON.parse(OCR_ONLY), ocr: { languages: ['en', 'hi'] } });
    const up = await t.upload(key, corpus('ocr/images/imageTextN.png'), { pipeline: 'arrow', options });
    expect(up.status).toBe(201);
    const d = await t.waitCompleted(key, up.body.data.video_id, 300_000);
    expect(d.index.report.stages.ocr).toMatchObject({ state: 'ok', details: { reader: 'tesseract', text_models: ['ppocr-v6'] } });
    expect(d.index.report.stages.ocr.counts.chars).toBeGreaterThan(20);
  });

  it('reads the frames of a video with it too: a page filmed for four seconds is found at its moment', async () => {
    const video = path.join(tempDir('mi-real-photo-text-video-'), 'page.mp4');
    // Black for two seconds, then the page (a tuning-half photo) for four.
    ffmpeg(
      '-f lavfi -i color=c=black:size=1280x960:rate=5:duration=2 -loop 1 -framerate 5 -t 4 -i $0 -filter_complex [1:v]scale=1280:960,setsar=1[p];[0:v][p]concat=n=2:v=1 -c:v libx264 -pix_fmt yuv420p $1',
      path.join(inject('textPhotos'), 'dewarp_boston_b.jpg'),
      video,
    );
    const up = await t.upload(key, video, { pipeline: 'arrow', options: OCR_ONLY });
    expect(up.status).toBe(201);
    const d = await t.waitCompleted(key, up.body.data.video_id, 300_000);
    expect(d.index.report.stages.ocr).toMatchObject({ state: 'ok', details: { reader: 'ppocr-v6' } });
    const s = await t.api('POST', '/search', { key, json: { query: 'Fried chicken is prepared and cooked same as Chicken Fricassee' } });
    const hit = s.body.data.hits.find((h: { video_id: string }) => h.video_id === up.body.data.video_id);
    expect(hit).toMatchObject({ modality: 'ocr' });
    expect(hit.timestamp).toBeGreaterThanOrEqual(2);
    expect(hit.timestamp).toBeLessThanOrEqual(4);
  });

  it('reads a page revealed a few lines at a time in the parts of the frames that change, as well as whole', async () => {
    const video = revealedPage(path.join(tempDir('mi-real-photo-text-video-'), 'revealed-page.mp4'));
    const up = await t.upload(key, video, { pipeline: 'arrow', options: OCR_ONLY });
    expect(up.status).toBe(201);
    const d = await t.waitCompleted(key, up.body.data.video_id, 300_000);
    const ocr = d.index.report.stages.ocr;
    expect(ocr).toMatchObject({ state: 'ok', counts: { frames: 6 }, details: { reader: 'ppocr-v6' } });
    // PP-OCR's paragraphs are larger than tesseract's: a part grown to one may come to most of the
    // frame, which is then read whole. Most frames are read in part all the same.
    expect(ocr.details.frames_read).toBeLessThanOrEqual(2);
    expect(ocr.details.frames_read + ocr.details.frames_read_in_part).toBe(6);
    const truth = OCR_TRUTH['ocr/images/imageTextN.png'];
    const recalls: number[] = [];
    for (const s of [0, 2, 4, 6, 8, 10]) {
      const r = wordRecall(regionsText((await t.api('GET', `/videos/${up.body.data.video_id}/regions?timestamp=${s}`, { key })).body.data.text), truth);
      recalls.push(r.found / r.of);
    }
    expect(recalls[0]).toBe(0);
    for (let i = 1; i < recalls.length; i++) expect(recalls[i]).toBeGreaterThan(recalls[i - 1]);
    expect(recalls[5]).toBeGreaterThanOrEqual(0.95);
  });

  it('installs the files as the pinned entry', () => {
    for (const f of ['PP-OCRv6_det_small.onnx', 'PP-OCRv6_rec_small.onnx', 'ch_ppocr_mobile_v2.0_cls_mobile.onnx', 'keys.txt']) {
      expect(fs.existsSync(path.join(data, 'models', 'ppocr-v6', f)), f).toBe(true);
    }
  });
});

describe('ppocr-v6 installed after photos were read', () => {
  const data = tempDir('mi-real-photo-text-later-');
  let t: TestServer;
  afterAll(async () => {
    await t?.close();
  });

  it("reads again, at the next start, the photos read without it, and not the documents' scanned pages", async () => {
    t = await startTestServer({ workers: 1 }, data);
    const key = t.key('later');
    const photo = await t.upload(key, path.join(inject('textPhotos'), 'dewarp_boston_b.jpg'), { pipeline: 'arrow', options: OCR_ONLY });
    const page = await sharp(corpus('ocr/images/imageTextN.png')).flatten({ background: '#ffffff' }).jpeg().toBuffer();
    const meta = await sharp(page).metadata();
    const scan = await t.upload(
      key,
      { name: 'scan.pdf', data: makePdf([{ jpeg: page, width: meta.width!, height: meta.height! }]) },
      { pipeline: 'arrow', options: OCR_ONLY },
    );
    const [photoId, scanId] = [photo.body.data.video_id, scan.body.data.video_id];
    const before = await t.waitCompleted(key, photoId, 300_000);
    expect(before.index.report.stages.ocr).toMatchObject({ state: 'ok', details: { reader: 'tesseract', text_models: [] } });
    const scanBefore = (await t.waitCompleted(key, scanId, 300_000)).index.report.stages.ocr;
    expect(scanBefore).toMatchObject({ state: 'ok', details: { reader: 'tesseract' } });
    expect(scanBefore.counts.chars).toBeGreaterThan(100);

    // Imported while the service runs, then the service started again, as docs/models.md says.
    expect(await importWithCli('ppocr-v6', inject('ppocr'), data)).toMatch(/installed/);
    await t.restart();
    const deadline = Date.now() + 300_000;
    let ocr = before.index.report.stages.ocr;
    while (ocr.details?.reader !== 'ppocr-v6' || ocr.state !== 'ok') {
      expect(Date.now()).toBeLessThan(deadline);
      await new Promise((r) => setTimeout(r, 200));
      const r = await t.api('GET', `/videos/${photoId}`, { key });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      ocr = r.body.data.index.report.stages.ocr;
    }
    expect(ocr.details.text_models).toEqual(['ppocr-v6']);
    expect(ocr.counts.chars).toBeGreaterThan(before.index.report.stages.ocr.counts.chars);
    const scanAfter = (await t.waitCompleted(key, scanId)).index.report.stages.ocr;
    expect(scanAfter.finished_at).toBe(scanBefore.finished_at);
  });

  it('reads them again at once when it is imported through the app (POST /models/{name}/import, as Settings does)', async () => {
    const live = await startTestServer({ workers: 1 }, tempDir('mi-real-photo-text-live-'));
    try {
      const key = live.key('live');
      const photo = await live.upload(key, path.join(inject('textPhotos'), 'lept_underline2.jpg'), { pipeline: 'arrow', options: OCR_ONLY });
      const id = photo.body.data.video_id;
      const before = (await live.waitCompleted(key, id, 300_000)).index.report.stages.ocr;
      expect(before.details).toMatchObject({ reader: 'tesseract', text_models: [] });
      const imported = await live.api('POST', '/models/ppocr-v6/import', { key, json: { from: inject('ppocr') } });
      expect(imported.status).toBe(202);
      const deadline = Date.now() + 300_000;
      let ocr = before;
      while (ocr.details?.reader !== 'ppocr-v6' || ocr.state !== 'ok') {
        expect(Date.now()).toBeLessThan(deadline);
        await new Promise((r) => setTimeout(r, 200));
        ocr = (await live.api('GET', `/videos/${id}`, { key })).body.data.index.report.stages.ocr;
      }
      const models = (await live.api('GET', '/models', { key })).body.data.models as Array<{ name: string; installed: boolean; build: string }>;
      expect(models.find((m) => m.name === 'ppocr-v6')).toMatchObject({ installed: true });
    } finally {
      await live.close();
    }
  });
});
