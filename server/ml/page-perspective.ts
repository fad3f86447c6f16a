// Pages photographed at a slant: the text block of a page seen in perspective is a quadrilateral
// whose far side is shorter than its near one, and the detector, which looks at the whole photo at
// one size, sees the far lines too small to find and split them well. The page's quadrilateral is
// found from the text itself — the lines' own axes for its top and bottom, and their aligned ends
// for its left and right margins (a projection keeps straight lines straight) — and the block is
// drawn again as the rectangle it was printed as, at the near side's scale, to be looked at again.
import type { OrientedBox } from './text-recognize.ts';

export type Point = readonly [number, number];
/** Corners in order: top left, top right, bottom right, bottom left. */
export type Quad = readonly [Point, Point, Point, Point];
/** A plane projection as a 3 × 3 matrix, row by row, its last entry 1. */
export type Homography = readonly number[];

/** Long side at most of a page's text block drawn again as the rectangle it was printed as. */
export const RECTIFIED_LONG_SIDE = 2048;

/** Lines needed before the text is taken for a page's block. */
export const MIN_PAGE_LINES = 8;
/**
 * How much longer the near side of the block must be than the far one (top against bottom, or left
 * against right) before the page is drawn again: below it, lines read as well as on a flat page
 * (a page of Wonderland at 1.4: 0.995 of its words against 1.000 flat, and 0.782 at 3).
 */
export const MIN_KEYSTONE = 1.25;
/** …and no more than this: beyond it the margins were found wrong (a page of Wonderland at a 40 % slant measures 1.9). */
export const MAX_KEYSTONE = 4;
/**
 * Lines whose ends are tried for the margins (evenly spread from the first to the last): the search
 * scores each pair of ends against all of them, and a screenshot of a table gives hundreds of lines.
 */
const MARGIN_LINES = 48;
/** Share of the body lines that must start (end) on the left (right) margin line. */
const MIN_MARGIN_SHARE = 0.4;

/** The projection taking each corner of `from` to the same corner of `to` (null where they are degenerate). */
export function homography(from: Quad, to: Quad): Homography | null {
  // h11 x + h12 y + h13 − h31 x X − h32 y X = X, and the same for Y: eight equations, eight unknowns.
  const a: number[][] = [];
  for (let i = 0; i < 4; i++) {
    const [x, y] = from[i];
    const [X, Y] = to[i];
    a.push([x, y, 1, 0, 0, 0, -x * X, -y * X, X]);
    a.push([0, 0, 0, x, y, 1, -x * Y, -y * Y, Y]);
  }
  // Gaussian elimination with partial pivoting.
  for (let c = 0; c < 8; c++) {
    let pivot = c;
    for (let r = c + 1; r < 8; r++) if (Math.abs(a[r][c]) > Math.abs(a[pivot][c])) pivot = r;
    if (Math.abs(a[pivot][c]) < 1e-12) return null;
    [a[c], a[pivot]] = [a[pivot], a[c]];
    for (let r = 0; r < 8; r++) {
      if (r === c) continue;
      const f = a[r][c] / a[c][c];
      for (let k = c; k < 9; k++) a[r][k] -= f * a[c][k];
    }
  }
  return [...a.map((row, i) => row[8] / row[i]), 1];
}

/** Where `h` takes the point. */
export function project(h: Homography, [x, y]: Point): [number, number] {
  const w = h[6] * x + h[7] * y + h[8];
  return [(h[0] * x + h[1] * y + h[2]) / w, (h[3] * x + h[4] * y + h[5]) / w];
}

/** A straight line as a x + b y + c = 0, (a, b) of length 1. */
type Line = readonly [number, number, number];

function through(p: Point, q: Point): Line | null {
  const [a, b] = [q[1] - p[1], p[0] - q[0]];
  const n = Math.hypot(a, b);
  if (n < 1e-9) return null;
  return [a / n, b / n, -(a * p[0] + b * p[1]) / n];
}

function meet(l: Line, m: Line): [number, number] | null {
  const d = l[0] * m[1] - l[1] * m[0];
  if (Math.abs(d) < 1e-9) return null;
  return [(l[1] * m[2] - l[2] * m[1]) / d, (l[2] * m[0] - l[0] * m[2]) / d];
}

/**
 * A margin: the straight line most of `points` (the ends of lines on one side) lie on, each within
 * its own `tolerance` (a slanted page's far lines are thinner), with next to none beyond it (away from `inside`) — the flush edge, not the indent of
 * a paragraph's first line, which in dialogue holds most lines. Of the lines through each pair, the
 * one with most points near it less twice those beyond it, fitted again through those near it
 * (least squares); null when fewer than `minShare` of the points are on it.
 */
function margin(points: Point[], tolerance: number[], inside: Point, minShare: number): Line | null {
  let [best, bestScore] = [[] as Point[], -Infinity];
  for (let i = 0; i < points.length; i++) {
    for (let j = i + 1; j < points.length; j++) {
      const l = through(points[i], points[j]);
      if (!l) continue;
      // Signed so that the inside is positive.
      const sign = Math.sign(l[0] * inside[0] + l[1] * inside[1] + l[2]) || 1;
      const near: Point[] = [];
      let beyond = 0;
      points.forEach((p, k) => {
        const d = sign * (l[0] * p[0] + l[1] * p[1] + l[2]);
        if (Math.abs(d) <= tolerance[k]) near.push(p);
        else if (d < 0) beyond++;
      });
      const score = near.length - 2 * beyond;
      if (score > bestScore) [best, bestScore] = [near, score];
    }
  }
  if (best.length < Math.max(2, minShare * points.length)) return null;
  // Total least squares: the line through the points' mean along their main direction.
  const [mx, my] = [best.reduce((s, p) => s + p[0], 0) / best.length, best.reduce((s, p) => s + p[1], 0) / best.length];
  let [sxx, syy, sxy] = [0, 0, 0];
  for (const [x, y] of best) {
    sxx += (x - mx) ** 2;
    syy += (y - my) ** 2;
    sxy += (x - mx) * (y - my);
  }
  const angle = 0.5 * Math.atan2(2 * sxy, sxx - syy);
  return through([mx, my], [mx + Math.cos(angle), my + Math.sin(angle)]);
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const distance = (p: Point, q: Point): number => Math.hypot(p[0] - q[0], p[1] - q[1]);

/** The ends of a line along its own direction, and its axis moved by `shift` across it. */
function ends(b: OrientedBox, shift = 0): [Point, Point] {
  const [c, s] = [Math.cos(b.angle), Math.sin(b.angle)];
  const [cx, cy] = [b.cx - s * shift, b.cy + c * shift];
  return [
    [cx - (c * b.length) / 2, cy - (s * b.length) / 2],
    [cx + (c * b.length) / 2, cy + (s * b.length) / 2],
  ];
}

/**
 * The quadrilateral of a page's text block seen in perspective, or null: too few lines of a page's
 * body (at least MIN_PAGE_LINES of at least half the usual long line's length, running the same way
 * within 20°), margins not found (ends of lines not aligned), or the block no more slanted than
 * MIN_KEYSTONE (a flat or merely turned page is read as it is) — one side that much longer than the
 * opposite one — or more than MAX_KEYSTONE.
 */
export function pageQuad(lines: readonly OrientedBox[], size: { width: number; height: number }): Quad | null {
  if (lines.length < MIN_PAGE_LINES) return null;
  const long = median(lines.map((l) => l.length).filter((v, _, all) => v >= median(all)));
  let body = lines.filter((l) => l.length >= long / 2);
  const angle = median(body.map((l) => l.angle));
  body = body.filter((l) => Math.abs(l.angle - angle) <= (20 * Math.PI) / 180);
  if (body.length < MIN_PAGE_LINES) return null;
  // From top to bottom; the margins are tried on at most MARGIN_LINES of them.
  const [n0, n1] = [-Math.sin(angle), Math.cos(angle)];
  const across = (l: OrientedBox) => l.cx * n0 + l.cy * n1;
  const sorted = [...body].sort((a, b) => across(a) - across(b));
  const tried =
    sorted.length <= MARGIN_LINES ? sorted : Array.from({ length: MARGIN_LINES }, (_, i) => sorted[Math.round((i * (sorted.length - 1)) / (MARGIN_LINES - 1))]);
  // Line ends jitter by a letter's part; a paragraph's indent is two or three lines' thickness.
  const thickness = tried.map((l) => 0.75 * l.thickness);
  const centre: Point = [tried.reduce((s, l) => s + l.cx, 0) / tried.length, tried.reduce((s, l) => s + l.cy, 0) / tried.length];
  const left = margin(
    tried.map((l) => ends(l)[0]),
    thickness,
    centre,
    MIN_MARGIN_SHARE,
  );
  const right = margin(
    tried.map((l) => ends(l)[1]),
    thickness,
    centre,
    MIN_MARGIN_SHARE,
  );
  if (!left || !right) return null;
  // Top and bottom: the axes of the first and last body lines, moved out by half their thickness.
  const [first, last] = [sorted[0], sorted[sorted.length - 1]];
  const top = through(...ends(first, -first.thickness / 2));
  const bottom = through(...ends(last, last.thickness / 2));
  if (!top || !bottom) return null;
  const [a, b, c, d] = [meet(top, left), meet(top, right), meet(bottom, right), meet(bottom, left)];
  if (!a || !b || !c || !d) return null;
  const quad: Quad = [a, b, c, d];
  // Inside the picture, give or take half of it, and the right way round (left of right, top above bottom).
  const [W, H] = [size.width, size.height];
  if (quad.some(([x, y]) => x < -W / 2 || x > 1.5 * W || y < -H / 2 || y > 1.5 * H)) return null;
  if (!convex(quad)) return null;
  const [topSide, rightSide, bottomSide, leftSide] = [0, 1, 2, 3].map((i) => distance(quad[i], quad[(i + 1) % 4]));
  const keystone = Math.max(topSide / bottomSide, bottomSide / topSide, leftSide / rightSide, rightSide / leftSide);
  return keystone >= MIN_KEYSTONE && keystone <= MAX_KEYSTONE ? quad : null;
}

/** Whether the corners turn the same way all round (clockwise on the screen: top left, top right, …). */
function convex(q: Quad): boolean {
  for (let i = 0; i < 4; i++) {
    const [a, b, c] = [q[i], q[(i + 1) % 4], q[(i + 2) % 4]];
    if ((b[0] - a[0]) * (c[1] - b[1]) - (b[1] - a[1]) * (c[0] - b[0]) <= 0) return false;
  }
  return true;
}

/** Whether a point is inside a convex quadrilateral (corners clockwise on the screen). */
export function insideQuad(q: Quad, [x, y]: Point): boolean {
  for (let i = 0; i < 4; i++) {
    const [a, b] = [q[i], q[(i + 1) % 4]];
    if ((b[0] - a[0]) * (y - a[1]) - (b[1] - a[1]) * (x - a[0]) < 0) return false;
  }
  return true;
}

/** Share of the block's size added around it when it is drawn again (the margins' own line ends, grown back). */
const BORDER = 0.04;
/**
 * The block is drawn at this many times the scale of its near side: the far lines, enlarged most,
 * are then found and split into words better (chosen on two slanted pages of Wonderland: mean word
 * recall, drawn again every time, of their five slanted copies 0.800 at 1, 0.820 at 1.5, 0.817 at 2).
 */
const SCALE = 1.5;

/**
 * The text block drawn as a rectangle, at SCALE times that of its near side (its long side at most
 * `maxSide`), white where it falls outside the picture, with the picture's channels; and the projection taking the rectangle's
 * pixels back to the picture's.
 */
export function rectify<C extends number>(
  image: { data: Buffer; width: number; height: number; channels: C },
  quad: Quad,
  maxSide: number,
): { data: Buffer; width: number; height: number; channels: C; toPicture: Homography } | null {
  const w0 = Math.max(distance(quad[0], quad[1]), distance(quad[3], quad[2]));
  const h0 = Math.max(distance(quad[0], quad[3]), distance(quad[1], quad[2]));
  const k = Math.min(SCALE, maxSide / ((1 + 2 * BORDER) * Math.max(w0, h0)));
  const [bw, bh] = [w0 * k, h0 * k];
  const [mx, my] = [bw * BORDER, bh * BORDER];
  const width = Math.round(bw + 2 * mx);
  const height = Math.round(bh + 2 * my);
  const toPicture = homography(
    [
      [mx, my],
      [mx + bw, my],
      [mx + bw, my + bh],
      [mx, my + bh],
    ],
    quad,
  );
  if (!toPicture || width < 8 || height < 8) return null;
  const { data, width: W, height: H, channels: n } = image;
  const out = Buffer.alloc(width * height * n, 255);
  const h = toPicture;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      // Pixel centres.
      const [u, v] = [x + 0.5, y + 0.5];
      const w = h[6] * u + h[7] * v + h[8];
      if (!(w > 0)) continue;
      const px = (h[0] * u + h[1] * v + h[2]) / w - 0.5;
      const py = (h[3] * u + h[4] * v + h[5]) / w - 0.5;
      if (px < 0 || py < 0 || px > W - 1 || py > H - 1) continue;
      const [x0, y0] = [Math.floor(px), Math.floor(py)];
      const [x1, y1] = [Math.min(W - 1, x0 + 1), Math.min(H - 1, y0 + 1)];
      const [fx, fy] = [px - x0, py - y0];
      const o = (y * width + x) * n;
      for (let c = 0; c < n; c++) {
        const top = data[(y0 * W + x0) * n + c] * (1 - fx) + data[(y0 * W + x1) * n + c] * fx;
        const bottom = data[(y1 * W + x0) * n + c] * (1 - fx) + data[(y1 * W + x1) * n + c] * fx;
        out[o + c] = Math.round(top * (1 - fy) + bottom * fy);
      }
    }
  }
  return { data: out, width, height, channels: n, toPicture };
}

/**
 * A line found in the drawn rectangle, as it lies in the picture: from one of its ends to the other,
 * taken back (its middle is theirs: a projection does not keep middles), as thick as it is there.
 */
export function lineInPicture(b: OrientedBox, toPicture: Homography): OrientedBox {
  const [p, q] = ends(b).map((e) => project(toPicture, e));
  const [above, below] = [ends(b, -b.thickness / 2), ends(b, b.thickness / 2)].map(([e0, e1]) =>
    project(toPicture, [(e0[0] + e1[0]) / 2, (e0[1] + e1[1]) / 2]),
  );
  return {
    cx: (p[0] + q[0]) / 2,
    cy: (p[1] + q[1]) / 2,
    length: distance(p, q),
    thickness: distance(above, below),
    angle: Math.atan2(q[1] - p[1], q[0] - p[0]),
  };
}

/** A box of the drawn rectangle (corners in its pixels) as the box holding it in the picture, inside the picture. */
export function boundsInPicture(
  b: { x0: number; y0: number; x1: number; y1: number },
  toPicture: Homography,
  size: { width: number; height: number },
): { x0: number; y0: number; x1: number; y1: number } {
  const corners = (
    [
      [b.x0, b.y0],
      [b.x1, b.y0],
      [b.x1, b.y1],
      [b.x0, b.y1],
    ] as const
  ).map((p) => project(toPicture, p));
  return {
    x0: Math.max(0, Math.min(...corners.map((p) => p[0]))),
    y0: Math.max(0, Math.min(...corners.map((p) => p[1]))),
    x1: Math.min(size.width, Math.max(...corners.map((p) => p[0]))),
    y1: Math.min(size.height, Math.max(...corners.map((p) => p[1]))),
  };
}
