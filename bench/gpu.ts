// The GPU against the CPU on the same machine, as the app runs: the service started with
// MEDIA_INDEX_DEVICE=cpu and with MEDIA_INDEX_DEVICE=cuda (or dml, coreml), interleaved
// (A B B A …), each cold on a new data folder: photos/s and video × real time with every bundled
// stage (bench:ab's photos and videos), the provider each stage's last run reports (`media-index
// doctor`) and, while the GPU side runs, the GPU memory its processes hold (nvidia-smi). Then the
// models alone, in a process per provider: the text detector over the same photos (ms a photo, and
// the regions found, which must agree), Human's face and object networks (ONNX Runtime: ms a photo
// for the faces and the objects, and how far the face embeddings lie from the CPU's) and, with
// `--minilm DIR` (or `--minilm fetch`, as `npm run real-models -- fetch all-MiniLM-L6-v2` does),
// the sentence encoder (all-MiniLM-L6-v2 int8, the embeddings stage's batches of 32 over
// carroll-wonderland.pdf's passages: passages/s, and how far its vectors lie from the CPU's).
// Needs the provider installed (`npm run gpu:install`).
// `--photos DIR` times the pictures of a folder instead (a camera's folder: few shapes), and then
// neither the videos nor the models alone are run.
// `--gpu-workers N` runs the GPU side with N indexer processes (the CPU side keeps one per core).
// Usage: npm run bench -- gpu [-- --runs 3 --device cuda --minilm DIR|fetch] | gpu -- --photos DIR [--runs 2] [--gpu-workers N]
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { arg, spread, writeResults } from './report.ts';
import { allCompleted, serve, uploadAll, type Service } from './serve.ts';
import { CORPUS, PHOTOS } from './sets.ts';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const CLI = path.resolve(HERE, '../bin/media-index.js');
const SELF = fileURLToPath(import.meta.url);
const stringArg = (name: string, def: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : def;
};
const runs = arg('runs', 3);
/** Indexer processes of the GPU side (`--gpu-workers N`); by default one per core, as on the CPU side. */
const gpuWorkers = arg('gpu-workers', 0);
const device = stringArg('device', 'cuda');
const WARM_UP = ['faces/portraits/grace_hopper_512x512.jpg', 'scenes/skimage/camera.png'].map((f) => path.join(CORPUS, f));
const VIDEOS = ['video/forensics/movie-hello.mp4', 'video/opencv/vtest.avi'].map((f) => path.join(CORPUS, f));
const BOOK = path.join(CORPUS, 'docs/carroll-wonderland.pdf');
const photoDir = stringArg('photos', '');
const SET = photoDir
  ? fs
      .readdirSync(photoDir)
      .filter((f) => /\.(jpe?g|png)$/i.test(f))
      .sort()
      .map((f) => path.join(photoDir, f))
  : PHOTOS;

interface ModelFigures {
  provider: Record<string, string>;
  detector_ms: number[];
  regions: number[];
  faces_ms: number[];
  objects_ms: number[];
  /** The faces found per photo, and the first photo's face embeddings. */
  faces: number[];
  face_vectors: number[][];
  passages: number;
  passages_per_s: number[];
  vectors: number[][];
}

/** In a process of its own (the provider is chosen once per process): the ONNX models alone. */
async function models(minilm: string, out: string): Promise<void> {
  const { textRegions } = await import('../server/ml/text-detect.ts');
  const { detectFaces, detectObjects, OBJECT_INPUT_SIDE } = await import('../server/ml/human.ts');
  const sharp = (await import('sharp')).default;
  const { embedTexts } = await import('../server/ml/embeddings.ts');
  const { modelsDir } = await import('../server/ml/models.ts');
  const { providerRan } = await import('../server/ml/providers.ts');
  const { extractPdf } = await import('../server/media/pdf.ts');
  const { sentenceWindows } = await import('../server/indexer/stages/embeddings.stage.ts');
  const data = fs.mkdtempSync(path.join(os.tmpdir(), 'mi-bench-gpu-'));
  try {
    if (minilm)
      execFileSync(process.execPath, [CLI, 'models', 'import', 'all-MiniLM-L6-v2', '--from', minilm, '--data', data], {
        env: { ...process.env, MEDIA_INDEX_MODELS: '', MEDIA_INDEX_MODEL_MANIFEST: '' },
        stdio: 'ignore',
      });
    for (const p of PHOTOS) await textRegions(p); // each photo's shape seen once, as a long run sees few new ones
    const detectorMs: number[] = [];
    const regions: number[] = [];
    for (let r = 0; r < 3; r++) {
      const t0 = performance.now();
      for (const p of PHOTOS) {
        const found = await textRegions(p);
        if (r === 0) regions.push(found.length);
      }
      detectorMs.push((performance.now() - t0) / PHOTOS.length);
    }
    // Human's networks, as the faces and objects stages give them a photo.
    const rgb = async (p: string, square?: number) => {
      let img = sharp(p).rotate().removeAlpha();
      if (square) img = img.resize({ width: square, height: square, fit: 'contain', position: 'left top', background: '#000' });
      const { data: px, info } = await img.raw().toBuffer({ resolveWithObject: true });
      return { data: px, width: info.width, height: info.height };
    };
    const pictures = await Promise.all(PHOTOS.map((p) => rgb(p)));
    const squares = await Promise.all(PHOTOS.map((p) => rgb(p, OBJECT_INPUT_SIDE)));
    for (const [i, px] of pictures.entries()) {
      await detectFaces(px);
      await detectObjects({ width: OBJECT_INPUT_SIDE, height: OBJECT_INPUT_SIDE }, squares[i]);
    }
    const facesMs: number[] = [];
    const objectsMs: number[] = [];
    const faceCounts: number[] = [];
    let faceVectors: number[][] = [];
    for (let r = 0; r < 3; r++) {
      let t0 = performance.now();
      for (const [i, px] of pictures.entries()) {
        const found = await detectFaces(px);
        if (r === 0) faceCounts.push(found.length);
        if (r === 0 && i === 0) faceVectors = found.map((f) => [...f.embedding]);
      }
      facesMs.push((performance.now() - t0) / PHOTOS.length);
      t0 = performance.now();
      for (const sq of squares) await detectObjects({ width: OBJECT_INPUT_SIDE, height: OBJECT_INPUT_SIDE }, sq);
      objectsMs.push((performance.now() - t0) / PHOTOS.length);
    }
    // The sentence encoder, where its folder was given.
    let encoder: Pick<ModelFigures, 'passages' | 'passages_per_s' | 'vectors'> = { passages: 0, passages_per_s: [], vectors: [] };
    if (minilm) {
      const root = modelsDir(data);
      const { pages } = await extractPdf(BOOK, { assetDir: data, renderAll: false, maxPages: 1000 });
      const passages = pages.flatMap((p) => p.passages.flatMap((x) => sentenceWindows(x.text.replace(/\s+/g, ' ').trim()))).filter((p) => p.length > 20);
      const first = await embedTexts(root, 'all-MiniLM-L6-v2', passages.slice(0, 32));
      const rates: number[] = [];
      for (let r = 0; r < 5; r++) {
        const t0 = performance.now();
        for (let i = 0; i < passages.length; i += 32) await embedTexts(root, 'all-MiniLM-L6-v2', passages.slice(i, i + 32));
        rates.push(passages.length / ((performance.now() - t0) / 1000));
      }
      encoder = { passages: passages.length, passages_per_s: rates, vectors: first.slice(0, 8).map((v) => [...v]) };
    }
    const figures: ModelFigures = {
      provider: {
        text_detector: providerRan('ch_PP-OCRv4_det_infer.onnx') ?? 'not loaded',
        faces: providerRan('human/faceres') ?? 'not loaded',
        objects: providerRan('human/centernet') ?? 'not loaded',
        encoder: providerRan('all-MiniLM-L6-v2') ?? 'not loaded',
      },
      detector_ms: detectorMs,
      regions,
      faces_ms: facesMs,
      objects_ms: objectsMs,
      faces: faceCounts,
      face_vectors: faceVectors,
      ...encoder,
    };
    fs.writeFileSync(out, JSON.stringify(figures));
  } finally {
    fs.rmSync(data, { recursive: true, force: true });
  }
}

/** The GPU memory (MiB) each process holds, by pid; empty without nvidia-smi. */
function gpuMemory(): Map<number, number> {
  const r = spawnSync('nvidia-smi', ['--query-compute-apps=pid,used_memory', '--format=csv,noheader,nounits'], { encoding: 'utf8' });
  const m = new Map<number, number>();
  if (r.status !== 0) return m;
  for (const line of r.stdout.trim().split('\n')) {
    const [pid, mib] = line.split(',').map((s) => Number(s.trim()));
    if (Number.isFinite(pid)) m.set(pid, mib);
  }
  return m;
}

/** Uploads the files and waits until each is `completed`; a stage that failed stops the benchmark (its time would not be the work's). */
async function indexAll(s: Service, files: string[]): Promise<{ seconds: number; assets: Array<{ duration_s?: number | null }> }> {
  const t0 = performance.now();
  const assets = await allCompleted<{ status: string; duration_s?: number | null; failed_stages: string[] }>(s, await uploadAll(s, files));
  const seconds = (performance.now() - t0) / 1000;
  const failed = assets.flatMap((a, i) => a.failed_stages.map((st) => `${path.basename(files[i])}: ${st}`));
  if (failed.length) throw new Error(`stages failed: ${failed.join(', ')}`);
  return { seconds, assets };
}

async function measure(side: string): Promise<{ photos: number; video: number; providers: Record<string, string>; gpu_mib: number }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mi-bench-gpu-'));
  const s = await serve(dataDir, { env: { MEDIA_INDEX_DEVICE: side }, ...(side !== 'cpu' && gpuWorkers ? { workers: gpuWorkers } : {}) });
  let gpuMib = 0;
  try {
    await indexAll(s, WARM_UP);
    const photos = SET.length / (await indexAll(s, SET)).seconds;
    const held = gpuMemory();
    const tree = new Set([s.pid, ...childPids(s.pid)]);
    for (const [pid, mib] of held) if (tree.has(pid)) gpuMib += mib;
    const videos = photoDir ? { assets: [], seconds: 1 } : await indexAll(s, VIDEOS);
    const videoSeconds = videos.assets.reduce((n, a) => n + (a.duration_s ?? 0), 0);
    await s.stop();
    const doctor = JSON.parse(execFileSync(process.execPath, [CLI, 'doctor', '--json', '--data', dataDir], { encoding: 'utf8' })) as {
      last_runs: Array<{ stage: string; provider: string | null }>;
    };
    const providers = Object.fromEntries(doctor.last_runs.map((r) => [r.stage, r.provider ?? 'cpu (not ONNX)']));
    return { photos, video: videoSeconds / videos.seconds, providers, gpu_mib: gpuMib };
  } finally {
    await s.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

function childPids(pid: number): number[] {
  const r = spawnSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' });
  const kids = r.stdout.split('\n').filter(Boolean).map(Number);
  return kids.flatMap((k) => [k, ...childPids(k)]);
}

if (process.argv[2] === '--models-process') {
  await models(process.argv[3], process.argv[4]);
  process.exit(0);
}

const minilm = () =>
  stringArg('minilm', '') !== 'fetch'
    ? stringArg('minilm', '')
    : execFileSync(path.join(HERE, '..', 'node_modules', '.bin', 'tsx'), [path.join(HERE, '..', 'scripts', 'real-models.ts'), 'fetch', 'all-MiniLM-L6-v2'], {
        encoding: 'utf8',
      })
        .trim()
        .split('\n')
        .pop()!;
const sides = ['cpu', device];
const got: Record<string, { photos: number[]; video: number[]; providers: Record<string, string>; gpu_mib: number[] }> = {};
for (const side of sides) got[side] = { photos: [], video: [], providers: {}, gpu_mib: [] };
for (let i = 0; i < runs; i++) {
  const order = i % 2 === 0 ? sides : [...sides].reverse();
  for (const side of order) {
    const m = await measure(side);
    got[side].photos.push(m.photos);
    got[side].video.push(m.video);
    got[side].providers = m.providers;
    got[side].gpu_mib.push(m.gpu_mib);
    console.log(
      `run ${i + 1} ${side}: ${m.photos.toFixed(3)} photos/s${photoDir ? '' : `, video ${m.video.toFixed(2)}× real time`}, GPU memory ${m.gpu_mib} MiB`,
    );
  }
}
if (photoDir) {
  const f = { cpu: spread(got.cpu.photos, 3), gpu: spread(got[device].photos, 3) };
  writeResults(
    'gpu-folder',
    `${device} against the CPU on one machine, the ${SET.length} pictures of ${path.basename(photoDir)}, ${runs} interleaved cold runs a side`,
    {
      device,
      pictures: SET.length,
      cpu_photos_per_s_median: f.cpu.median,
      cpu_photos_range: f.cpu.range,
      gpu_photos_per_s_median: f.gpu.median,
      gpu_photos_range: f.gpu.range,
      photos_gpu_over_cpu: Math.round((f.gpu.median / f.cpu.median) * 100) / 100,
      indexer_processes: `cpu ${os.availableParallelism()}, ${device} ${gpuWorkers || os.availableParallelism()}`,
      gpu_memory_of_service_mib: Math.max(...got[device].gpu_mib),
      stages_gpu_side: Object.entries(got[device].providers)
        .map(([k, x]) => `${k} ${x}`)
        .join(', '),
    },
  );
  process.exit(0);
}
const modelDir = minilm();
const modelFigures: Record<string, ModelFigures> = {};
for (const side of sides) {
  const out = path.join(os.tmpdir(), `mi-bench-gpu-${side}-${process.pid}.json`);
  execFileSync(process.execPath, [...process.execArgv, SELF, '--models-process', modelDir, out], {
    env: { ...process.env, MEDIA_INDEX_DEVICE: side },
    stdio: 'inherit',
  });
  modelFigures[side] = JSON.parse(fs.readFileSync(out, 'utf8')) as ModelFigures;
  fs.rmSync(out, { force: true });
}
const [cpu, gpu] = [modelFigures.cpu, modelFigures[device]];
let maxDiff = 0;
cpu.vectors.forEach((v, i) => v.forEach((x, j) => (maxDiff = Math.max(maxDiff, Math.abs(x - gpu.vectors[i][j])))));
const cosine = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i], 0) / (Math.hypot(...a) * Math.hypot(...b));
const faceCosines = cpu.face_vectors.map((v, i) => (gpu.face_vectors[i] ? cosine(v, gpu.face_vectors[i]) : 0));
const fac = { cpu: spread(cpu.faces_ms, 1), gpu: spread(gpu.faces_ms, 1) };
const obj = { cpu: spread(cpu.objects_ms, 1), gpu: spread(gpu.objects_ms, 1) };
const p = { cpu: spread(got.cpu.photos, 3), gpu: spread(got[device].photos, 3) };
const v = { cpu: spread(got.cpu.video, 2), gpu: spread(got[device].video, 2) };
const det = { cpu: spread(cpu.detector_ms, 1), gpu: spread(gpu.detector_ms, 1) };
const enc = cpu.passages ? { cpu: spread(cpu.passages_per_s, 0), gpu: spread(gpu.passages_per_s, 0) } : { cpu: { median: 0 }, gpu: { median: 0 } };
const stagesOn = (side: string) =>
  Object.entries(got[side].providers)
    .map(([k, x]) => `${k} ${x}`)
    .join(', ');
writeResults(
  'gpu',
  `${device} against the CPU on one machine (${os.cpus()[0]?.model ?? 'unknown CPU'}, ${os.cpus().length} cores), ${runs} interleaved cold runs a side`,
  {
    device,
    cpu_photos_per_s_median: p.cpu.median,
    cpu_photos_range: p.cpu.range,
    gpu_photos_per_s_median: p.gpu.median,
    gpu_photos_range: p.gpu.range,
    photos_gpu_over_cpu: Math.round((p.gpu.median / p.cpu.median) * 100) / 100,
    cpu_video_x_realtime_median: v.cpu.median,
    gpu_video_x_realtime_median: v.gpu.median,
    video_gpu_over_cpu: Math.round((v.gpu.median / v.cpu.median) * 100) / 100,
    gpu_memory_of_service_mib: Math.max(...got[device].gpu_mib),
    stages_cpu_side: stagesOn('cpu'),
    stages_gpu_side: stagesOn(device),
    text_detector_cpu_ms_per_photo: det.cpu.median,
    text_detector_gpu_ms_per_photo: det.gpu.median,
    text_detector_provider: `${cpu.provider.text_detector} / ${gpu.provider.text_detector}`,
    text_regions_same: cpu.regions.join(',') === gpu.regions.join(',') ? 'yes' : `no: ${cpu.regions.join(',')} against ${gpu.regions.join(',')}`,
    faces_cpu_ms_per_photo: fac.cpu.median,
    faces_gpu_ms_per_photo: fac.gpu.median,
    objects_cpu_ms_per_photo: obj.cpu.median,
    objects_gpu_ms_per_photo: obj.gpu.median,
    faces_provider: `${cpu.provider.faces} / ${gpu.provider.faces}`,
    objects_provider: `${cpu.provider.objects} / ${gpu.provider.objects}`,
    faces_found_same:
      cpu.faces.join(',') === gpu.faces.join(',')
        ? `yes (${cpu.faces.reduce((a, b) => a + b, 0)})`
        : `no: ${cpu.faces.join(',')} against ${gpu.faces.join(',')}`,
    face_embedding_least_cosine: faceCosines.length ? Number(Math.min(...faceCosines).toFixed(5)) : 'no face',
    ...(cpu.passages
      ? {
          encoder_cpu_passages_per_s: enc.cpu.median,
          encoder_gpu_passages_per_s: enc.gpu.median,
          encoder_provider: `${cpu.provider.encoder} / ${gpu.provider.encoder}`,
          encoder_passages: cpu.passages,
          encoder_max_abs_difference: Number(maxDiff.toExponential(2)),
        }
      : { encoder: 'not measured (no --minilm)' }),
  },
);
