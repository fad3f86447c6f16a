// faces, the run: Human's detector, mesh, description and emotion models on each picture (see
// ml/human.ts); faces whose smaller side is under `min_face_px` (in original pixels) are dropped;
// quality from size, sharpness and pose (ml/face-quality.ts).
import { clampBox } from '../../media/layout.ts';
import { ExtractError } from '../../media/types.ts';
import { detectFaces } from '../../ml/human.ts';
import { faceQuality, laplacianStdev } from '../../ml/face-quality.ts';
import { pictures } from '../pictures.ts';
import { defineRunner, failedBecause, notApplicable, ok } from '../stage.ts';
import { facesStage, type FoundFace } from './faces.stage.ts';

export const runFaces = defineRunner(facesStage, async ({ asset, options, assetDir, input }) => {
  const minFacePx = options.min_face_px ?? 32;
  if (asset.kind === 'document' && input.pages.length === 0) return notApplicable('no picture pages to look at');
  const found: FoundFace[] = [];
  let dropped = 0;
  let frames = 0;
  try {
    for await (const pic of pictures(asset, assetDir, input, options.fps ?? 1)) {
      frames++;
      const { width, height } = pic.rgb;
      for (const f of await detectFaces(pic.rgb)) {
        const [x, y, w, h] = f.box;
        const left = Math.max(0, Math.floor(x));
        const top = Math.max(0, Math.floor(y));
        const cw = Math.min(width - left, Math.ceil(w));
        const ch = Math.min(height - top, Math.ceil(h));
        const minSide = Math.round(Math.min(w, h) * pic.scale);
        if (minSide < minFacePx || cw < 2 || ch < 2) {
          dropped++;
          continue;
        }
        const sharpness = await laplacianStdev(pic.image, { left, top, width: cw, height: ch });
        const q = faceQuality({ minSidePx: minSide, laplacianStdev: sharpness, yaw: f.pose.yaw, pitch: f.pose.pitch, confidence: f.score });
        const top1 = [...f.emotions].sort((a, b) => b.score - a.score)[0];
        found.push({
          timestamp: pic.timestamp,
          page: pic.page,
          box: clampBox({ x: x / width, y: y / height, w: w / width, h: h / height }),
          confidence: Math.round(f.score * 1000) / 1000,
          embedding: f.embedding,
          quality: q.quality,
          good: q.good,
          size_px: minSide,
          sharpness: Math.round(sharpness * 100) / 100,
          pose: f.pose,
          landmarks: Object.fromEntries(
            Object.entries(f.landmarks).map(([k, [lx, ly]]) => [k, [Math.round((lx / width) * 1e4) / 1e4, Math.round((ly / height) * 1e4) / 1e4]]),
          ),
          emotion: top1?.emotion ?? null,
          emotion_score: top1 ? Math.round(top1.score * 1000) / 1000 : null,
          emotions: f.emotions,
          age: f.age === null ? null : Math.round(f.age * 10) / 10,
          gender: f.gender,
          gender_score: f.genderScore === null ? null : Math.round(f.genderScore * 1000) / 1000,
        });
      }
    }
  } catch (err) {
    if (err instanceof ExtractError) return failedBecause(err.reason);
    throw err;
  }
  return ok({ frames, faces: found.length, good_faces: found.filter((f) => f.good).length, dropped_small: dropped }, found);
});
