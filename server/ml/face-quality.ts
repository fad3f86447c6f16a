// Face quality (SPEC 2.6): from size, sharpness and pose, times the detector's confidence.
//   size      = clamp((min side px - 32) / (112 - 32))       a 112 px face is full size
//   sharpness = clamp(stdev of the Laplacian of the 112x112 grey crop / 20)
//   pose      = clamp(1 - max(|yaw| / 0.8, |pitch| / 0.6))  radians; frontal is 1
//   quality   = (0.4 size + 0.3 sharpness + 0.3 pose) * detector confidence
// A face is "good" (it may decide who someone is) when quality >= GOOD_QUALITY and its smaller side
// is at least 48 px. Small or blurry faces are kept and shown, marked not good.
import type { Sharp } from 'sharp';

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

/** Stdev of the Laplacian of a face crop, brought to 112x112 grey (blur lowers it). */
export async function laplacianStdev(image: Sharp, box: { left: number; top: number; width: number; height: number }): Promise<number> {
  const stats = await image
    .clone()
    .extract(box)
    .resize(112, 112, { fit: 'fill' })
    .grayscale()
    .convolve({ width: 3, height: 3, kernel: [0, 1, 0, 1, -4, 1, 0, 1, 0], offset: 128 })
    .stats();
  return stats.channels[0].stdev;
}
