// A justified photo grid, as photo libraries lay them out: pictures in rows of one height that fill
// the width, each at its own aspect ratio. Greedy and linear: a row takes pictures until, scaled to
// the target height, they are wider than the width; it then ends with that picture (scaled down to
// fit) or before it (scaled up), whichever height is nearer the target (never taller than 1.5× the
// target, so one panorama does not make a giant row). The last row of a
// group keeps the target height, left-aligned. 50,000 pictures lay out in a few milliseconds
// (bench library-view), so the grid is laid out whole, before any page of it loads.

export interface JustifiedRow {
  /** Offsets into the list: [from, to). */
  from: number;
  to: number;
  /** Height of the row's pictures, px. */
  height: number;
  /** Each picture's width, px, in order. */
  widths: number[];
}

/** The ratio a picture whose shape is not known yet is laid out with (3:2, most cameras). */
export const UNKNOWN_RATIO = 1.5;

export function justify(ratios: ArrayLike<number>, from: number, to: number, width: number, target: number, gap: number): JustifiedRow[] {
  const rows: JustifiedRow[] = [];
  const r = (i: number) => {
    const v = ratios[i];
    return v > 0 ? Math.min(4, Math.max(0.25, v)) : UNKNOWN_RATIO;
  };
  let start = from;
  let sum = 0;
  for (let i = from; i < to; i++) {
    sum += r(i);
    const n = i - start + 1;
    if (sum * target + gap * (n - 1) < width) continue;
    // The row is full with this picture (scaled down to fit) or without it (scaled up): the one nearer the target height.
    const withIt = (width - gap * (n - 1)) / sum;
    const without = n > 1 ? (width - gap * (n - 2)) / (sum - r(i)) : Infinity;
    if (without - target < target - withIt && without <= target * 1.5) {
      rows.push(row(start, i, without, r));
      start = i;
      sum = r(i);
    } else {
      rows.push(row(start, i + 1, Math.min(target * 1.5, withIt), r));
      start = i + 1;
      sum = 0;
    }
  }
  if (start < to) rows.push(row(start, to, target, r));
  return rows;
}

function row(from: number, to: number, height: number, r: (i: number) => number): JustifiedRow {
  const widths: number[] = [];
  for (let i = from; i < to; i++) widths.push(Math.floor(r(i) * height));
  return { from, to, height: Math.round(height), widths };
}

/** The grid's densities: target row heights, px (the size slider's stops; Ctrl + and − step through them). */
export const DENSITIES = [80, 110, 150, 200, 260] as const;
export const DEFAULT_DENSITY = 1;
