// Boxes, once. The index stores and the API answers `Box`: top-left corner and size relative to the
// picture or page (0..1, SPEC 2.3). Models and readers give corners (`Corners`: pixels, points or
// 0..1, x0 y0 top-left) or `[x, y, w, h]` in pixels; they are turned into `Box` here, and overlap,
// union, clamping and turning are computed here only.
import type { Box } from './contract/common.ts';

export type { Box };

/** Corners of a box in any unit: (x0, y0) top-left, (x1, y1) bottom-right. */
export interface Corners {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/** A box as detectors give it: [x, y, width, height], in pixels. */
export type XYWH = readonly [number, number, number, number];

export interface Size {
  width: number;
  height: number;
}

/** A part of a picture in its whole pixels, as sharp's `extract` takes it. */
export interface PixelArea {
  left: number;
  top: number;
  width: number;
  height: number;
}

/** A box (fractions of a picture width × height) in whole pixels of it, at least one on each side. */
export function pixelArea(b: Box, width: number, height: number): PixelArea {
  const left = Math.floor(b.x * width);
  const top = Math.floor(b.y * height);
  return {
    left,
    top,
    width: Math.max(1, Math.min(width - left, Math.ceil((b.x + b.w) * width) - left)),
    height: Math.max(1, Math.min(height - top, Math.ceil((b.y + b.h) * height) - top)),
  };
}

export function cornersOf(b: Box): Corners {
  return { x0: b.x, y0: b.y, x1: b.x + b.w, y1: b.y + b.h };
}

export function cornersOfXYWH(b: XYWH): Corners {
  return { x0: b[0], y0: b[1], x1: b[0] + b[2], y1: b[1] + b[3] };
}

/** `[x0, y0, x1, y1]`, as OWL-style detectors give them. */
export function cornersOfArray(b: readonly [number, number, number, number]): Corners {
  return { x0: b[0], y0: b[1], x1: b[2], y1: b[3] };
}

/** Corners in the units of `size` (pixels, points) as a `Box` relative to it, clamped to it. */
export function relativeBox(c: Corners, size: Size): Box {
  return clampBox({ x: c.x0 / size.width, y: c.y0 / size.height, w: (c.x1 - c.x0) / size.width, h: (c.y1 - c.y0) / size.height });
}

/** Intersection over union of two boxes in the same units; 0 when they do not overlap. */
export function iou(a: Corners, b: Corners): number {
  const w = Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0);
  const h = Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0);
  if (w <= 0 || h <= 0) return 0;
  const inter = w * h;
  const union = (a.x1 - a.x0) * (a.y1 - a.y0) + (b.x1 - b.x0) * (b.y1 - b.y0) - inter;
  return union > 0 ? inter / union : 0;
}

/** The smallest box holding all of them (at least one). */
export function unionCorners(boxes: readonly Corners[]): Corners {
  return {
    x0: Math.min(...boxes.map((b) => b.x0)),
    y0: Math.min(...boxes.map((b) => b.y0)),
    x1: Math.max(...boxes.map((b) => b.x1)),
    y1: Math.max(...boxes.map((b) => b.y1)),
  };
}

/** The smallest `Box` holding all of them (at least one), clamped. */
export function unionBox(boxes: readonly Box[]): Box {
  const u = unionCorners(boxes.map(cornersOf));
  return clampBox({ x: u.x0, y: u.y0, w: u.x1 - u.x0, h: u.y1 - u.y0 });
}

/** Inside the picture (0..1), rounded to 5 decimals (what the index stores). */
export function clampBox(b: Box): Box {
  const r = (v: number) => Math.round(v * 1e5) / 1e5;
  const x = Math.min(1, Math.max(0, b.x));
  const y = Math.min(1, Math.max(0, b.y));
  return { x: r(x), y: r(y), w: r(Math.max(0, Math.min(1 - x, b.w))), h: r(Math.max(0, Math.min(1 - y, b.h))) };
}

/**
 * A box found on a picture turned clockwise by `angle` degrees (canvas grown to hold it), mapped
 * back onto the picture as it is stored: the axis-aligned box around the turned box's corners.
 */
export function unrotate(b: Corners, angle: number, turned: Size, stored: Size): Corners {
  const a = (angle * Math.PI) / 180;
  const [c, s] = [Math.cos(a), Math.sin(a)];
  const corners = [
    [b.x0, b.y0],
    [b.x1, b.y0],
    [b.x0, b.y1],
    [b.x1, b.y1],
  ].map(([x, y]) => {
    const [dx, dy] = [x - turned.width / 2, y - turned.height / 2];
    const [px, py] = [dx * c + dy * s + stored.width / 2, -dx * s + dy * c + stored.height / 2];
    return { x0: px, y0: py, x1: px, y1: py };
  });
  return unionCorners(corners);
}
