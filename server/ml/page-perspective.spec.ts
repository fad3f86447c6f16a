// A page's text block seen at a slant: found from its lines, drawn again as a rectangle, and its
// lines taken back to the photo.
import { describe, expect, it } from 'vitest';
import { homography, insideQuad, lineInPicture, pageQuad, project, rectify, type Point, type Quad } from './page-perspective.ts';
import type { OrientedBox } from './text-recognize.ts';

/** A page's lines, laid out flat (a column 600 px wide, lines 20 px apart, every other one a paragraph's indented start), then seen through `h`. */
function slantedLines(h: ReturnType<typeof homography>, count = 16): OrientedBox[] {
  const out: OrientedBox[] = [];
  for (let i = 0; i < count; i++) {
    const indent = i % 2 === 0 ? 30 : 0;
    const last = i % 4 === 3 ? 200 : 0; // a paragraph's short last line
    const [x0, x1, y] = [100 + indent, 700 - last, 100 + 20 * i];
    const flat: OrientedBox = { cx: (x0 + x1) / 2, cy: y, length: x1 - x0, thickness: 10, angle: 0 };
    out.push(lineInPicture(flat, h!));
  }
  return out;
}

/** FLAT_COLUMN seen from below at a slant: the far (top) edge 0.6 times as long as the near one, the height foreshortened. */
const SEEN: Quad = [
  [300, 200],
  [700, 200],
  [830, 450],
  [170, 450],
];

const FLAT_COLUMN: Quad = [
  [100, 95],
  [700, 95],
  [700, 405],
  [100, 405],
];

describe('a page photographed at a slant', () => {
  it('projects the corners of one quadrilateral onto another, and back', () => {
    const to: Quad = [
      [300, 100],
      [600, 120],
      [800, 700],
      [50, 650],
    ];
    const h = homography(FLAT_COLUMN, to)!;
    FLAT_COLUMN.forEach((p, i) => {
      expect(project(h, p)[0]).toBeCloseTo(to[i][0], 6);
      expect(project(h, p)[1]).toBeCloseTo(to[i][1], 6);
    });
    const back = homography(to, FLAT_COLUMN)!;
    const [x, y] = project(back, project(h, [400, 250]));
    expect(x).toBeCloseTo(400, 6);
    expect(y).toBeCloseTo(250, 6);
    expect(homography(FLAT_COLUMN, [to[0], to[0], to[0], to[0]])).toBeNull();
  });

  it('finds the block of a slanted page from its lines, on its flush margins rather than its indents', () => {
    const h = homography(FLAT_COLUMN, SEEN)!;
    const quad = pageQuad(slantedLines(h), { width: 1000, height: 800 });
    expect(quad).not.toBeNull();
    // The block runs from the flush left edge (x = 100 flat) to the longest lines' end (x = 700),
    // from above the first line to below the last one.
    const expected: Point[] = [
      [100, 95],
      [700, 95],
      [700, 405],
      [100, 405],
    ].map((p) => project(h, [p[0], p[1]]));
    quad!.forEach((p, i) => {
      expect(Math.hypot(p[0] - expected[i][0], p[1] - expected[i][1]), `corner ${i}`).toBeLessThan(6);
    });
  });

  it('finds the block of a page of hundreds of lines from a spread of them, and gives up on a slant beyond belief', () => {
    const h = homography(FLAT_COLUMN, SEEN)!;
    // 400 lines 0.75 px apart (flat): the margins are tried on 48 of them.
    const many = Array.from({ length: 400 }, (_, i) =>
      lineInPicture({ cx: i % 2 ? 400 : 415, cy: 100 + 0.75 * i, length: i % 2 ? 600 : 570, thickness: 0.5, angle: 0 }, h),
    );
    expect(pageQuad(many, { width: 1000, height: 800 })).not.toBeNull();
    // The far edge a sixth of the near one: margins found that wrong are not believed.
    const extreme = homography(FLAT_COLUMN, [
      [470, 200],
      [530, 200],
      [830, 450],
      [170, 450],
    ])!;
    expect(pageQuad(slantedLines(extreme), { width: 1000, height: 800 })).toBeNull();
  });

  it('leaves alone a page seen square, a page merely turned, and a picture with a few lines', () => {
    const square = homography(FLAT_COLUMN, FLAT_COLUMN)!;
    expect(pageQuad(slantedLines(square), { width: 800, height: 600 })).toBeNull();
    const turn = (p: Point): Point => [
      400 + (p[0] - 400) * Math.cos(0.3) - (p[1] - 250) * Math.sin(0.3),
      250 + (p[0] - 400) * Math.sin(0.3) + (p[1] - 250) * Math.cos(0.3),
    ];
    const turned = homography(FLAT_COLUMN, FLAT_COLUMN.map(turn) as unknown as Quad)!; // a map of a tuple of four is four
    expect(pageQuad(slantedLines(turned), { width: 800, height: 600 })).toBeNull();
    const slanted = homography(FLAT_COLUMN, SEEN)!;
    expect(pageQuad(slantedLines(slanted, 5), { width: 1000, height: 800 })).toBeNull();
  });

  it('draws the block as a rectangle, and takes its lines back to where they are in the photo', () => {
    // A picture of 200 × 100: black left half, white right half; the quad its whole frame, slanted.
    const [W, H] = [200, 100];
    const data = Buffer.alloc(W * H * 3, 255);
    for (let y = 0; y < H; y++) for (let x = 0; x < W / 2; x++) data.fill(0, (y * W + x) * 3, (y * W + x) * 3 + 3);
    const quad: Quad = [
      [60, 10],
      [140, 10],
      [190, 90],
      [10, 90],
    ];
    const page = rectify({ data, width: W, height: H, channels: 3 }, quad, 2048)!;
    expect(page.channels).toBe(3);
    // The rectangle's left part is the picture's black half, its right part the white one.
    const at = (x: number, y: number) => page.data[(Math.floor(y) * page.width + Math.floor(x)) * 3];
    expect(at(page.width * 0.25, page.height / 2)).toBe(0);
    expect(at(page.width * 0.75, page.height / 2)).toBe(255);
    // A line across the middle of the rectangle lies across the middle of the quadrilateral.
    const line = lineInPicture({ cx: page.width / 2, cy: page.height / 2, length: page.width * 0.5, thickness: 4, angle: 0 }, page.toPicture);
    expect(insideQuad(quad, [line.cx, line.cy])).toBe(true);
    expect(Math.abs(line.angle)).toBeLessThan(0.01);
    expect(insideQuad(quad, [5, 5])).toBe(false);
    // One channel in, one out (a grey photo).
    const grey = rectify(
      { data: Buffer.from(Array.from({ length: W * H }, (_, i) => (i % W < W / 2 ? 0 : 255))), width: W, height: H, channels: 1 },
      quad,
      2048,
    )!;
    expect(grey.data.length).toBe(grey.width * grey.height);
    expect(grey.data[Math.floor(grey.height / 2) * grey.width + Math.floor(grey.width * 0.75)]).toBe(255);
  });
});
