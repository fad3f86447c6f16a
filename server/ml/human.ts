// Faces and COCO objects through @vladmandic/human, with the models shipped in the package
// (BlazeFace, FaceMesh, FaceRes 1024-d description, emotion, CenterNet): Human's pipelines on
// TensorFlow.js's WebAssembly backend, its networks on ONNX Runtime (see packagedOnOrt). Loaded once
// per indexer process. Model files are read from disk: tf.js fetches them, so file:// URLs are
// answered from the file system here; nothing else is fetched.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import sharp from 'sharp';
import type { Config, FaceLandmark, Human, Result } from '@vladmandic/human';
import { ortGraph, type GraphModelLike, type OrtGraph, type TfLike } from './human-onnx.ts';
import { executionProvider, providerRan, type Provider } from './providers.ts';

const require = createRequire(import.meta.url);
const HUMAN_DIST = path.dirname(require.resolve('@vladmandic/human'));
export const HUMAN_MODELS_DIR = path.join(HUMAN_DIST, '..', 'models');
const WASM_DIR = path.dirname(require.resolve('@tensorflow/tfjs-backend-wasm'));

export interface Rgb {
  data: Buffer;
  width: number;
  height: number;
}

export interface DetectedFace {
  /** Pixels in the analysed image. */
  box: [number, number, number, number];
  score: number;
  embedding: Float32Array;
  emotions: Array<{ emotion: string; score: number }>;
  /** Radians. */
  pose: { yaw: number; pitch: number; roll: number };
  /** Eye centres, nose tip and mouth centre, in pixels. */
  landmarks: Record<string, [number, number]>;
  /** FaceRes' estimates (the description model that gives the embedding). */
  age: number | null;
  gender: 'female' | 'male' | null;
  genderScore: number | null;
}

export interface DetectedObject {
  box: [number, number, number, number];
  label: string;
  score: number;
}

type HumanInstance = Human;

let fetchPatched = false;
/** Model files answered without their weights (their graphs run on ONNX Runtime). */
const weightless = new Map<string, string>();
const NO_WEIGHTS = 'media-index-no-weights.bin';
/** Folders whose files tf.js may load: the packaged models and wasm, and any other recognizer's folder. */
const allowed = new Set([HUMAN_MODELS_DIR, WASM_DIR].map((d) => path.resolve(d) + path.sep));
/** Answers file:// fetches under the model and wasm folders from disk (tf.js loads through fetch). */
function serveModelFiles(): void {
  if (fetchPatched) return;
  fetchPatched = true;
  const realFetch = globalThis.fetch;
  globalThis.fetch = (async (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    if (url.startsWith('file://')) {
      const file = path.resolve(fileURLToPath(url));
      if (![...allowed].some((a) => file.startsWith(a))) return new Response(null, { status: 403 });
      const body = path.basename(file) === NO_WEIGHTS ? new Uint8Array(4) : (weightless.get(file) ?? (await fs.promises.readFile(file)));
      const type = file.endsWith('.json') ? 'application/json' : file.endsWith('.wasm') ? 'application/wasm' : 'application/octet-stream';
      return new Response(body, { status: 200, headers: { 'content-type': type } });
    }
    return realFetch(input, init);
  }) as typeof fetch;
}

/**
 * Another face recognizer than the packaged FaceRes (bench/faces.ts compares them): a name for its
 * instance, the folder its model files are read from, and the face options that load it.
 */
export interface FaceVariant {
  name: string;
  modelsDir: string;
  face: Record<string, unknown>;
}

const instances = new Map<string, Promise<HumanInstance>>();

const BASE_CONFIG: Partial<Config> = {
  backend: 'wasm',
  modelBasePath: `${pathToFileURL(HUMAN_MODELS_DIR).href}/`,
  wasmPath: `${pathToFileURL(WASM_DIR).href}/`,
  debug: false,
  async: true,
  warmup: 'none',
  cacheSensitivity: 0,
  skipAllowed: false,
  filter: { enabled: false },
  face: {
    enabled: true,
    detector: { rotation: true, maxDetected: 100, minConfidence: 0.4, minSize: 0, skipFrames: 0 },
    mesh: { enabled: true },
    attention: { enabled: false },
    iris: { enabled: false },
    description: { enabled: true, skipFrames: 0 },
    emotion: { enabled: true, skipFrames: 0 },
    antispoof: { enabled: false },
    liveness: { enabled: false },
  },
  body: { enabled: false },
  hand: { enabled: false },
  gesture: { enabled: false },
  segmentation: { enabled: false },
  object: { enabled: true, modelPath: 'centernet.json', minConfidence: 0.05, iouThreshold: 0.4, maxDetected: 100, skipFrames: 0 },
};

/** The packaged networks Human loads with BASE_CONFIG, by its name for each, and the outputs it asks of them where not their own. */
const PACKAGED: Record<string, { file: string; outputs?: string[] }> = {
  blazeface: { file: 'blazeface.json' },
  facemesh: { file: 'facemesh.json' },
  faceres: { file: 'faceres.json' },
  emotion: { file: 'emotion.json' },
  centernet: { file: 'centernet.json', outputs: ['tower_0/detections'] },
};

/**
 * The packaged networks on ONNX Runtime (server/ml/human-onnx.ts): ≈ 3× faster than TensorFlow.js's
 * WebAssembly backend on the CPU, and on a GPU where there is one. Each graph's session is made
 * first; TensorFlow.js is then given its model.json without weights (it only lays out the graph),
 * so that its WebAssembly heap never holds them. A network that cannot be written as ONNX, or that
 * no provider takes, is loaded whole and stays on TensorFlow.js. MEDIA_INDEX_HUMAN_RUNTIME=tfjs keeps
 * every one there.
 */
function packagedOnOrt(): Map<string, OrtGraph> {
  const graphs = new Map<string, OrtGraph>();
  if (process.env.MEDIA_INDEX_HUMAN_RUNTIME === 'tfjs') return graphs;
  for (const [name, { file, outputs }] of Object.entries(PACKAGED)) {
    const full = path.resolve(HUMAN_MODELS_DIR, file);
    const g = ortGraph(`human/${name}`, full, outputs);
    if (!g) continue;
    graphs.set(full, g);
    const json = JSON.parse(fs.readFileSync(full, 'utf8')) as { weightsManifest: unknown[] };
    // One float of weights in their place: Human's loader counts a model with none as not loaded.
    weightless.set(
      full,
      JSON.stringify({ ...json, weightsManifest: [{ paths: [NO_WEIGHTS], weights: [{ name: NO_WEIGHTS, shape: [1], dtype: 'float32' }] }] }),
    );
  }
  return graphs;
}

/** Makes each loaded network whose graph runs on ONNX Runtime answer from there. */
function answerFromOrt(h: HumanInstance, graphs: Map<string, OrtGraph>): void {
  // Human's typings declare neither its loaded models nor tf.js's GraphModel fields used here.
  const loaded = (h as unknown as { models: { models: Record<string, GraphModelLike | null> } }).models.models;
  // tf.js's own typings of `tensor` are wider than the one call made through them.
  const tf = h.tf as unknown as TfLike;
  for (const m of Object.values(loaded)) {
    if (!m?.modelUrl?.startsWith('file://')) continue;
    graphs.get(path.resolve(fileURLToPath(m.modelUrl)))?.answer(m, tf);
  }
}

/** The runtime and provider Human's network `name` (faceres, centernet…) runs on in this process. */
export function humanRuntime(name: string): { runtime: 'onnxruntime' | 'tfjs-wasm'; provider: Provider } {
  const p = providerRan(`human/${name}`);
  if (p) return { runtime: 'onnxruntime', provider: p };
  // Not loaded here yet: where it will run.
  if (!instances.has('') && process.env.MEDIA_INDEX_HUMAN_RUNTIME !== 'tfjs') return { runtime: 'onnxruntime', provider: executionProvider() };
  return { runtime: 'tfjs-wasm', provider: 'cpu' };
}

/** Human with the given recognizer, loaded once per process. */
async function human(variant?: FaceVariant): Promise<HumanInstance> {
  const key = variant ? `${variant.name}\u0000${variant.modelsDir}` : '';
  let p = instances.get(key);
  if (!p) {
    p = (async () => {
      if (variant) allowed.add(path.resolve(variant.modelsDir) + path.sep);
      serveModelFiles();
      const { Human } = require(path.join(HUMAN_DIST, 'human.node-wasm.js')) as { Human: new (c: Partial<Config>) => HumanInstance };
      const face = { ...BASE_CONFIG.face, ...variant?.face };
      const graphs = variant ? new Map<string, OrtGraph>() : packagedOnOrt();
      const h = new Human({ ...BASE_CONFIG, face: face as Config['face'] });
      await h.load();
      await h.tf.ready();
      answerFromOrt(h, graphs);
      return h;
    })();
    instances.set(key, p);
    // A failed load is not remembered: the next run tries again.
    p.catch(() => instances.delete(key));
  }
  return p;
}

async function detect(rgb: Rgb, overrides: Partial<Config>, h?: HumanInstance): Promise<Result> {
  h ??= await human();
  const tensor = h.tf.tensor(rgb.data, [1, rgb.height, rgb.width, 3], 'int32');
  try {
    return await h.detect(tensor, overrides);
  } finally {
    tensor.dispose();
  }
}

const LANDMARKS: Record<string, FaceLandmark[]> = {
  left_eye: ['leftEyeUpper0', 'leftEyeLower0'],
  right_eye: ['rightEyeUpper0', 'rightEyeLower0'],
  nose: ['noseTip'],
  mouth: ['lipsUpperOuter', 'lipsLowerOuter'],
};

function centre(points: ReadonlyArray<ReadonlyArray<number | undefined>> | undefined): [number, number] | null {
  if (!points || points.length === 0) return null;
  const x = points.reduce((a, p) => a + (p[0] ?? 0), 0) / points.length;
  const y = points.reduce((a, p) => a + (p[1] ?? 0), 0) / points.length;
  return [Math.round(x * 10) / 10, Math.round(y * 10) / 10];
}

/**
 * Long side of the picture Human looks for faces in. Its detector sees 256 px and every face is cut
 * out at 192 px (mesh), so a larger picture adds detail only to faces over 192 px across; but tf.js
 * holds several full-size copies of the picture (the input, its float cast, a square padded copy,
 * one turned copy per tilted face), and its WebAssembly heap keeps the largest size it ever reached.
 * Measured over the corpus's pictures, with objects looked for at 512 px: the heap 298 → 144 MiB
 * (the models' own size); the same 46 faces on the face-api samples and bald_guys.jpg (1920–1986 px),
 * their embeddings at cosine 0.988 (median; least 0.921) to those of the whole picture.
 */
export const FACE_INPUT_LONG_SIDE = 1024;

/** The picture with its long side at most `longSide`, and original pixels per pixel of it across and down. */
async function fitted(rgb: Rgb, longSide: number): Promise<{ rgb: Rgb; kx: number; ky: number }> {
  if (Math.max(rgb.width, rgb.height) <= longSide) return { rgb, kx: 1, ky: 1 };
  const { data, info } = await sharp(rgb.data, { raw: { width: rgb.width, height: rgb.height, channels: 3 } })
    .resize({ width: longSide, height: longSide, fit: 'inside' })
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { rgb: { data, width: info.width, height: info.height }, kx: rgb.width / info.width, ky: rgb.height / info.height };
}

/**
 * Where the faces are and how they are held, without who they are: the detector and the mesh only
 * (their boxes, scores, landmarks and pose are those of a full look), not the description and
 * emotion models, which cost ≈ 85 ms a face of the ≈ 95 a full look spends on each (measured on the
 * face-api samples, 22 faces). Faces so found have an empty `embedding`, no emotions, age or gender.
 */
const WHERE_ONLY: Partial<Config> = {
  object: { enabled: false },
  face: { enabled: true, description: { enabled: false }, emotion: { enabled: false } } as Config['face'],
};
/** A full look. Human keeps every call's options for the next, so each call names all it changes. */
const FULL_LOOK: Partial<Config> = {
  object: { enabled: false },
  face: { enabled: true, description: { enabled: true }, emotion: { enabled: true } } as Config['face'],
};

/**
 * Faces with the app's recognizer (FaceRes), or another one (a `FaceVariant`); boxes and
 * landmarks in the given picture's pixels. `whereOnly`: see WHERE_ONLY.
 */
export async function detectFaces(rgb: Rgb, variant?: FaceVariant, opts: { whereOnly?: boolean } = {}): Promise<DetectedFace[]> {
  const h = variant ? await human(variant) : undefined;
  const { rgb: seen, kx, ky } = await fitted(rgb, FACE_INPUT_LONG_SIDE);
  const r = await detect(seen, opts.whereOnly ? WHERE_ONLY : FULL_LOOK, h);
  return r.face
    .filter((f) => opts.whereOnly || (f.embedding && f.embedding.length > 0))
    .map((f) => {
      const landmarks: Record<string, [number, number]> = {};
      for (const [name, keys] of Object.entries(LANDMARKS)) {
        const c = centre(keys.flatMap((key) => f.annotations?.[key] ?? []));
        if (c) landmarks[name] = [Math.round(c[0] * kx * 10) / 10, Math.round(c[1] * ky * 10) / 10];
      }
      return {
        box: [f.box[0] * kx, f.box[1] * ky, f.box[2] * kx, f.box[3] * ky],
        score: Number(f.faceScore ?? f.boxScore ?? f.score ?? 0),
        embedding: Float32Array.from(f.embedding ?? []),
        emotions: (f.emotion ?? []).map((e) => ({ emotion: e.emotion, score: e.score })),
        pose: { yaw: f.rotation?.angle?.yaw ?? 0, pitch: f.rotation?.angle?.pitch ?? 0, roll: f.rotation?.angle?.roll ?? 0 },
        landmarks,
        age: typeof f.age === 'number' && Number.isFinite(f.age) ? f.age : null,
        gender: f.gender === 'female' || f.gender === 'male' ? f.gender : null,
        genderScore: typeof f.genderScore === 'number' ? f.genderScore : null,
      };
    });
}

/** The side of CenterNet's input: Human resizes any picture it is given to it. */
export const OBJECT_INPUT_SIDE = 512;

/**
 * COCO objects. The detector works on a square input: the picture padded at its right and bottom,
 * never stretched, at most OBJECT_INPUT_SIDE across; `k` is the picture's pixels per square pixel, and
 * boxes are clipped to its `size`.
 */
export async function detectObjects(size: { width: number; height: number }, square: Rgb, k = 1): Promise<DetectedObject[]> {
  const r = await detect(square, { face: { enabled: false }, object: { enabled: true } });
  return r.object.map((o) => {
    const [x, y, w, h] = o.box.map((v) => v * k);
    const x1 = Math.min(size.width, x + w);
    const y1 = Math.min(size.height, y + h);
    return { box: [x, y, Math.max(0, x1 - x), Math.max(0, y1 - y)], label: String(o.label), score: Number(o.score) };
  });
}

export const COCO_LABELS: readonly string[] = [
  'person',
  'bicycle',
  'car',
  'motorcycle',
  'airplane',
  'bus',
  'train',
  'truck',
  'boat',
  'traffic light',
  'fire hydrant',
  'stop sign',
  'parking meter',
  'bench',
  'bird',
  'cat',
  'dog',
  'horse',
  'sheep',
  'cow',
  'elephant',
  'bear',
  'zebra',
  'giraffe',
  'backpack',
  'umbrella',
  'handbag',
  'tie',
  'suitcase',
  'frisbee',
  'skis',
  'snowboard',
  'sports ball',
  'kite',
  'baseball bat',
  'baseball glove',
  'skateboard',
  'surfboard',
  'tennis racket',
  'bottle',
  'wine glass',
  'cup',
  'fork',
  'knife',
  'spoon',
  'bowl',
  'banana',
  'apple',
  'sandwich',
  'orange',
  'broccoli',
  'carrot',
  'hot dog',
  'pizza',
  'donut',
  'cake',
  'chair',
  'couch',
  'potted plant',
  'bed',
  'dining table',
  'toilet',
  'tv',
  'laptop',
  'mouse',
  'remote',
  'keyboard',
  'cell phone',
  'microwave',
  'oven',
  'toaster',
  'sink',
  'refrigerator',
  'book',
  'clock',
  'vase',
  'scissors',
  'teddy bear',
  'hair drier',
  'toothbrush',
];
