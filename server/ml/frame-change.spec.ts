// What changed between two frames, on a real photo: nothing, a part covered, the whole picture.
import { fileURLToPath } from 'node:url';
import sharp, { type Sharp } from 'sharp';
import { describe, expect, it } from 'vitest';
import { changeBetween, overlaps, partsToRead, sketchOf, SKETCH_WIDTH } from './frame-change.ts';

const corpus = (p: string) => fileURLToPath(new URL(`../../../shared/corpus/${p}`, import.meta.url));
const frame = () => sharp(corpus('scenes/skimage/coffee.png')).resize(1280, 720, { fit: 'fill' }).removeAlpha();
const encoded = async (s: Sharp) => s.jpeg({ quality: 85 }).toBuffer();

describe('changeBetween', () => {
  it('sees no change between a frame and its copy encoded again (the noise of compression is not a change)', async () => {
    const a = await sketchOf(await encoded(frame()));
    const b = await sketchOf(await encoded(frame().jpeg({ quality: 60 })));
    expect(a.width).toBe(SKETCH_WIDTH);
    expect(changeBetween(a, b)).toEqual({ share: 0, boxes: [] });
  });

  it('boxes a part that changed, close around it, and nothing else', async () => {
    const a = await sketchOf(await encoded(frame()));
    // A white card over 200 × 100 px at (800, 500) of the 1280 × 720 frame.
    const card = { input: { create: { width: 200, height: 100, channels: 3 as const, background: '#ffffff' } }, left: 800, top: 500 };
    const b = await sketchOf(await encoded(frame().composite([card])));
    const change = changeBetween(a, b);
    expect(change.boxes).toHaveLength(1);
    const [box] = change.boxes;
    const card01 = { x: 800 / 1280, y: 500 / 720, w: 200 / 1280, h: 100 / 720 };
    // It holds the card, grown by at most two blocks (32 px of the frame) on each side.
    expect(box.x).toBeLessThanOrEqual(card01.x);
    expect(box.y).toBeLessThanOrEqual(card01.y);
    expect(box.x + box.w).toBeGreaterThanOrEqual(card01.x + card01.w);
    expect(box.y + box.h).toBeGreaterThanOrEqual(card01.y + card01.h);
    expect(box.w).toBeLessThanOrEqual(card01.w + 4 * (32 / 1280));
    expect(box.h).toBeLessThanOrEqual(card01.h + 4 * (32 / 720));
    expect(change.share).toBeGreaterThan(0);
    expect(change.share).toBeLessThan(0.05);
    expect(overlaps(box, card01)).toBe(true);
    expect(overlaps(box, { x: 0, y: 0, w: 0.5, h: 0.5 })).toBe(false);
  });

  it('keeps two changes far apart in two boxes', async () => {
    const a = await sketchOf(await encoded(frame()));
    const card = (left: number, top: number) => ({ input: { create: { width: 120, height: 80, channels: 3 as const, background: '#000000' } }, left, top });
    const b = await sketchOf(await encoded(frame().composite([card(60, 60), card(1000, 560)])));
    const boxes = changeBetween(a, b).boxes.sort((p, q) => p.x - q.x);
    expect(boxes).toHaveLength(2);
    expect(boxes[0].x + boxes[0].w).toBeLessThan(0.25);
    expect(boxes[1].x).toBeGreaterThan(0.7);
  });

  it('takes frames of another shape for a frame changed whole', async () => {
    const a = await sketchOf(await encoded(frame()));
    const b = await sketchOf(await encoded(frame().resize(1280, 960, { fit: 'fill' })));
    expect(changeBetween(a, b)).toEqual({ share: 1, boxes: [{ x: 0, y: 0, w: 1, h: 1 }] });
  });
});

describe('partsToRead', () => {
  const margin = { x: 0.01, y: 0.01 };
  const para = (x: number, y: number, w: number, h: number) => ({ x, y, w, h });

  it('grows a change to the whole of each paragraph it touches, with the margin, and leaves the others', () => {
    // A cursor blinking at the end of a prompt line; another paragraph far below.
    const prompt = para(0.3, 0.18, 0.2, 0.03);
    const below = para(0.3, 0.6, 0.4, 0.1);
    const parts = partsToRead([para(0.49, 0.17, 0.03, 0.05)], [prompt, below], margin);
    expect(parts).toHaveLength(1);
    const [p] = parts;
    expect(p.x).toBeCloseTo(0.29, 5);
    expect(p.y).toBeCloseTo(0.17, 5);
    expect(p.x + p.w).toBeCloseTo(0.52, 5);
    expect(p.y + p.h).toBeCloseTo(0.22, 5);
    expect(overlaps(p, below)).toBe(false);
  });

  it('joins parts that meet once grown, through a paragraph that touches both', () => {
    const line = para(0.1, 0.5, 0.8, 0.04);
    const parts = partsToRead([para(0.05, 0.48, 0.08, 0.08), para(0.85, 0.48, 0.08, 0.08)], [line], margin);
    expect(parts).toHaveLength(1);
    expect(parts[0].x).toBeCloseTo(0.05, 5);
    expect(parts[0].x + parts[0].w).toBeCloseTo(0.93, 5);
  });

  it('keeps a change away from every paragraph as it is, and a frame edge bounds the growth', () => {
    expect(partsToRead([para(0.6, 0.6, 0.1, 0.1)], [para(0, 0, 0.2, 0.05)], margin)).toEqual([para(0.6, 0.6, 0.1, 0.1)]);
    const [edge] = partsToRead([para(0, 0, 0.05, 0.05)], [para(0, 0, 0.2, 0.05)], margin);
    expect(edge).toEqual({ x: 0, y: 0, w: 0.21, h: 0.06 });
  });
});
