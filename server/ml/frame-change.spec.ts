// What changed between two frames, on a real photo: nothing, a part covered, the whole picture.
import { fileURLToPath } from 'node:url';
import sharp, { type Sharp } from 'sharp';
import { describe, expect, it } from 'vitest';
import { changeBetween, overlaps, sketchOf, SKETCH_WIDTH } from './frame-change.ts';

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
