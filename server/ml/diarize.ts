// Diarization from speaker embeddings: windows of speech are embedded, grouped by agglomerative
// clustering (average linkage over cosine similarity), and consecutive windows of one speaker
// become turns. Pure functions; the embedding model is in speaker-embeddings.ts.

/** Windows of speech: 1.5 s long, every 0.75 s, inside each speech segment (shorter segments whole). */
export const WINDOW_S = 1.5;
export const HOP_S = 0.75;
/** Two groups whose mean similarity is at least this are one speaker (unless min/max say otherwise). */
export const SAME_SPEAKER = 0.5;

/**
 * How each embedding model's vectors are grouped: `sameSpeaker`, the mean similarity at which two
 * groups are one speaker; `minorShare`, below which share of the windows a group is taken for stray
 * windows of the others and joins the nearest larger group (when the number of speakers is left to
 * the clustering). GE2E's vectors are all positive, so unlike speakers still score about 0.5–0.6:
 * its values were chosen on mixtures of four voices not used in any test (docs/performance.md).
 */
export const SPEAKER_GROUPING: Record<string, { sameSpeaker: number; minorShare: number }> = {
  'ge2e-resemblyzer': { sameSpeaker: 0.66, minorShare: 0.1 },
};
const DEFAULT_GROUPING = { sameSpeaker: SAME_SPEAKER, minorShare: 0 };

/** The grouping settings for a model's vectors. */
export function groupingOf(model: string): { sameSpeaker: number; minorShare: number } {
  return SPEAKER_GROUPING[model] ?? DEFAULT_GROUPING;
}

export interface Span {
  start_s: number;
  end_s: number;
}

export function speechWindows(speech: Span[]): Span[] {
  const out: Span[] = [];
  for (const s of speech) {
    const length = s.end_s - s.start_s;
    if (length < 0.4) continue;
    if (length <= WINDOW_S) {
      out.push({ start_s: s.start_s, end_s: s.end_s });
      continue;
    }
    for (let t = s.start_s; t + WINDOW_S <= s.end_s + 1e-6; t += HOP_S) out.push({ start_s: t, end_s: t + WINDOW_S });
    const last = out[out.length - 1];
    if (last.end_s < s.end_s - 0.2) out.push({ start_s: s.end_s - WINDOW_S, end_s: s.end_s });
  }
  return out;
}

function dot(a: Float32Array, b: Float32Array): number {
  let d = 0;
  for (let i = 0; i < a.length; i++) d += a[i] * b[i];
  return d;
}

/** At most this many windows are clustered; the others join the group whose centre they are nearest. */
export const MAX_CLUSTERED = 400;

/**
 * Groups unit vectors: each starts alone; the two most similar groups (mean pairwise cosine) merge
 * while there are more than `max`, or more than `min` and they are at least `threshold` alike.
 * Above MAX_CLUSTERED vectors (about 5 minutes of speech), an evenly spread sample is clustered and
 * every vector joins the group with the nearest centre. Returns a group number per vector, numbered
 * by first appearance.
 */
export function clusterSpeakers(vectors: Float32Array[], opts: { min?: number; max?: number; threshold?: number } = {}): number[] {
  const n = vectors.length;
  if (n === 0) return [];
  if (n > MAX_CLUSTERED) {
    const sample = Array.from({ length: MAX_CLUSTERED }, (_, i) => vectors[Math.floor((i * n) / MAX_CLUSTERED)]);
    const sampleLabels = clusterSpeakers(sample, opts);
    const groups = Math.max(...sampleLabels) + 1;
    const centres = Array.from({ length: groups }, () => new Float64Array(vectors[0].length));
    sample.forEach((v, i) => v.forEach((x, d) => (centres[sampleLabels[i]][d] += x)));
    const norms = centres.map((c) => Math.hypot(...c) || 1);
    const nearest = vectors.map((v) => {
      let best = 0;
      let bestDot = -Infinity;
      centres.forEach((c, g) => {
        let d = 0;
        for (let k = 0; k < v.length; k++) d += v[k] * c[k];
        if (d / norms[g] > bestDot) [best, bestDot] = [g, d / norms[g]];
      });
      return best;
    });
    return renumber(nearest);
  }
  const min = Math.max(1, opts.min ?? 1);
  const max = Math.max(min, opts.max ?? n);
  const threshold = opts.threshold ?? SAME_SPEAKER;
  // link[a·n + b]: the sum of pairwise similarities between groups a and b (average linkage, by
  // Lance–Williams: merging b into a adds b's sums to a's).
  const link = new Float64Array(n * n);
  for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) link[i * n + j] = link[j * n + i] = dot(vectors[i], vectors[j]);
  const size = new Array<number>(n).fill(1);
  const alive = new Set(vectors.map((_, i) => i));
  const owner = vectors.map((_, i) => i);
  while (alive.size > min) {
    let best: [number, number, number] | null = null;
    const ids = [...alive];
    for (let x = 0; x < ids.length; x++) {
      for (let y = x + 1; y < ids.length; y++) {
        const [a, b] = [ids[x], ids[y]];
        const mean = link[a * n + b] / (size[a] * size[b]);
        if (!best || mean > best[2]) best = [a, b, mean];
      }
    }
    if (!best || (alive.size <= max && best[2] < threshold)) break;
    const [a, b] = best;
    for (const c of alive) {
      if (c === a || c === b) continue;
      link[a * n + c] = link[c * n + a] = link[a * n + c] + link[b * n + c];
    }
    size[a] += size[b];
    alive.delete(b);
    for (let i = 0; i < n; i++) if (owner[i] === b) owner[i] = a;
  }
  return renumber(owner);
}

/**
 * Groups holding fewer than `share` of the windows (and at least `keep` groups kept: the largest)
 * join the larger group whose centre is nearest; numbered again by first appearance.
 */
export function absorbMinor(vectors: Float32Array[], labels: number[], share: number, keep = 1): number[] {
  if (share <= 0 || labels.length === 0) return labels;
  const counts = new Map<number, number>();
  for (const l of labels) counts.set(l, (counts.get(l) ?? 0) + 1);
  const bySize = [...counts].sort((a, b) => b[1] - a[1]);
  const major = bySize.filter(([, n], i) => i < keep || n >= share * labels.length).map(([l]) => l);
  if (major.length === counts.size) return labels;
  const centres = new Map<number, Float64Array>();
  for (const l of major) {
    const c = new Float64Array(vectors[0].length);
    labels.forEach((x, i) => x === l && vectors[i].forEach((v, d) => (c[d] += v)));
    const n = Math.hypot(...c) || 1;
    centres.set(
      l,
      c.map((v) => v / n),
    );
  }
  return renumber(
    labels.map((l, i) => {
      if (centres.has(l)) return l;
      let best = major[0];
      let bestDot = -Infinity;
      for (const [m, c] of centres) {
        let d = 0;
        for (let k = 0; k < c.length; k++) d += vectors[i][k] * c[k];
        if (d > bestDot) [best, bestDot] = [m, d];
      }
      return best;
    }),
  );
}

/** Group ids renumbered 0, 1, 2… in order of first appearance. */
function renumber(ids: number[]): number[] {
  const seen = new Map<number, number>();
  return ids.map((g) => {
    if (!seen.has(g)) seen.set(g, seen.size);
    return seen.get(g) as number;
  });
}

export interface Turn extends Span {
  speaker: number;
}

/** Turns from labelled windows: a change of speaker falls halfway between the two windows' centres. */
export function turnsOf(windows: Span[], labels: number[], speech: Span[]): Turn[] {
  const turns: Turn[] = [];
  for (const s of speech) {
    const inside = windows.map((w, i) => ({ w, label: labels[i] })).filter(({ w }) => w.start_s >= s.start_s - 1e-6 && w.end_s <= s.end_s + 1e-6);
    if (inside.length === 0) continue;
    let current: Turn = { speaker: inside[0].label, start_s: s.start_s, end_s: s.end_s };
    for (let i = 1; i < inside.length; i++) {
      if (inside[i].label === current.speaker) continue;
      const boundary = ((inside[i - 1].w.start_s + inside[i - 1].w.end_s) / 2 + (inside[i].w.start_s + inside[i].w.end_s) / 2) / 2;
      turns.push({ ...current, end_s: boundary });
      current = { speaker: inside[i].label, start_s: boundary, end_s: s.end_s };
    }
    turns.push(current);
  }
  return turns.map((t) => ({ ...t, start_s: Math.round(t.start_s * 100) / 100, end_s: Math.round(t.end_s * 100) / 100 }));
}

/** The speaker who talks longest within each segment, or null where no turn overlaps it. */
export function speakerOf(segments: Span[], turns: Turn[]): Array<number | null> {
  return segments.map((seg) => {
    const time = new Map<number, number>();
    for (const t of turns) {
      const overlap = Math.min(seg.end_s, t.end_s) - Math.max(seg.start_s, t.start_s);
      if (overlap > 0) time.set(t.speaker, (time.get(t.speaker) ?? 0) + overlap);
    }
    let best: number | null = null;
    for (const [s, v] of time) if (best === null || v > (time.get(best) as number)) best = s;
    return best;
  });
}
