import { describe, expect, it } from 'vitest';
import { clampBox, cornersOf, cornersOfArray, cornersOfXYWH, iou, relativeBox, unionBox, unionCorners, unrotate } from './geometry.ts';

describe('geometry: one Box and its conversions', () => {
  it('converts every shape a model or reader gives into the same corners', () => {
    const c = { x0: 10, y0: 20, x1: 40, y1: 60 };
    expect(cornersOfXYWH([10, 20, 30, 40])).toEqual(c);
    expect(cornersOfArray([10, 20, 40, 60])).toEqual(c);
    expect(cornersOf({ x: 0.25, y: 0.5, w: 0.5, h: 0.25 })).toEqual({ x0: 0.25, y0: 0.5, x1: 0.75, y1: 0.75 });
    expect(relativeBox(c, { width: 100, height: 200 })).toEqual({ x: 0.1, y: 0.1, w: 0.3, h: 0.2 });
  });

  it('iou: 1 for the same box, 0 apart or touching, the overlap share otherwise', () => {
    const a = { x0: 0, y0: 0, x1: 2, y1: 2 };
    expect(iou(a, a)).toBe(1);
    expect(iou(a, { x0: 2, y0: 0, x1: 4, y1: 2 })).toBe(0);
    expect(iou(a, { x0: 5, y0: 5, x1: 6, y1: 6 })).toBe(0);
    expect(iou(a, { x0: 1, y0: 0, x1: 3, y1: 2 })).toBeCloseTo(2 / 6, 10);
    expect(iou(a, { x0: 0, y0: 0, x1: 0, y1: 0 })).toBe(0); // an empty box
  });

  it('union and clamp keep boxes inside the picture, rounded to what the index stores', () => {
    expect(
      unionCorners([
        { x0: 1, y0: 5, x1: 2, y1: 6 },
        { x0: 0, y0: 7, x1: 3, y1: 8 },
      ]),
    ).toEqual({ x0: 0, y0: 5, x1: 3, y1: 8 });
    expect(
      unionBox([
        { x: 0.1, y: 0.1, w: 0.2, h: 0.2 },
        { x: 0.5, y: 0.6, w: 0.1, h: 0.1 },
      ]),
    ).toEqual({ x: 0.1, y: 0.1, w: 0.5, h: 0.6 });
    expect(clampBox({ x: -0.2, y: 0.9, w: 0.5, h: 0.5 })).toEqual({ x: 0, y: 0.9, w: 0.5, h: 0.1 });
    expect(clampBox({ x: 1 / 3, y: 0, w: 1 / 3, h: 1 })).toEqual({ x: 0.33333, y: 0, w: 0.33333, h: 1 });
  });

  it('unrotate maps a box found on a picture turned by 90° back onto the stored picture', () => {
    // A 200x100 picture turned 90° clockwise is 100x200; its top-left 10x20 corner box was the stored
    // picture's bottom-left (x 0..20, y 90..100).
    const back = unrotate({ x0: 0, y0: 0, x1: 10, y1: 20 }, 90, { width: 100, height: 200 }, { width: 200, height: 100 });
    expect(back.x0).toBeCloseTo(0, 9);
    expect(back.x1).toBeCloseTo(20, 9);
    expect(back.y0).toBeCloseTo(90, 9);
    expect(back.y1).toBeCloseTo(100, 9);
    expect(unrotate({ x0: 1, y0: 2, x1: 3, y1: 4 }, 0, { width: 10, height: 10 }, { width: 10, height: 10 })).toEqual({ x0: 1, y0: 2, x1: 3, y1: 4 });
  });
});
