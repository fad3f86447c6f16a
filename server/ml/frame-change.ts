// Where a video frame differs from an earlier one: each frame is drawn small, grey and a little
// blurred (its sketch); two sketches are compared in blocks, and the blocks that changed are
// gathered into boxes. The OCR stage reads a frame again only where it may hold new text.
import { open, type Picture } from './pixels.ts';
import { clampBox, unionBox, type Box } from '../geometry.ts';

/** Width of a frame's sketch, in pixels (its height follows the frame's shape). */
export const SKETCH_WIDTH = 320;
/** Side of a block of the sketch (8 px: 32 px of a 1280 px frame). */
const BLOCK = 8;
/**
 * A pixel changed where its grey moved by more than this (of 255), after a blur of σ 1 that
 * evens out the compression's noise; a block changed where at least CHANGED_PIXELS of its pixels did.
 */
const PIXEL_CHANGE = 24;
const CHANGED_PIXELS = 4;

export interface Sketch {
  data: Uint8Array;
  width: number;
  height: number;
}

/** A frame's sketch. */
export async function sketchOf(picture: Picture): Promise<Sketch> {
  const { data, info } = await open(picture).resize({ width: SKETCH_WIDTH }).grayscale().blur(1).raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

export interface Change {
  /** Share of the blocks that changed (0 to 1; 1 where the sketches differ in shape). */
  share: number;
  /** The changed blocks gathered by neighbourhood, each box grown by a block (grown boxes may overlap: partsToRead joins them), as fractions of the frame; none where nothing changed. */
  boxes: Box[];
}

/** What changed from sketch `a` to sketch `b`. */
export function changeBetween(a: Sketch, b: Sketch): Change {
  if (a.width !== b.width || a.height !== b.height) return { share: 1, boxes: [{ x: 0, y: 0, w: 1, h: 1 }] };
  const { width: W, height: H } = a;
  const [bw, bh] = [Math.ceil(W / BLOCK), Math.ceil(H / BLOCK)];
  const changed = new Uint8Array(bw * bh);
  let count = 0;
  for (let by = 0; by < bh; by++) {
    for (let bx = 0; bx < bw; bx++) {
      let n = 0;
      for (let y = by * BLOCK; y < Math.min(H, by * BLOCK + BLOCK) && n < CHANGED_PIXELS; y++) {
        for (let x = bx * BLOCK, i = y * W + x; x < Math.min(W, bx * BLOCK + BLOCK); x++, i++) if (Math.abs(a.data[i] - b.data[i]) > PIXEL_CHANGE) n++;
      }
      if (n >= CHANGED_PIXELS) {
        changed[by * bw + bx] = 1;
        count++;
      }
    }
  }
  // Changed blocks that touch (corners too) make one box.
  const boxes: Array<{ x0: number; y0: number; x1: number; y1: number }> = [];
  const seen = new Uint8Array(bw * bh);
  for (let start = 0; start < changed.length; start++) {
    if (!changed[start] || seen[start]) continue;
    const box = { x0: bw, y0: bh, x1: -1, y1: -1 };
    const stack = [start];
    seen[start] = 1;
    while (stack.length) {
      const k = stack.pop()!;
      const [x, y] = [k % bw, Math.floor(k / bw)];
      box.x0 = Math.min(box.x0, x);
      box.y0 = Math.min(box.y0, y);
      box.x1 = Math.max(box.x1, x);
      box.y1 = Math.max(box.y1, y);
      for (let dy = -1; dy <= 1; dy++) {
        for (let dx = -1; dx <= 1; dx++) {
          const [nx, ny] = [x + dx, y + dy];
          const n = ny * bw + nx;
          if (nx < 0 || ny < 0 || nx >= bw || ny >= bh || !changed[n] || seen[n]) continue;
          seen[n] = 1;
          stack.push(n);
        }
      }
    }
    boxes.push({ x0: Math.max(0, box.x0 - 1), y0: Math.max(0, box.y0 - 1), x1: Math.min(bw - 1, box.x1 + 1), y1: Math.min(bh - 1, box.y1 + 1) });
  }
  const toFrame = (b: (typeof boxes)[number]): Box => {
    const [x0, y0] = [(b.x0 * BLOCK) / W, (b.y0 * BLOCK) / H];
    return { x: x0, y: y0, w: Math.min(1, ((b.x1 + 1) * BLOCK) / W) - x0, h: Math.min(1, ((b.y1 + 1) * BLOCK) / H) - y0 };
  };
  return { share: count / changed.length, boxes: boxes.map(toFrame) };
}

/** Whether two boxes (fractions of one frame) overlap. */
export function overlaps(a: Box, b: Box): boolean {
  return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

/**
 * The parts of a frame to read again: the boxes that changed (`changed`), each grown to the whole of
 * every paragraph it touches (and a margin), those that then overlap made one, until no paragraph
 * is cut by a part. A paragraph outside them all stands as it was read.
 */
export function partsToRead(changed: Box[], paragraphs: Box[], margin: { x: number; y: number }): Box[] {
  const padded = paragraphs.map((p) => {
    const [x0, y0] = [Math.max(0, p.x - margin.x), Math.max(0, p.y - margin.y)];
    return clampBox({ x: x0, y: y0, w: Math.min(1, p.x + p.w + margin.x) - x0, h: Math.min(1, p.y + p.h + margin.y) - y0 });
  });
  const parts = changed.map((b) => ({ ...b }));
  for (let grown = true; grown;) {
    grown = false;
    for (let i = 0; i < parts.length; i++) {
      for (let j = 0; j < paragraphs.length; j++) {
        if (!overlaps(parts[i], paragraphs[j]) || within(padded[j], parts[i])) continue;
        parts[i] = unionBox([parts[i], padded[j]]);
        grown = true;
      }
      for (let j = parts.length - 1; j > i; j--) {
        if (!overlaps(parts[i], parts[j])) continue;
        parts[i] = unionBox([parts[i], parts[j]]);
        parts.splice(j, 1);
        grown = true;
      }
    }
  }
  return parts;
}

/** Whether `inner` lies within `outer` (to the rounding of clampBox). */
const within = (inner: Box, outer: Box, e = 2e-5): boolean =>
  inner.x >= outer.x - e && inner.y >= outer.y - e && inner.x + inner.w <= outer.x + outer.w + e && inner.y + inner.h <= outer.y + outer.h + e;
