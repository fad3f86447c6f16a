// faces, objects and labels with the bundled models on real corpus photos.
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpus } from './helpers/corpus.ts';
import { startTestServer, tempDir, type TestServer } from './helpers/server.ts';
import { findFfmpeg } from '../server/media/ffmpeg.ts';
import { makePdf } from './helpers/pdf.ts';

interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}
const inside = (b: Box) => b.x >= 0 && b.y >= 0 && b.w > 0 && b.h > 0 && b.x + b.w <= 1.00001 && b.y + b.h <= 1.00001;

describe('faces, objects and labels', () => {
  let t: TestServer;
  let key: string;
  const scratch = tempDir('mi-vision-');

  beforeAll(async () => {
    t = await startTestServer({ workers: 2 });
    key = t.key('photos');
  });
  afterAll(async () => {
    await t.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  const indexed = (file: string | { name: string; data: Uint8Array }, options?: unknown) => t.index(key, file, options);
  const regions = async (id: string, q = 'timestamp=0') => (await t.api('GET', `/videos/${id}/regions?${q}`, { key })).body.data;

  it('finds the faces of the face-api samples with boxes inside the image, embeddings and expressions', async () => {
    const expected: Record<string, number> = { 'sample1.jpg': 3, 'sample2.jpg': 3, 'sample3.jpg': 3 };
    for (const [name, n] of Object.entries(expected)) {
      const d = await indexed(corpus(`faces/face-api-samples/${name}`));
      // Human's networks ran on ONNX Runtime (the CPU here), not on TensorFlow.js.
      expect(d.index.report.stages.faces, name).toMatchObject({ state: 'ok', counts: { faces: n }, details: { runtime: 'onnxruntime', provider: 'cpu' } });
      const r = await regions(d.video_id);
      expect(r.faces).toHaveLength(n);
      for (const f of r.faces) {
        expect(inside(f), name).toBe(true);
        expect(f.face_id).toMatch(/^face_/);
        expect(f.quality).toBeGreaterThan(0);
        expect(f.person_id).toBeNull();
      }
      const rows = t.server.store.faces.forAsset(d.video_id);
      expect(rows).toHaveLength(n);
      for (const row of rows) {
        expect(row.embedding).toHaveLength(1024);
        expect(Math.hypot(...row.embedding)).toBeGreaterThan(0);
        expect(row.emotion).toMatch(/^(angry|disgust|fear|happy|sad|surprise|neutral)$/);
      }
    }
  });

  it('does not turn an upright drawing in which its stored frame shows one face-like shape rolled (HappyFish.jpg)', async () => {
    // The frame's JPEG compression draws a "face" (0.82, rolled 61°) into the cartoon fish; turned a
    // quarter it stands level at 0.90 — but not in the second look, smoothed, that a lone face must pass.
    const d = await indexed(corpus('scenes/opencv/HappyFish.jpg'), { objects: false, labels: false, ocr: false, captions: false });
    expect(d.index.report.stages.faces.state).toBe('ok');
    expect(d.orientation_detected).toBe(0);
  });

  it('finds the faces of a photo stored sideways or upside down, boxes on the stored picture, and says which way is up', async () => {
    const file = corpus('faces/face-api-samples/sample1.jpg');
    const upright = await indexed(file);
    expect(upright.orientation_detected).toBe(0);
    const base = (await regions(upright.video_id)).faces as Array<Box & { face_id: string }>;
    const embedding = (assetId: string, faceId: string) => Array.from(t.server.store.faces.forAsset(assetId).find((r) => r.id === faceId)!.embedding);
    expect(base).toHaveLength(3);
    /** A normalized box of the upright picture, on the picture turned clockwise by `turn`. */
    const turnBox = (b: Box, turn: number): Box =>
      turn === 90
        ? { x: 1 - b.y - b.h, y: b.x, w: b.h, h: b.w }
        : turn === 180
          ? { x: 1 - b.x - b.w, y: 1 - b.y - b.h, w: b.w, h: b.h }
          : { x: b.y, y: 1 - b.x - b.w, w: b.h, h: b.w };
    const iou = (a: Box, b: Box) => {
      const ix = Math.max(0, Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x));
      const iy = Math.max(0, Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y));
      return (ix * iy) / (a.w * a.h + b.w * b.h - ix * iy);
    };
    const cosine = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i], 0) / (Math.hypot(...a) * Math.hypot(...b));
    for (const turn of [90, 180, 270]) {
      // Stored turned, with no EXIF orientation to say so (an album program kept the turn elsewhere).
      const data = await sharp(file).rotate(turn).jpeg({ quality: 92 }).toBuffer();
      expect((await sharp(data).metadata()).orientation ?? 1).toBe(1);
      const d = await indexed({ name: `sample1-turned-${turn}.jpg`, data });
      expect(d.orientation_detected, `stored turned ${turn}`).toBe((360 - turn) % 360);
      expect(d.index.report.stages.faces.details).toMatchObject({ orientation_detected: (360 - turn) % 360 });
      const faces = (await regions(d.video_id)).faces as Array<Box & { face_id: string }>;
      expect(faces, `stored turned ${turn}`).toHaveLength(3);
      for (const [i, b] of base.entries()) {
        const want = turnBox(b, turn);
        const scores = faces.map((f) => iou(f, want));
        const j = scores.indexOf(Math.max(...scores));
        expect(scores[j], `box ${i} of the picture stored turned ${turn}`).toBeGreaterThan(0.6);
        // The same face: its description close to the upright one's.
        const same = cosine(embedding(d.video_id, faces[j].face_id), embedding(upright.video_id, b.face_id));
        console.log(`turned ${turn}: face ${i} IoU ${scores[j].toFixed(2)}, embedding cosine ${same.toFixed(3)}`);
        expect(same).toBeGreaterThan(0.8);
      }
    }
  });

  it("keeps the owner's turn of a photo in the index, over the detected one and through re-indexing; the file is not written", async () => {
    const data = await sharp(corpus('faces/face-api-samples/sample1.jpg')).rotate(90).jpeg({ quality: 92 }).toBuffer();
    const file = path.join(scratch, 'turned-by-owner.jpg');
    fs.writeFileSync(file, data);
    const d = await indexed(file);
    expect(d).toMatchObject({ orientation_detected: 270, orientation_set: null });
    const ratio = async () => {
      const layout = (await t.api('GET', '/videos/layout', { key })).body.data;
      return layout.ratios[layout.ids.indexOf(d.video_id)];
    };
    const shownUpright = await ratio();
    expect(shownUpright).toBeGreaterThan(1); // stored tall, shown wide (sample1 is a landscape)
    // The owner says it is upright as stored after all.
    const put = await t.api('PUT', `/videos/${d.video_id}/orientation`, { key, json: { turn: 0 } });
    expect(put.status).toBe(200);
    expect(put.body.data).toEqual({ video_id: d.video_id, orientation_set: 0, orientation_detected: 270 });
    expect((await t.api('GET', `/videos/${d.video_id}`, { key })).body.data).toMatchObject({ orientation_set: 0, orientation_detected: 270 });
    expect(await ratio()).toBeCloseTo(1 / shownUpright, 2);
    // Re-indexed (every stage): the faces stage looks again and finds the same; the owner's turn stays.
    expect((await t.api('POST', `/videos/${d.video_id}/reindex`, { key, json: {} })).status).toBe(202);
    const again = await t.waitCompleted(key, d.video_id);
    expect(again).toMatchObject({ orientation_set: 0, orientation_detected: 270 });
    expect(fs.readFileSync(file).equals(data)).toBe(true);
    // null gives it back to the detected turn.
    expect((await t.api('PUT', `/videos/${d.video_id}/orientation`, { key, json: { turn: null } })).body.data.orientation_set).toBeNull();
    expect(await ratio()).toBeCloseTo(shownUpright, 2);
    // Bad turns, other workspaces and read-only keys change nothing.
    for (const body of [{ turn: 45 }, { turn: '90' }, {}, { turn: 90, more: 1 }]) {
      expect((await t.api('PUT', `/videos/${d.video_id}/orientation`, { key, json: body })).status, JSON.stringify(body)).toBe(422);
    }
    expect((await t.api('PUT', `/videos/${d.video_id}/orientation`, { key: t.key('elsewhere'), json: { turn: 90 } })).status).toBe(404);
    expect((await t.api('PUT', `/videos/${d.video_id}/orientation`, { key: t.key('photos', ['read']), json: { turn: 90 } })).status).toBe(403);
    expect((await t.api('GET', `/videos/${d.video_id}`, { key })).body.data.orientation_set).toBeNull();
  });

  it('finds many faces in the bald_guys collage, each box inside the picture', async () => {
    const d = await indexed(corpus('faces/dlib-faces/bald_guys.jpg'));
    const r = await regions(d.video_id);
    expect(r.faces.length).toBeGreaterThanOrEqual(8);
    expect(r.faces.every(inside)).toBe(true);
    expect(d.index.report.stages.labels.details.labels).toContain('group of people');
  });

  it('ranks a large sharp face above a tiny one and a blurred one; the tiny one is not good; small faces are dropped', async () => {
    const src = corpus('faces/portraits/grace_hopper_512x512.jpg');
    const large = await indexed(src);
    const tiny = await indexed({ name: 'tiny.jpg', data: await sharp(src).resize(52, 52).jpeg().toBuffer() });
    const blurred = await indexed({ name: 'blurred.jpg', data: await sharp(src).blur(6).jpeg().toBuffer() });
    const q = async (d: { video_id: string }) => {
      const f = t.server.store.faces.forAsset(d.video_id);
      expect(f).toHaveLength(1);
      return f[0];
    };
    const [l, s, b] = [await q(large), await q(tiny), await q(blurred)];
    console.log(`face quality: large ${l.quality}, blurred ${b.quality}, tiny ${s.quality}`);
    expect(l.quality).toBeGreaterThan(s.quality);
    expect(l.quality).toBeGreaterThan(b.quality);
    expect(l.good).toBe(true);
    expect(s.good).toBe(false);
    const dropped = await indexed({ name: 'tiny2.jpg', data: await sharp(src).resize(60, 60).jpeg().toBuffer() }, { faces: { min_face_px: 64 } });
    expect(dropped.index.report.stages.faces).toMatchObject({ state: 'ok', counts: { faces: 0, dropped_small: 1 } });
  });

  it('finds the cat on chelsea.png and fruit on fruits.jpg; "cat" finds the photo with the cat box', async () => {
    const cat = await indexed(corpus('scenes/skimage/chelsea.png'));
    const r = await regions(cat.video_id);
    const box = r.objects.find((o: { label: string }) => o.label === 'cat');
    expect(box).toBeTruthy();
    expect(box.source).toBe('centernet-coco');
    expect(box.confidence).toBeGreaterThanOrEqual(0.45);
    expect(box.w * box.h).toBeGreaterThan(0.2); // the cat fills most of the picture
    expect(cat.index.report.stages.labels.details.labels).toEqual(expect.arrayContaining(['cat', 'animal']));

    const fruit = await indexed(corpus('scenes/opencv/fruits.jpg'), { objects: { min_confidence: 0.25 } });
    const labels = (await regions(fruit.video_id)).objects.map((o: { label: string }) => o.label);
    expect(labels).toEqual(expect.arrayContaining(['apple', 'orange']));

    const s = await t.api('POST', '/search', { key, json: { query: 'cat', search_options: { modalities: ['object'] } } });
    expect(s.body.data.hits[0]).toMatchObject({ video_id: cat.video_id, asset_kind: 'image', region: { label: 'cat', source: 'centernet-coco' } });
    const animal = await t.api('POST', '/search', { key, json: { query: 'animal' } });
    expect(animal.body.data.hits[0]).toMatchObject({ video_id: cat.video_id, modality: 'label' });
  });

  it('finds the same faces and objects in the same places on a large picture as on a small copy (the detectors look at it brought down)', async () => {
    // Faces are looked for at most 1024 px on the long side, objects on a square of at most 512 px
    // (human.ts): boxes must come back in the picture's own proportions whatever the scale.
    const iou = (a: Box, b: Box) => {
      const ix = Math.max(0, Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x));
      const iy = Math.max(0, Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y));
      return (ix * iy) / (a.w * a.h + b.w * b.h - ix * iy);
    };
    const src = corpus('faces/face-api-samples/sample4.jpg'); // 1920 × 1448, four faces
    const large = await regions((await indexed(src)).video_id);
    const small = await regions((await indexed({ name: 'sample4-small.jpg', data: await sharp(src).resize(960).jpeg({ quality: 95 }).toBuffer() })).video_id);
    expect(large.faces).toHaveLength(4);
    expect(small.faces).toHaveLength(4);
    for (const f of large.faces) expect(Math.max(...small.faces.map((g: Box) => iou(f, g)))).toBeGreaterThan(0.8);

    const cat = corpus('scenes/skimage/chelsea.png'); // 451 × 300: under the detector's square
    const catBox = (r: { objects: Array<Box & { label: string }> }) => r.objects.find((o) => o.label === 'cat') as Box;
    const at1 = catBox(await regions((await indexed(cat)).video_id));
    const at2 = catBox(await regions((await indexed({ name: 'chelsea-4x.png', data: await sharp(cat).resize(1804).png().toBuffer() })).video_id));
    expect(at1).toBeTruthy();
    expect(at2).toBeTruthy();
    expect(iou(at1, at2)).toBeGreaterThan(0.85);
  });

  it('reports the open-vocabulary model as not installed, answering caller phrases that name a COCO class', async () => {
    const d = await indexed(corpus('scenes/skimage/chelsea.png'), { objects: { vocabulary: ['cats', 'company logo'] } });
    expect(d.index.report.stages.objects.details).toMatchObject({
      open_vocabulary: 'model_not_installed: owlv2-base-patch16',
      phrases_answered_by_closed_set: { cats: 'cat' },
    });
    expect(d.index.report.stages.objects.details.phrases_not_searched).toEqual(expect.arrayContaining(['logo', 'helmet', 'company logo']));
  });

  it('looks at every sampled video frame for faces; objects do not apply to videos', async () => {
    const video = path.join(scratch, 'faces.mp4');
    execFileSync(findFfmpeg()!.ffmpeg, [
      '-v',
      'error',
      '-y',
      '-loop',
      '1',
      '-i',
      corpus('faces/face-api-samples/sample1.jpg'),
      '-t',
      '3',
      '-r',
      '5',
      '-vf',
      'scale=960:-2,format=yuv420p',
      video,
    ]);
    const d = await indexed(video);
    expect(d.index.report.stages.faces).toMatchObject({ state: 'ok', counts: { frames: 3, faces: 9 } });
    expect(d.index.report.stages.objects.state).toBe('not_applicable');
    expect(d.index.report.stages.labels.details.labels).toContain('group of people');
    const at1 = await regions(d.video_id, 'timestamp=1.2');
    expect(at1.faces).toHaveLength(3);
    expect(at1.timestamp).toBe(1.2);
    // Nine faces over three frames of one shot: one search hit for the moment, not one per frame.
    const entries = t.server.store.db.prepare("SELECT COUNT(*) AS n FROM search_entries WHERE asset_id = ? AND stage = 'faces'").get(d.video_id) as {
      n: number;
    };
    expect(entries.n).toBeGreaterThan(1);
    const hits = (await t.api('POST', '/search', { key, json: { query: 'face', video_id: d.video_id } })).body.data.hits;
    expect(hits).toHaveLength(1);
  });

  it('finds the faces on the picture pages of a document, the picture drawn as an image object or inline', async () => {
    const photo = corpus('faces/face-api-samples/sample1.jpg');
    const { width, height } = await sharp(photo).metadata();
    const jpeg = fs.readFileSync(photo);
    const text = 'A page of text before the pictures, long enough to be read as it is.\nIts second line says the same again.';
    // One file draws it as an image object, the other only inline (no image object in the file).
    for (const inline of [false, true]) {
      const data = makePdf([{ text }, { jpeg, width: width!, height: height!, inline }, { text }]);
      const d = await indexed({ name: inline ? 'inline.pdf' : 'album.pdf', data });
      expect(d.index.report.stages.faces, `inline: ${inline}`).toMatchObject({ state: 'ok' });
      expect(t.server.store.media.picturePages(d.video_id).map((p) => p.page)).toEqual([2]);
      const faces = t.server.store.faces.forAsset(d.video_id);
      expect(faces.map((f) => f.timestamp)).toEqual([1, 1, 1]);
    }
  });

  it('looks at a picture page turned for faces in a document of scans alone, not in one with text of its own', async () => {
    // sample1.jpg's three faces, the photo lying on its side: the detector finds two of them as it
    // lies, all three with the page turned level.
    const sideways = await sharp(corpus('faces/face-api-samples/sample1.jpg')).rotate(90).jpeg({ quality: 95 }).toBuffer();
    const { width, height } = await sharp(sideways).metadata();
    const page = { jpeg: sideways, width: width!, height: height! };
    const scans = await indexed({ name: 'scans.pdf', data: makePdf([page]) });
    expect(scans.index.report.stages.faces).toMatchObject({ state: 'ok' });
    expect(t.server.store.faces.forAsset(scans.video_id)).toHaveLength(3);
    // The same page after a page of text: a document laid out by a program, its pages taken as shown.
    const text = 'A page of text before the picture, long enough to be read as it is.\nIts second line says the same again.';
    const laidOut = await indexed({ name: 'laid-out.pdf', data: makePdf([{ text }, page]) });
    expect(laidOut.index.report.stages.faces).toMatchObject({ state: 'ok' });
    expect(t.server.store.media.picturePages(laidOut.video_id).map((p) => p.page)).toEqual([2]);
    expect(t.server.store.faces.forAsset(laidOut.video_id).length).toBeLessThan(3);
  });

  it('looks for faces and objects on picture pages of documents only', async () => {
    const d = await indexed(corpus('docs/a-text.pdf'));
    expect(d.index.report.stages.faces).toMatchObject({ state: 'not_applicable', reason: 'no picture pages to look at' });
    expect(d.index.report.stages.objects).toMatchObject({ state: 'not_applicable' });
    expect(d.index.report.stages.labels).toMatchObject({ state: 'not_applicable' });
  });
});
