// Face quality (SPEC 2.6): from size, sharpness and pose, times the detector's confidence.
//   size      = clamp((min side px - 32) / (112 - 32))       a 112 px face is full size
//   sharpness = clamp(stdev of the Laplacian of the 112x112 grey crop / 20)
//   pose      = clamp(1 - max(|yaw| / 0.8, |pitch| / 0.6))  radians; frontal is 1
//   quality   = (0.4 size + 0.3 sharpness + 0.3 pose) * detector confidence
// A face is "good" (it may decide who someone is) when quality >= GOOD_QUALITY and its smaller side
// is at least 48 px. Small or blurry faces are kept and shown, marked not good.
import type { Picture } from './pixels.ts';

export const GOOD_QUALITY = 0.55;
export const GOOD_MIN_SIDE_PX = 48;

const clamp = (v: number) => Math.max(0, Math.min(1, v));

export interface QualityParts {
  size: number;
  sharpness: number;
  pose: number;
  confidence: number;
  quality: number;
  good: boolean;
}

export function faceQuality(input: { minSidePx: number; laplacianStdev: number; yaw: number; pitch: number; confidence: number }): QualityParts {
  const size = clamp((input.minSidePx - 32) / (112 - 32));
  const sharpness = clamp(input.laplacianStdev / 20);
  const pose = clamp(1 - Math.max(Math.abs(input.yaw) / 0.8, Math.abs(input.pitch) / 0.6));
  const confidence = clamp(input.confidence);
  const quality = Math.round((0.4 * size + 0.3 * sharpness + 0.3 * pose) * confidence * 1000) / 1000;
  return { size, sharpness, pose, confidence, quality, good: quality >= GOOD_QUALITY && input.minSidePx >= GOOD_MIN_SIDE_PX };
}

/**
 * Stdev of the Laplacian of a grey face crop at its own resolution (only shrunk when over 256 px):
 * blur lowers it. Shrinking further would hide the blur of large faces. Each call opens the picture
 * afresh: a clone of a pipeline over decoded pixels costs ≈ 6 ms a face, a new one ≈ 0.7.
 */
export async function laplacianStdev(picture: Picture, box: { left: number; top: number; width: number; height: number }): Promise<number> {
  const side = Math.max(box.width, box.height);
  // sharp is loaded here, where it is used: the service reads this module's thresholds without it.
  const { open } = await import('./pixels.ts');
  const grey = open(picture).extract(box);
  if (side > 256) grey.resize({ width: Math.round((box.width * 256) / side), height: Math.round((box.height * 256) / side), fit: 'fill' });
  const { data, info } = await grey.grayscale().raw().toBuffer({ resolveWithObject: true });
  const w = info.width;
  const h = info.height;
  const ch = info.channels;
  let sum = 0;
  let sumSq = 0;
  let n = 0;
  // Indexed directly (no helper made per pixel: that cost more than the sum itself).
  const row = w * ch;
  for (let y = 1; y < h - 1; y++) {
    for (let x = 1; x < w - 1; x++) {
      const i = (y * w + x) * ch;
      const lap = data[i - row] + data[i + row] + data[i - ch] + data[i + ch] - 4 * data[i];
      sum += lap;
      sumSq += lap * lap;
      n++;
    }
  }
  if (n === 0) return 0;
  const mean = sum / n;
  return Math.sqrt(Math.max(0, sumSq / n - mean * mean));
}
