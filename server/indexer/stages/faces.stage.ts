// faces: every face on a photo, a picture page or a sampled video frame (`fps`), with its box,
// landmarks, a 1024-d embedding, expression and a quality score (see ml/face-quality.ts). Faces
// whose smaller side is under `min_face_px` (in original pixels) are dropped.
// Writes face regions, face records and search entries for expressions.
import { clampBox } from '../../media/layout.ts';
import { ExtractError } from '../../media/types.ts';
import { detectFaces } from '../../ml/human.ts';
import { faceQuality, laplacianStdev } from '../../ml/face-quality.ts';
import type { NewFace } from '../../store/faces.repo.ts';
import type { Box } from '../../contract/common.ts';
import { picturesOf, pictures, type PictureInput } from '../pictures.ts';
import { ALWAYS_AVAILABLE, failed, notApplicable, ok, type StageDefinition } from '../stage.ts';

interface FoundFace extends NewFace {
  box: Box;
  confidence: number;
  page: number | null;
}

function iou(a: [number, number, number, number], b: [number, number, number, number]): number {
  const x0 = Math.max(a[0], b[0]);
  const y0 = Math.max(a[1], b[1]);
  const x1 = Math.min(a[0] + a[2], b[0] + b[2]);
  const y1 = Math.min(a[1] + a[3], b[1] + b[3]);
  const inter = Math.max(0, x1 - x0) * Math.max(0, y1 - y0);
  const union = a[2] * a[3] + b[2] * b[3] - inter;
  return union > 0 ? inter / union : 0;
}

export const facesStage: StageDefinition = {
  name: 'faces',
  version: 1,
  kinds: ['video', 'image', 'document'],
  dependsOn: ['extract'],
  model: 'BlazeFace + FaceMesh + FaceRes + emotion (Human, bundled)',
  availability: ALWAYS_AVAILABLE,
  prepare: picturesOf,
  async run({ asset, options, assetDir, input }) {
    const minFacePx = Number(options.min_face_px ?? 32);
    const pics = input as PictureInput;
    if (asset.kind === 'document' && pics.pages.length === 0) return notApplicable('no picture pages to look at');
    const found: FoundFace[] = [];
    let dropped = 0;
    let frames = 0;
    try {
      for await (const pic of pictures(asset, assetDir, pics, Number(options.fps ?? 1))) {
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
            landmarks: Object.fromEntries(Object.entries(f.landmarks).map(([k, [lx, ly]]) => [k, [Math.round((lx / width) * 1e4) / 1e4, Math.round((ly / height) * 1e4) / 1e4]])),
            emotion: top1?.emotion ?? null,
            emotion_score: top1 ? Math.round(top1.score * 1000) / 1000 : null,
            emotions: f.emotions,
          });
        }
      }
    } catch (err) {
      if (err instanceof ExtractError) return failed(err.reason);
      throw err;
    }
    return ok({ frames, faces: found.length, good_faces: found.filter((f) => f.good).length, dropped_small: dropped }, found);
  },
  save(store, assetId, output) {
    const faces = output as FoundFace[];
    // A re-index makes new face records: the owner's decisions about the old ones carry over to
    // the new face at the same time and place (boxes overlapping by half or more).
    const before = store.people.decisionsOf(assetId);
    const ids = store.regions.replaceForStage(
      assetId,
      'faces',
      faces.map((f) => ({
        timestamp: f.timestamp, kind: 'face' as const, ...f.box, label: null, text: null,
        confidence: f.confidence, quality: f.quality, person_id: null, source: 'human-blazeface',
      })),
    );
    store.faces.replaceForAsset(assetId, ids, faces);
    const now = Date.now();
    faces.forEach((f, i) => {
      const old = before.find((o) => o.timestamp === f.timestamp && iou(o.box, [f.box.x, f.box.y, f.box.w, f.box.h]) >= 0.5);
      if (!old) return;
      if (old.person_id && store.people.get(old.person_id)) store.people.assign(ids[i], old.person_id, (old.assigned_by ?? 'owner') as 'owner', now);
      for (const e of old.exclusions) if (store.people.get(e.person_id)) store.people.exclude(ids[i], e.person_id, e.kind, now);
      for (const p of old.covers) store.people.update(p, { cover_face_id: ids[i] }, now);
    });
    store.search.replaceForStage(
      assetId,
      'faces',
      faces
        .map((f, i) => ({ f, id: ids[i] }))
        .filter(({ f }) => f.emotion && (f.emotion_score ?? 0) >= 0.5)
        .map(({ f, id }) => ({ modality: 'person', timestamp: f.timestamp, page: f.page, ref: null, region_id: id, text: `face ${f.emotion}` })),
    );
  },
};
