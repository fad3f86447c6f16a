// Diarization error rate: the share of the reference's speech time that is missed, falsely found,
// or given to the wrong speaker, under the mapping of found speakers to true ones that fits best,
// measured in 10 ms frames with a forgiveness collar around each reference boundary.

export interface Labelled {
  start_s: number;
  end_s: number;
  speaker: number | string;
}

const FRAME_S = 0.01;

function frames(segments: Labelled[], length: number): Array<string | null> {
  const out = new Array<string | null>(length).fill(null);
  for (const s of segments) for (let f = Math.round(s.start_s / FRAME_S); f < Math.min(length, Math.round(s.end_s / FRAME_S)); f++) out[f] = String(s.speaker);
  return out;
}

/** Every one-to-one mapping of some of `from` into `to`. */
function* mappings(from: string[], to: string[]): Generator<Map<string, string>> {
  if (from.length === 0) {
    yield new Map();
    return;
  }
  const [first, ...rest] = from;
  for (const t of to)
    for (const m of mappings(
      rest,
      to.filter((x) => x !== t),
    ))
      yield new Map([[first, t], ...m]);
  yield* mappings(rest, to);
}

/** DER of `found` against `truth` (a collar of `collarS` either side of each reference boundary is not scored). */
export function diarizationErrorRate(truth: Labelled[], found: Labelled[], collarS = 0.25): number {
  const end = Math.max(...truth.map((s) => s.end_s), ...found.map((s) => s.end_s), 0);
  const n = Math.ceil(end / FRAME_S) + 1;
  const ref = frames(truth, n);
  const hyp = frames(found, n);
  const scored = new Array<boolean>(n).fill(true);
  const collar = Math.round(collarS / FRAME_S);
  for (const s of truth)
    for (const b of [s.start_s, s.end_s])
      for (let f = Math.round(b / FRAME_S) - collar; f < Math.round(b / FRAME_S) + collar; f++) if (f >= 0 && f < n) scored[f] = false;
  const refIds = [...new Set(ref.filter((x): x is string => x !== null))];
  const hypIds = [...new Set(hyp.filter((x): x is string => x !== null))];
  let total = 0;
  let missOrFalse = 0;
  const overlap = new Map<string, number>();
  for (let f = 0; f < n; f++) {
    if (!scored[f]) continue;
    if (ref[f] !== null) total++;
    if ((ref[f] === null) !== (hyp[f] === null)) missOrFalse++;
    if (ref[f] !== null && hyp[f] !== null) overlap.set(`${hyp[f]}\u0000${ref[f]}`, (overlap.get(`${hyp[f]}\u0000${ref[f]}`) ?? 0) + 1);
  }
  let both = 0;
  for (const v of overlap.values()) both += v;
  let bestMatched = 0;
  for (const m of mappings(hypIds.slice(0, 6), refIds)) {
    let matched = 0;
    for (const [h, r] of m) matched += overlap.get(`${h}\u0000${r}`) ?? 0;
    bestMatched = Math.max(bestMatched, matched);
  }
  return total ? (missOrFalse + both - bestMatched) / total : 0;
}
