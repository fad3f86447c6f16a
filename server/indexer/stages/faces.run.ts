// faces, the run: Human's detector, mesh, description and emotion models on each picture (see
// ml/human.ts); faces whose smaller side is under `min_face_px` (in original pixels) are dropped;
// quality from size, sharpness and pose (ml/face-quality.ts). A photo or picture page stored
// sideways or upside down is looked at again turned (see `upright`), boxes mapped back.
import sharp from 'sharp';
import { clampBox } from '../../geometry.ts';
import { ExtractError } from '../../media/types.ts';
import { detectFaces, humanRuntime, type DetectedFace } from '../../ml/human.ts';
import { faceQuality, laplacianStdev } from '../../ml/face-quality.ts';
import { pictures } from '../pictures.ts';
import { videoFps } from '../picture-input.ts';
import { defineRunner, failedBecause, ok } from '../stage.ts';
import { facesStage, type FoundFace } from './faces.stage.ts';

type Turn = 0 | 90 | 180 | 270;
type Rgb = { data: Buffer; width: number; height: number };

/** A face counts as found upright at this detector score. */
const SURE = 0.8;
/**
 * A face rolled further than this (radians, 40°) is not held level. Human gives the sure faces of a
 * picture stored sideways 45–87° of roll (the face-api samples and portraits turned either way),
 * those of upright pictures less than 35° but for one tilted head at 44° (96 sure faces of the
 * corpus); 45° itself let a quarter-turned group photo (sample1.jpg) pass as upright by a fraction
 * of a degree once faces were looked for at 1024 px.
 */
const LEVEL = (40 * Math.PI) / 180;

/** The picture turned clockwise by `turn` degrees; smoothed by a Gaussian of σ `smoothing` px where given. */
async function turned(rgb: Rgb, turn: Turn, smoothing?: number): Promise<Rgb> {
  const picture = sharp(rgb.data, { raw: { width: rgb.width, height: rgb.height, channels: 3 } }).rotate(turn);
  const { data, info } = await (smoothing ? picture.blur(smoothing) : picture).raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

/** A point of the picture turned clockwise by `turn`, mapped back onto the picture as stored (w × h). */
function back(turn: Turn, w: number, h: number, [x, y]: [number, number]): [number, number] {
  if (turn === 90) return [y, h - x];
  if (turn === 180) return [w - x, h - y];
  if (turn === 270) return [w - y, x];
  return [x, y];
}

/** Faces found on the turned picture, their boxes and landmarks in the stored picture's pixels. */
function mapBack(faces: DetectedFace[], turn: Turn, w: number, h: number): DetectedFace[] {
  if (turn === 0) return faces;
  return faces.map((f) => {
    const [x, y, bw, bh] = f.box;
    const [a, b] = [back(turn, w, h, [x, y]), back(turn, w, h, [x + bw, y + bh])];
    const [x0, x1, y0, y1] = [Math.min(a[0], b[0]), Math.max(a[0], b[0]), Math.min(a[1], b[1]), Math.max(a[1], b[1])];
    return {
      ...f,
      box: [x0, y0, x1 - x0, y1 - y0] as DetectedFace['box'],
      landmarks: Object.fromEntries(Object.entries(f.landmarks).map(([k, p]) => [k, back(turn, w, h, p)])),
    };
  });
}

const sure = (faces: DetectedFace[]) => faces.filter((f) => f.score >= SURE).length;
const level = (f: DetectedFace) => Math.abs(f.pose.roll) <= LEVEL;
/** Faces the detector is sure of, held level: what each way up of a picture is judged by. */
const sureAndLevel = (faces: DetectedFace[]) => faces.filter((f) => f.score >= SURE && level(f)).length;

/** Sure faces held level that a turned look must show, alone, to turn the picture (decision 0030). */
const SEVERAL = 2;

/** The quarter turn that holds level a face rolled by about 90° (+90° stands level turned anticlockwise: 270). */
const levelledBy = (f: DetectedFace): Turn => (f.pose.roll > 0 ? 270 : 90);

/**
 * Which way up the picture is, judged by its faces. As stored when it holds a face the detector is
 * sure of, held about level (Human's detector finds many faces of a sideways picture, rolled by
 * about 90°). Otherwise it is looked at again turned — the turn that levels the faces first, then
 * the others — and the turn with the most sure faces held level is the candidate. It is believed
 * only on strong evidence, never on one face-like shape of a drawing or a pattern: several sure
 * faces level at that turn, or one that the stored look already saw, sure and rolled the way that
 * quarter turn levels. Anything less keeps the picture as stored: a photo shown sideways is a
 * nuisance, an upright photo shown upside down is a broken promise (the owner turns the first
 * in the viewer). The extra looks happen only where the stored look found no sure, level face.
 */
export async function upright(rgb: Rgb, first: DetectedFace[]): Promise<{ turn: Turn; faces: DetectedFace[] }> {
  const rolled = first.filter((f) => !level(f));
  const asStored = { turn: 0 as Turn, faces: first };
  if (sure(first) > 0 && rolled.length * 2 <= first.length) return asStored;
  // A face rolled by +90° stands level once the picture is turned a quarter anticlockwise (270).
  const meanRoll = rolled.reduce((a, f) => a + f.pose.roll, 0) / Math.max(1, rolled.length);
  const order: Turn[] = rolled.length ? (meanRoll > 0 ? [270, 90, 180] : [90, 270, 180]) : [90, 270, 180];
  let best = { turn: 0 as Turn, faces: first, sure: sureAndLevel(first) };
  for (const turn of order) {
    const faces = await detectFaces(await turned(rgb, turn));
    const n = sureAndLevel(faces);
    if (n > best.sure) best = { turn, faces, sure: n };
    // Every face found before, now level and sure: no need to look further.
    if (n > 0 && n >= first.length && faces.every(level)) break;
  }
  if (best.turn === 0) return asStored;
  const seenRolled = first.some((f) => f.score >= SURE && !level(f) && levelledBy(f) === best.turn);
  if (best.sure < SEVERAL && (!seenRolled || !(await holdsUnderSmoothing(rgb, best.turn)))) return asStored;
  return { turn: best.turn, faces: mapBack(best.faces, best.turn, rgb.width, rgb.height) };
}

/**
 * Smoothing (Gaussian, σ = SMOOTHING px) of the turned picture before the second look that a lone
 * face must pass: it wipes out JPEG block edges and little else.
 */
const SMOOTHING = 0.8;

/**
 * Whether a lone face turns a picture: it must stand, sure and level, in a second look at the
 * turned picture smoothed a little. A face is a face under a touch of blur; a face-like shape that
 * the compression of the stored frame drew into a drawing is not (the corpus's cartoon fish
 * HappyFish.jpg: a "face" at 0.82 in its stored frame, none in its file; turned, 0.90, and 0.54
 * smoothed). Asked only where a lone face would turn the picture.
 */
async function holdsUnderSmoothing(rgb: Rgb, turn: Turn): Promise<boolean> {
  return sureAndLevel(await detectFaces(await turned(rgb, turn, SMOOTHING), undefined, { whereOnly: true })) > 0;
}

/** The photo's own EXIF orientation (extraction applied it): then the picture is not turned again. */
async function hasExifOrientation(file: string): Promise<boolean> {
  try {
    return ((await sharp(file).metadata()).orientation ?? 1) > 1;
  } catch {
    return false;
  }
}

export const runFaces = defineRunner(facesStage, async ({ asset, options, assetDir, input, progress }) => {
  const minFacePx = options.min_face_px ?? 32;
  const found: FoundFace[] = [];
  let dropped = 0;
  let frames = 0;
  // Photos and the picture pages of scans may be stored turned; the pages of a document with text of
  // its own are as its author laid them out (picture-input.ts), and video frames are not looked at again.
  const mayTurn = (asset.kind === 'document' && !input.upright) || (asset.kind === 'image' && !(await hasExifOrientation(asset.filePath)));
  let orientation: Turn | null = asset.kind === 'image' ? 0 : null;
  try {
    for await (const pic of pictures(asset, assetDir, input, videoFps('faces', options), progress)) {
      frames++;
      const rgb = await pic.pixels();
      const { width, height } = rgb;
      // Each face's sharpness is measured on the pixels decoded here (the same values as from the file, not decoded again per face).
      const decoded = { ...rgb, channels: 3 as const };
      const first = await detectFaces(rgb);
      const { turn, faces } = mayTurn ? await upright(rgb, first) : { turn: 0 as Turn, faces: first };
      if (asset.kind === 'image') orientation = turn;
      for (const f of faces) {
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
        const sharpness = await laplacianStdev(decoded, { left, top, width: cw, height: ch });
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
          orientation: turn,
        });
      }
    }
  } catch (err) {
    if (err instanceof ExtractError) return failedBecause(err);
    throw err;
  }
  return ok(
    { frames, faces: found.length, good_faces: found.filter((f) => f.good).length, dropped_small: dropped },
    found,
    // Where the description network ran (ONNX Runtime's provider, or TensorFlow.js on the CPU).
    { ...humanRuntime('faceres'), ...(orientation ? { orientation_detected: orientation } : {}) },
  );
});
