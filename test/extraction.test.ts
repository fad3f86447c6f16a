// Extraction over real corpus files, read back through the API: pages, passages, boxes, renders,
// photos of several formats, video shots/keyframes/audio, and broken files.
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpus } from './helpers/corpus.ts';
import { EXTRACT_ONLY, startTestServer, tempDir, type TestServer } from './helpers/server.ts';
import { findFfmpeg } from '../server/media/ffmpeg.ts';
import { shotsFromCuts } from '../server/media/video.ts';

interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

function inside(b: Box) {
  expect(b.x).toBeGreaterThanOrEqual(0);
  expect(b.y).toBeGreaterThanOrEqual(0);
  expect(b.w).toBeGreaterThan(0);
  expect(b.h).toBeGreaterThan(0);
  expect(b.x + b.w).toBeLessThanOrEqual(1.00001);
  expect(b.y + b.h).toBeLessThanOrEqual(1.00001);
}

describe('extraction through the API', () => {
  let t: TestServer;
  let key: string;
  const scratch = tempDir('mi-extract-');
  const ids: Record<string, string> = {};

  async function indexed(name: string, file: string | { name: string; data: Uint8Array }) {
    const r = await t.upload(key, file, { pipeline: 'arrow', options: EXTRACT_ONLY });
    expect(r.status, name).toBe(201);
    ids[name] = r.body.data.video_id;
    return t.waitCompleted(key, ids[name], 60_000);
  }

  beforeAll(async () => {
    t = await startTestServer({ workers: 2 });
    key = t.key('library');
  });
  afterAll(async () => {
    await t.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  it('reads carroll-wonderland.pdf: page count, passages with boxes inside the page in reading order, a render', async () => {
    const d = await indexed('carroll', corpus('docs/carroll-wonderland.pdf'));
    expect(d.page_count).toBe(83);
    expect(d.index.report.stages.extract).toMatchObject({ state: 'ok', counts: { pages: 83 } });
    // Text pages are drawn on first request: page 1 and pages for OCR now; the thumbnail is drawn
    // from page 1 at its own size.
    const asset = path.join(t.dataDir, 'assets', d.video_id);
    const pages = path.join(asset, 'pages');
    expect(fs.existsSync(path.join(asset, 'thumb.jpg'))).toBe(true);
    expect(fs.existsSync(path.join(pages, 'p00001.jpg'))).toBe(true);
    expect(fs.existsSync(path.join(pages, 'p00005.jpg'))).toBe(false);
    // Three pages hold only a running header ("12 CONTENTS"): too few letters for a text page, but
    // no ink for OCR to find either (measured on a small copy of the page), so nothing goes to OCR
    // and nothing more is drawn.
    expect(d.index.report.stages.extract.counts).toMatchObject({ blank_pages: 3, pages_needing_ocr: 0, pages_rendered: 1 });
    expect(fs.existsSync(path.join(pages, 'p00003.jpg'))).toBe(false);
    const p3 = (await t.api('GET', `/videos/${d.video_id}/pages/3`, { key })).body.data;
    expect(p3).toMatchObject({ needs_ocr: false, text: '12 CONTENTS' });

    const p1 = await t.api('GET', `/videos/${d.video_id}/pages/1`, { key });
    expect(p1.status).toBe(200);
    expect(p1.body.data).toMatchObject({ video_id: d.video_id, page: 1, page_count: 83, timestamp: 0, text_source: 'text_layer' });
    expect(p1.body.data.passages.map((p: { text: string }) => p.text)).toEqual(['Alice in Wonderland', 'Lewis Carroll']);

    const p5 = (await t.api('GET', `/videos/${d.video_id}/pages/5`, { key })).body.data;
    expect(p5.passages.length).toBeGreaterThan(4);
    expect(p5.passages[0].text).toMatch(/DOWN THE RABBIT-HOLE/);
    expect(p5.passages.some((p: { text: string }) => p.text.startsWith('Down, down, down. Would the fall NEVER come to an end!'))).toBe(true);
    p5.passages.forEach((p: { idx: number; bbox: Box }, i: number) => {
      expect(p.idx).toBe(i);
      inside(p.bbox);
      if (i > 0) expect(p.bbox.y).toBeGreaterThan(p5.passages[i - 1].bbox.y); // top to bottom
    });
    expect(p5.text).toContain('Dinah');
    expect(p5.regions.text.length).toBeGreaterThan(20);
    p5.regions.text.forEach((l: Box) => inside(l));

    // The render is served through the signed frame_url, usable without a key (an <img> tag).
    const img = await fetch(p5.frame_url);
    expect(img.status).toBe(200);
    expect(img.headers.get('content-type')).toBe('image/jpeg');
    const meta = await sharp(Buffer.from(await img.arrayBuffer())).metadata();
    expect(Math.max(meta.width!, meta.height!)).toBe(1280);
    expect(Math.abs(meta.width! / meta.height! - p5.width / p5.height)).toBeLessThan(0.01);
    // Pages asked for at once are drawn in turn by the one drawing thread, each once.
    const urls = await Promise.all([6, 7, 8].map(async (n) => (await t.api('GET', `/videos/${d.video_id}/pages/${n}`, { key })).body.data.frame_url as string));
    const drawn = await Promise.all([...urls, urls[0]].map((u) => fetch(u)));
    expect(drawn.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    for (const n of [6, 7, 8]) expect(fs.existsSync(path.join(pages, `p0000${n}.jpg`))).toBe(true);

    // A running head, printed on every other page of its chapter, is on every page shown and found
    // once by a search for its words: the passages that tell of the tea-party come next, not copies
    // of the head.
    const p45 = (await t.api('GET', `/videos/${d.video_id}/pages/45`, { key })).body.data;
    expect(p45.passages[0].text).toBe('54 CHAPTER 7. A MAD TEA-PARTY');
    const hits = (await t.api('POST', '/search', { key, json: { query: 'mad tea party', video_id: d.video_id, limit: 10 } })).body.data.hits as Array<{
      snippet: { text: string };
    }>;
    expect(hits.filter((h) => /CHAPTER 7\. A MAD TEA-PARTY/.test(h.snippet.text))).toHaveLength(1);
    // Where a passage of the page's body holds as many of the words asked, the page shows that
    // passage rather than its head.
    const tea = (await t.api('POST', '/search', { key, json: { query: 'tea', video_id: d.video_id, limit: 50 } })).body.data.hits as Array<{
      page: number;
      snippet: { text: string };
    }>;
    expect(tea.find((h) => h.page === 45)?.snippet.text).toMatch(/tea-t(ray|ime)|teathings/);
    expect(tea.filter((h) => /CHAPTER 7\. A MAD TEA-PARTY/.test(h.snippet.text))).toHaveLength(0);
  });

  it('answers bad page numbers with 422 and pages out of range with 404; photos and videos have no pages', async () => {
    const id = ids.carroll;
    for (const p of ['0', '-1', 'abc', '1.5']) expect((await t.api('GET', `/videos/${id}/pages/${p}`, { key })).status, p).toBe(422);
    const out = await t.api('GET', `/videos/${id}/pages/84`, { key });
    expect(out.status).toBe(404);
    expect(out.body.error.code).toBe('not_found');
    const photo = await indexed('chelsea', corpus('scenes/skimage/chelsea.png'));
    // A photo's original is served for its 1:1 zoom (a PNG browsers show); a document has none.
    expect(photo.media_url).toMatch(/\/frames\/original\?/);
    expect((await t.api('GET', `/videos/${id}`, { key })).body.data.media_url).toBeNull();
    expect((await t.api('GET', `/videos/${photo.video_id}/pages/1`, { key })).status).toBe(404);
  });

  it('serves regions by page, by timestamp (page k at k - 1) and all at once; refuses bad queries', async () => {
    const id = ids.carroll;
    const byPage = await t.api('GET', `/videos/${id}/regions?page=5`, { key });
    expect(byPage.status).toBe(200);
    expect(byPage.body.data).toMatchObject({ page: 5, timestamp: 4, objects: [], faces: [] });
    const byTime = await t.api('GET', `/videos/${id}/regions?timestamp=4`, { key });
    expect(byTime.body.data.text).toEqual(byPage.body.data.text);
    expect(byTime.body.data.text[0]).toMatchObject({ text: expect.stringMatching(/CHAPTER 1/), source: 'text_layer' });
    const all = await t.api('GET', `/videos/${id}/regions`, { key });
    expect(all.body.data.text.length).toBeGreaterThan(byPage.body.data.text.length);
    expect(all.body.data.at.length).toBe(all.body.data.text.length);
    for (const q of ['timestamp=-1', 'page=0', 'page=2&timestamp=1', 'timestamp=x', 'bogus=1']) {
      expect((await t.api('GET', `/videos/${id}/regions?${q}`, { key })).status, q).toBe(422);
    }
    expect((await t.api('GET', `/videos/${id}/regions?page=100`, { key })).status).toBe(404);
  });

  it('guards frame files: signature or key, nothing for other workspaces or tampered URLs', async () => {
    const page = (await t.api('GET', `/videos/${ids.carroll}/pages/2`, { key })).body.data;
    const url = new URL(page.frame_url);
    const tampered = new URL(url);
    const sig = url.searchParams.get('sig')!;
    tampered.searchParams.set('sig', `${sig.slice(0, -2)}${sig.endsWith('AA') ? 'BB' : 'AA'}`);
    expect((await fetch(tampered)).status).toBe(403);
    const otherPage = new URL(url);
    otherPage.pathname = otherPage.pathname.replace('p00002', 'p00003');
    expect((await fetch(otherPage)).status).toBe(403);
    const later = new URL(url);
    later.searchParams.set('exp', String(Number(url.searchParams.get('exp')) + 3600));
    expect((await fetch(later)).status).toBe(403);
    const bare = `${url.origin}${url.pathname}`;
    expect((await fetch(bare)).status).toBe(401);
    expect((await fetch(bare, { headers: { 'X-API-Key': key } })).status).toBe(200);
    expect((await fetch(bare, { headers: { 'X-API-Key': t.key('stranger') } })).status).toBe(404);
    expect((await fetch(`${url.origin}${url.pathname.replace('p00002.jpg', '..%2Fmedia-index.sqlite')}`, { headers: { 'X-API-Key': key } })).status).toBe(422);
  });

  it('answers 503 original_unavailable for a page not drawn yet whose original is gone; page 1, drawn while indexing, is still served', async () => {
    const copy = Buffer.concat([fs.readFileSync(corpus('docs/carroll-wonderland.pdf')), Buffer.from('\n% another copy\n')]);
    const d = await indexed('carroll-copy', { name: 'carroll-copy.pdf', data: copy });
    fs.rmSync(t.server.store.files.abs(t.server.store.assets.byId(d.video_id)!.stored_path));
    const frame = async (page: number) => fetch((await t.api('GET', `/videos/${d.video_id}/pages/${page}`, { key })).body.data.frame_url);
    const gone = await frame(2);
    expect(gone.status).toBe(503);
    expect(((await gone.json()) as { error: { code: string } }).error.code).toBe('original_unavailable');
    expect((await frame(1)).status).toBe(200);
  });

  it("draws a text file's thumbnail from what was read, anew after the file is read again, with its original gone", async () => {
    const d = await indexed('notes', { name: 'notes.txt', data: Buffer.from('Field notes from the heron colony.\n\nNine nests on the east bank.\n') });
    const thumbFile = path.join(t.dataDir, 'assets', d.video_id, 'thumb.jpg');
    const drawn = async () => {
      const r = await fetch(d.thumbnail_url);
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toMatch(/image\/jpeg/);
      // Text on a white sheet.
      const { channels } = await sharp(Buffer.from(await r.arrayBuffer())).stats();
      expect(channels[0].max).toBeGreaterThan(240);
      expect(channels[0].min).toBeLessThan(170);
      expect(fs.existsSync(thumbFile)).toBe(true);
    };
    expect(fs.existsSync(thumbFile)).toBe(false);
    await drawn();
    // Read again: the sheet drawn from the earlier reading goes with it, and is drawn again when asked for.
    expect((await t.api('POST', `/videos/${d.video_id}/reindex`, { key, json: { stages: ['extract'] } })).status).toBe(202);
    const again = await t.waitCompleted(key, d.video_id, 60_000);
    expect(again.index.report.stages.extract.state).toBe('ok');
    expect(fs.existsSync(thumbFile)).toBe(false);
    // The original is not needed: the sheet is drawn from the passages stored.
    fs.rmSync(t.server.store.files.abs(t.server.store.assets.byId(d.video_id)!.stored_path));
    await drawn();
  });

  it('reads Hindi PDFs: Devanagari from a good text layer, OCR marked where the layer is broken', async () => {
    const xetex = await indexed('xetex', corpus('ocr/hindi-pdf/xetex-examples.pdf'));
    expect(xetex.page_count).toBe(3);
    const p1 = (await t.api('GET', `/videos/${xetex.video_id}/pages/1`, { key })).body.data;
    expect(p1.text).toContain('गणेशाय');
    expect(p1.needs_ocr).toBe(false);

    const examples = await indexed('examples', corpus('ocr/hindi-pdf/examples.pdf'));
    const e1 = (await t.api('GET', `/videos/${examples.video_id}/pages/1`, { key })).body.data;
    expect(e1.needs_ocr).toBe(true);
    // eslint-disable-next-line no-control-regex -- control characters are what the check looks for
    expect(e1.text).not.toMatch(/[\u0000-\u0008]/);
    expect(e1.frame_url).toBeTruthy();
    expect(examples.index.report.stages.extract.counts.pages_needing_ocr).toBeGreaterThan(0);
  });

  it.each([
    ['office/example.docx', 1, 'Lorem ipsum dolor sit amet'],
    ['office/example.pptx', 3, 'A table'],
    ['office/a-text.odt', 1, 'This is a text from LibreOffice Writer'],
    ['office/2014-small-talk.odp', 11, 'DISTRHO Plugin Framework'],
    ['docs/project-history.en.epub', 30, 'A Brief History of Debian'],
  ])('reads %s as text pages (%i) with synthesized boxes and a thumbnail of page 1', async (file, pages, phrase) => {
    const d = await indexed(file, corpus(file));
    expect(d.page_count).toBe(pages);
    const p1 = (await t.api('GET', `/videos/${d.video_id}/pages/1`, { key })).body.data;
    expect(p1).toMatchObject({ text_source: 'text', needs_ocr: false, frame_url: null });
    expect(p1.text).toContain(phrase);
    // The thumbnail is the first page as laid out: a white sheet of A4 proportions with the text on
    // it, drawn from the stored passages on its first request, not while the file was indexed.
    const thumbFile = path.join(t.dataDir, 'assets', d.video_id, 'thumb.jpg');
    expect(fs.existsSync(thumbFile)).toBe(false);
    const thumb = sharp(Buffer.from(await (await fetch(d.thumbnail_url)).arrayBuffer()));
    expect(fs.existsSync(thumbFile)).toBe(true);
    expect(await thumb.metadata()).toMatchObject({ format: 'jpeg', width: 320, height: 452 });
    const { channels } = await thumb.stats();
    expect(channels[0].max).toBeGreaterThan(240);
    expect(channels[0].min).toBeLessThan(170);
    let lastBottom = 0;
    for (const p of p1.passages) {
      inside(p.bbox);
      expect(p.bbox.y).toBeGreaterThanOrEqual(lastBottom - 1e-6);
      lastBottom = p.bbox.y + p.bbox.h;
    }
  });

  it('reads datasets.xlsx with one page per sheet, rows as passages', async () => {
    const d = await indexed('xlsx', corpus('office/datasets.xlsx'));
    expect(d.page_count).toBe(4);
    const p1 = (await t.api('GET', `/videos/${d.video_id}/pages/1`, { key })).body.data;
    expect(p1.passages[0].text).toBe('iris');
    expect(p1.passages[1].text).toBe('Sepal.Length | Sepal.Width | Petal.Length | Petal.Width | Species');
    expect(p1.passages.length).toBe(152);
  });

  it('reads html, markdown, csv, rtf and plain text', async () => {
    const html = await indexed('html', {
      name: 'page.html',
      data: Buffer.from(
        '<html><head><title>x</title><script>evil()</script></head><body><h1>Heading</h1><p>First <b>para</b>.</p><ul><li>item one</li></ul></body></html>',
      ),
    });
    const h = (await t.api('GET', `/videos/${html.video_id}/pages/1`, { key })).body.data;
    expect(h.passages.map((p: { text: string }) => p.text)).toEqual(['Heading', 'First para.', 'item one']);
    const md = await indexed('md', { name: 'notes.md', data: Buffer.from('# Title\n\nSome *text* here.\n\n- a point\n') });
    expect((await t.api('GET', `/videos/${md.video_id}/pages/1`, { key })).body.data.passages.map((p: { text: string }) => p.text)).toEqual([
      'Title',
      'Some text here.',
      'a point',
    ]);
    const rows = Array.from({ length: 250 }, (_, i) => `${i},name ${i},"quoted, value"`).join('\n');
    const csv = await indexed('csv', { name: 'table.csv', data: Buffer.from(`id,name,note\n${rows}\n`) });
    expect(csv.page_count).toBe(3);
    expect((await t.api('GET', `/videos/${csv.video_id}/pages/1`, { key })).body.data.passages[1].text).toBe('0 | name 0 | quoted, value');
    const rtf = await indexed('rtf', {
      name: 'letter.rtf',
      data: Buffer.from('{\\rtf1\\ansi{\\fonttbl\\f0\\fswiss Helvetica;}\\f0\\pard Dear reader,\\par This is RTF.\\par}'),
    });
    expect((await t.api('GET', `/videos/${rtf.video_id}/pages/1`, { key })).body.data.text).toMatch(/Dear reader,[\s\S]*This is RTF\./);
    const long = Array.from({ length: 40 }, (_, i) => `Paragraph ${i} ${'word '.repeat(30)}`).join('\n\n');
    const txt = await indexed('txt', { name: 'long.txt', data: Buffer.from(long) });
    expect(txt.page_count).toBe(3);
  });

  it('reads photos of several formats (incl. BMP, TIFF, WebP, GIF, AVIF of 8 and 10 bits) with EXIF orientation applied', async () => {
    const tools = findFfmpeg();
    expect(tools).not.toBeNull();
    const src = corpus('scenes/skimage/chelsea.png'); // 451 x 300
    const bmp = path.join(scratch, 'chelsea.bmp');
    execFileSync(tools!.ffmpeg, ['-v', 'error', '-y', '-i', src, bmp]);
    const variants: Array<[string, Buffer]> = [
      ['chelsea.bmp', fs.readFileSync(bmp)],
      ['chelsea.tif', await sharp(src).tiff().toBuffer()],
      ['chelsea.webp', await sharp(src).webp().toBuffer()],
      ['chelsea.gif', await sharp(src).gif().toBuffer()],
      ['chelsea.jpg', await sharp(src).jpeg().toBuffer()],
      ['chelsea.avif', await sharp(src).avif({ bitdepth: 8 }).toBuffer()],
      ['chelsea-10bit.avif', await sharp(src).avif({ bitdepth: 10 }).toBuffer()],
    ];
    for (const [name, data] of variants) {
      const d = await indexed(name, { name, data });
      expect(d.index.report.stages.extract.state, name).toBe('ok');
      expect([d.width, d.height], name).toEqual([451, 300]);
      expect(d.thumbnail_url, name).toBeTruthy();
      const thumb = await sharp(Buffer.from(await (await fetch(d.thumbnail_url)).arrayBuffer())).metadata();
      expect(thumb.width).toBe(320);
    }
    // A camera that stored the picture sideways with orientation 6: width and height swap.
    const rotated = await sharp(src).jpeg().withMetadata({ orientation: 6 }).toBuffer();
    const r = await indexed('rotated', { name: 'rotated.jpg', data: rotated });
    expect([r.width, r.height]).toEqual([300, 451]);
    const frame = (await t.api('GET', `/videos/${r.video_id}/regions?timestamp=0`, { key })).body.data.frame_url;
    const fm = await sharp(Buffer.from(await (await fetch(frame)).arrayBuffer())).metadata();
    expect([fm.width, fm.height]).toEqual([300, 451]);
  });

  it('reads movie-hello.mp4: duration, keyframes and 16 kHz audio within 1% of the probed duration', async () => {
    const d = await indexed('movie', corpus('video/forensics/movie-hello.mp4'));
    expect(d).toMatchObject({ width: 1280, height: 720 });
    expect(d.duration_s).toBeCloseTo(8.33, 1);
    // Extraction drew the poster frame only; the shots stage read the video through.
    expect(d.index.report.stages.extract.counts.frames).toBe(1);
    expect(d.index.report.stages.extract.details).toMatchObject({ video_codec: 'h264', audio_codec: 'aac' });
    const c = d.index.report.stages.shots.counts;
    expect(c.shots).toBeGreaterThanOrEqual(1);
    expect(c.frames).toBe(c.shots);
    expect(Math.abs(c.audio_s - d.duration_s) / d.duration_s).toBeLessThan(0.01);
    const audio = path.join(t.dataDir, 'assets', d.video_id, 'audio.wav');
    const hdr = fs.readFileSync(audio).subarray(0, 44);
    expect(hdr.readUInt16LE(22)).toBe(1); // mono
    expect(hdr.readUInt32LE(24)).toBe(16000);
    const at = (await t.api('GET', `/videos/${d.video_id}/regions?timestamp=4`, { key })).body.data;
    expect(at.frame_url).toMatch(/\/frames\/k00001\.jpg\?/);
    expect((await fetch(at.frame_url)).status).toBe(200);
    expect((await t.api('GET', `/videos/${d.video_id}/regions?timestamp=60`, { key })).status).toBe(404);

    // The original for a player: signed, served in byte ranges so it can seek.
    const size = fs.statSync(corpus('video/forensics/movie-hello.mp4')).size;
    const media = new URL(d.media_url);
    const head = await fetch(media, { headers: { Range: 'bytes=0-99' } });
    expect(head.status).toBe(206);
    expect(head.headers.get('content-range')).toBe(`bytes 0-99/${size}`);
    expect(head.headers.get('content-type')).toBe('video/mp4');
    expect((await head.arrayBuffer()).byteLength).toBe(100);
    const tail = await fetch(media, { headers: { Range: 'bytes=-10' } });
    expect(Buffer.from(await tail.arrayBuffer())).toEqual(fs.readFileSync(corpus('video/forensics/movie-hello.mp4')).subarray(size - 10));
    expect((await fetch(media, { headers: { Range: `bytes=${size}-` } })).status).toBe(416);
    const whole = await fetch(media);
    expect(whole.status).toBe(200);
    expect(Number(whole.headers.get('content-length'))).toBe(size);
    await whole.arrayBuffer();
    expect((await fetch(`${media.origin}${media.pathname}`)).status).toBe(401);
    const forged = new URL(media);
    const sig = media.searchParams.get('sig')!;
    // Two characters changed (never to what they were: a signature may end in "AA" itself).
    forged.searchParams.set('sig', `${sig.slice(0, -2)}${sig.endsWith('AA') ? 'BB' : 'AA'}`);
    expect((await fetch(forged)).status).toBe(403);
  });

  it('reads vtest.avi (no audio track) and finds the cuts of a video made of three different shots', async () => {
    const v = await indexed('vtest', corpus('video/opencv/vtest.avi'));
    expect(v.duration_s).toBeGreaterThan(70);
    expect(v.index.report.stages.shots.counts.audio_s).toBeUndefined();
    expect(v.index.report.stages.extract.details).toMatchObject({ audio_codec: null });
    expect(v.index.report.stages.speech).toMatchObject({ state: 'not_applicable', reason: 'the video has no audio track' });

    const cuts = path.join(scratch, 'three-shots.mp4');
    execFileSync(findFfmpeg()!.ffmpeg, [
      '-v',
      'error',
      '-y',
      '-f',
      'lavfi',
      '-i',
      'testsrc=size=320x240:rate=25:duration=2',
      '-f',
      'lavfi',
      '-i',
      'color=c=red:size=320x240:rate=25:duration=2',
      '-f',
      'lavfi',
      '-i',
      'mandelbrot=size=320x240:rate=25',
      '-filter_complex',
      '[2:v]trim=duration=2,setpts=PTS-STARTPTS[m];[0:v][1:v][m]concat=n=3:v=1[v]',
      '-map',
      '[v]',
      '-pix_fmt',
      'yuv420p',
      cuts,
    ]);
    const d = await indexed('cuts', cuts);
    expect(d.index.report.stages.shots.counts.shots).toBe(3);
    const second = (await t.api('GET', `/videos/${d.video_id}/regions?timestamp=3`, { key })).body.data;
    expect(second.frame_url).toMatch(/k00002\.jpg/);
    const px = await sharp(Buffer.from(await (await fetch(second.frame_url)).arrayBuffer())).stats();
    expect(px.channels[0].mean).toBeGreaterThan(200); // the red shot
    expect(px.channels[1].mean).toBeLessThan(60);
  });

  it("takes the length of a recording whose container does not say it (a browser's WebM) from reading it through", async () => {
    // Written to a pipe, as a browser's recorder writes it: no duration, no cues.
    const webm = execFileSync(
      findFfmpeg()!.ffmpeg,
      ['-v', 'error', '-f', 'lavfi', '-i', 'testsrc=size=320x240:rate=10:duration=4', '-f', 'lavfi', '-i', 'sine=frequency=440:duration=4'].concat([
        '-c:v',
        'libvpx',
        '-b:v',
        '200k',
        '-c:a',
        'libopus',
        '-shortest',
        '-f',
        'webm',
        'pipe:1',
      ]),
      { maxBuffer: 64 * 1024 ** 2 },
    );
    const d = await indexed('recorded', { name: 'recorded.webm', data: webm });
    expect(d.index.report.stages.extract.state).toBe('ok');
    expect(d.index.report.stages.extract.counts.duration_s).toBeUndefined();
    expect(d.index.report.stages.shots.state).toBe('ok');
    expect(d.duration_s).toBeCloseTo(4, 0);
    expect(d.thumbnail_url).toBeTruthy();
  });

  it('ends corrupt and truncated files in extract failed with a reason, and keeps serving', async () => {
    const cases: Array<[string, Buffer]> = [
      ['cut.mp4', fs.readFileSync(corpus('video/forensics/movie-hello.mp4')).subarray(0, 2_000)],
      ['cut.pdf', fs.readFileSync(corpus('docs/carroll-wonderland.pdf')).subarray(0, 4_000)],
      // A JPEG with its header and hardly any picture: what a decoder would show is nearly all its grey fill.
      ['cut.jpg', fs.readFileSync(corpus('faces/portraits/grace_hopper_512x512.jpg')).subarray(0, 600)],
      ['cut.docx', fs.readFileSync(corpus('office/example.docx')).subarray(0, 30_000)],
    ];
    for (const [name, data] of cases) {
      const r = await t.upload(key, { name, data });
      expect(r.status, name).toBe(201);
      const d = await t.waitCompleted(key, r.body.data.video_id);
      const ex = d.index.report.stages.extract;
      expect(ex.state, name).toBe('failed');
      expect(ex.reason, name).toMatch(/^(corrupt|no_video_stream)/);
      // What needs extraction fails with it; a Word file's OCR never applied (it is read as text), and
      // the sentence encoder's run, its model not installed here, was settled as the file came in.
      expect(d.index.report.stages.embeddings.reason, name).toMatch(/^model_not_installed: /);
      expect(d.index.report.stages.ocr.reason, name).toBe(
        name.endsWith('.docx') ? 'a .docx document is read as text; its pictures are not indexed' : 'dependency_failed: extract',
      );
      const dir = path.join(t.dataDir, 'assets', d.video_id);
      expect(fs.readdirSync(dir).filter((f) => !f.startsWith('original'))).toEqual([]);
    }
    expect((await t.api('GET', '/health')).status).toBe(200);
  });

  it('reads a video copied only in part as far as it goes, and says where it ends', async () => {
    // The first 60 kB of movie-hello.mp4 (its header first): the header says 8.3 s, the data holds 0.2 s.
    const part = fs.readFileSync(corpus('video/forensics/movie-hello.mp4')).subarray(0, 60_000);
    const d = await t.waitCompleted(key, (await t.upload(key, { name: 'part.mp4', data: part })).body.data.video_id);
    // Its poster is drawn from the part there is (the middle of what the header says is not), and
    // kept with the time it was taken at.
    expect(d.index.report.stages.extract.state).toBe('ok');
    expect(d.thumbnail_url).toBeTruthy();
    expect(t.server.store.media.frames(d.video_id).find((f) => f.kind === 'frame')?.timestamp).toBe(0);
    // Reading it through finds where it ends.
    const shots = d.index.report.stages.shots;
    expect(shots.state).toBe('ok');
    expect(shots.details.readable_s).toBeLessThan(1);
    expect(shots.details.damaged).toMatch(/^the file ends after 0\.\d s of its 8\.3 s: it may have been copied only in part$/);
    // The whole file says nothing of the kind.
    const whole = await t.index(key, corpus('video/forensics/movie-hello.mp4'), { ocr: false, faces: false, people: false, labels: false });
    expect(whole.index.report.stages.shots.details.damaged).toBeUndefined();
  });

  it('shows a photo copied only in part as photo programs do, the rest grey, and says how much is missing', async () => {
    // 60 % of a phone's baseline JPEG: its upper part decodes, the decoder fills the rest.
    const file = corpus('scenes/opencv/leuvenA.jpg');
    const part = fs.readFileSync(file).subarray(0, Math.floor(fs.statSync(file).size * 0.6));
    const d = await t.waitCompleted(key, (await t.upload(key, { name: 'part.jpg', data: part }, { options: EXTRACT_ONLY })).body.data.video_id);
    const ex = d.index.report.stages.extract;
    expect(ex.state).toBe('ok');
    const missing = Number(/^the file ends early: (\d+) % of the picture is missing/.exec(ex.details.damaged)?.[1]);
    expect(missing).toBeGreaterThan(20);
    expect(missing).toBeLessThan(50);
    expect(d).toMatchObject({ width: 751, height: 563 });
    const frame = path.join(t.dataDir, 'assets', d.video_id, 'frame.jpg');
    expect(fs.existsSync(frame)).toBe(true);
    // Stored turned (EXIF orientation 6): the missing part is at its side once it is shown upright.
    const turned = path.join(scratch, 'turned.jpg');
    fs.copyFileSync(file, turned);
    execFileSync('exiftool', ['-q', '-overwrite_original', '-Orientation#=6', turned]);
    const turnedPart = fs.readFileSync(turned).subarray(0, Math.floor(fs.statSync(turned).size * 0.6));
    const t6 = await t.waitCompleted(key, (await t.upload(key, { name: 'turned-part.jpg', data: turnedPart }, { options: EXTRACT_ONLY })).body.data.video_id);
    expect(t6).toMatchObject({ width: 563, height: 751 });
    expect(Number(/^the file ends early: (\d+) % of the picture is missing/.exec(t6.index.report.stages.extract.details.damaged)?.[1])).toBe(missing);
    // The whole photo is not damaged.
    const whole = await t.index(key, file, JSON.parse(EXTRACT_ONLY));
    expect(whole.index.report.stages.extract.details?.damaged).toBeUndefined();
  });

  it('shows a PNG copied only in part, and refuses one damaged in its middle', async () => {
    // libpng says "read error" of both: a PNG without its closing IEND chunk was cut short.
    const png = fs.readFileSync(corpus('scenes/skimage/chelsea.png'));
    const part = png.subarray(0, Math.floor(png.length * 0.7));
    const d = await t.waitCompleted(key, (await t.upload(key, { name: 'part.png', data: part }, { options: EXTRACT_ONLY })).body.data.video_id);
    expect(d.index.report.stages.extract.state).toBe('ok');
    const missing = Number(/^the file ends early: (\d+) % of the picture is missing/.exec(d.index.report.stages.extract.details.damaged)?.[1]);
    expect(missing).toBeGreaterThan(15);
    expect(missing).toBeLessThan(60);
    expect(d).toMatchObject({ width: 451, height: 300 });
    const garbled = Buffer.from(png);
    for (let i = 0; i < 40; i++) garbled[Math.floor(png.length / 2) + i] ^= 0x5a;
    const bad = await t.waitCompleted(key, (await t.upload(key, { name: 'garbled.png', data: garbled }, { options: EXTRACT_ONLY })).body.data.video_id);
    expect(bad.index.report.stages.extract).toMatchObject({ state: 'failed', reason: expect.stringMatching(/^corrupt: the file is damaged \(/) });
  });
});

describe('shot boundaries', () => {
  it('merges cuts closer than half a second and keeps the keyframe in the middle of each shot', () => {
    expect(shotsFromCuts([2, 2.2, 5], 8)).toEqual([
      { idx: 0, start_s: 0, end_s: 2, keyframe_s: 1 },
      { idx: 1, start_s: 2, end_s: 5, keyframe_s: 3.5 },
      { idx: 2, start_s: 5, end_s: 8, keyframe_s: 6.5 },
    ]);
    expect(shotsFromCuts([], 3)).toEqual([{ idx: 0, start_s: 0, end_s: 3, keyframe_s: 1.5 }]);
    expect(shotsFromCuts([0.1, 7.9], 8)).toHaveLength(1);
  });
});

describe('stopping while a page is drawn', () => {
  it('waits for the drawing, so nothing writes into the data folder after the service stopped', async () => {
    const t = await startTestServer({ workers: 1 });
    const key = t.key('drawing');
    const d = await t.index(key, corpus('docs/carroll-wonderland.pdf'), { ocr: false, faces: false, people: false, objects: false, labels: false });
    const page = (await t.api('GET', `/videos/${d.video_id}/pages/40`, { key })).body.data;
    const file = path.join(t.dataDir, 'assets', d.video_id, 'pages', 'p00040.jpg');
    expect(fs.existsSync(file)).toBe(false);
    const asked = fetch(page.frame_url).catch(() => null);
    await new Promise((r) => setTimeout(r, 50));
    await t.server.close();
    expect(fs.existsSync(file)).toBe(true);
    await asked;
    fs.rmSync(t.dataDir, { recursive: true, force: true });
  });
});

describe('PDF reading and the process around it', () => {
  it("leaves the runtime's own built-ins in place once pdf.js is loaded for a page in Devanagari", () => {
    // In a process of its own: pdf.js's legacy build carries core-js, which replaced Array's push
    // and JSON's parse and stringify with slower versions for the whole process. PDFium reads text
    // layers; pdf.js is loaded for pages in complex scripts, as xetex-examples.pdf's.
    const script = path.join(tempDir('mi-pdfjs-'), 'load.mts');
    const pdf = path.resolve('server/media/pdf.ts');
    fs.writeFileSync(
      script,
      [
        `const before = { push: Array.prototype.push, parse: JSON.parse, stringify: JSON.stringify };`,
        `const { extractPdf } = await import(${JSON.stringify(pdf)});`,
        `const out = await extractPdf(${JSON.stringify(corpus('ocr/hindi-pdf/xetex-examples.pdf'))}, { assetDir: ${JSON.stringify(tempDir('mi-pdfjs-asset-'))}, renderAll: false, maxPages: 10 });`,
        // (core-js also makes its versions print as native code: they are told apart by identity.)
        `const kept = { push: Array.prototype.push === before.push, parse: JSON.parse === before.parse, stringify: JSON.stringify === before.stringify };`,
        `console.log(JSON.stringify({ pages: out.pages.length, ...kept, withResolvers: typeof (Promise as any).withResolvers }));`,
      ].join('\n'),
    );
    const out = JSON.parse(execFileSync(process.execPath, ['--import', 'tsx', script], { encoding: 'utf8' }).trim().split('\n').at(-1) as string);
    expect(out).toEqual({ pages: 3, push: true, parse: true, stringify: true, withResolvers: 'function' });
  });
});
