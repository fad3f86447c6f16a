// Grouping faces into people: pure and deterministic (the same faces in any order give the same
// plan). Faces carry unit 1024-d embeddings; similarity is the cosine. The thresholds are measured
// (see Thresholds below).
//   1. Join: a waiting face joins an existing person on a clear match: similarity to the person's
//      centroid (of good faces) at least `join` (`join_weak` for a face that is not good), at least
//      JOIN_MARGIN above the next person, never a person it was rejected or split from, never a
//      person already holding a face of the same frame.
//   1b. Suggest: a waiting face that does not join but whose best person is at least `suggest`
//      alike (and allowed: not rejected, no face of that frame) is proposed to the owner; nothing
//      moves without them.
//   2. Form: the remaining good waiting faces are grouped by average-linkage agglomeration over
//      their nearest neighbours (HNSW), merging two groups only while their average similarity is
//      at least `cluster` and no frame would hold two faces of one group; groups of MIN_GROUP or
//      more become new people.
//   3. A face still waiting joins a group formed in step 2 by the rule of step 1. Everything else
//      keeps waiting.
import hnswlib from 'hnswlib-node';
import type { PersonCentroid, WaitingFace } from '../store/people.repo.ts';
import measured from './thresholds.json' with { type: 'json' };

const { HierarchicalNSW } = hnswlib;

/**
 * The similarity thresholds, taken from measured distributions: `npm run bench -- faces` derives them
 * from the same-person and different-person similarities of the recognizer on its tuning half of the
 * corpus faces (upright and degraded copies) and writes thresholds.json, which says how each was
 * chosen; the other half is held out to report on.
 */
export interface Thresholds {
  /** A good face joins a person at this similarity to the centroid (0.1 % false matches). */
  join: number;
  /** A face that is not good joins only at this (above every different-person pair measured). */
  join_weak: number;
  /** Groups merge while their average similarity is at least this (1 % false matches). */
  cluster: number;
  /** Below a join, still worth asking the owner about ("Is this Anna?"; 10 % false matches). */
  suggest: number;
}
export const THRESHOLDS: Thresholds = {
  join: measured.join,
  join_weak: measured.join_weak,
  cluster: measured.cluster,
  suggest: measured.suggest,
};
/** A join must be this much more alike than the next person (a rule, not a measured figure). */
export const JOIN_MARGIN = 0.05;
/** At most this many suggestions in a plan, the likeliest first. */
export const MAX_SUGGESTIONS = 200;
export const MIN_GROUP = 3;
const NEIGHBOURS = 15;

/** A waiting face and a person, as the store gives them. */
export type ClusterFace = WaitingFace;
export type ClusterPerson = PersonCentroid;

export interface ClusterPlan {
  joins: Array<{ face_id: string; person_id: string; similarity: number }>;
  new_people: Array<{ face_ids: string[]; cohesion: number }>;
  /** Waiting faces that probably are an existing person, for the owner to confirm (never applied). */
  suggestions: Array<{ face_id: string; person_id: string; similarity: number }>;
  waiting: number;
}

export function unit(v: Float32Array): Float32Array {
  let n = 0;
  for (const x of v) n += x * x;
  n = Math.sqrt(n) || 1;
  return v.map((x) => x / n);
}

function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

/**
 * Up to this many people, a face is compared with every one; beyond, with the PEOPLE_CANDIDATES
 * nearest an HNSW index over the centroids finds (their similarities exact), the others counting as
 * unlike: 20,000 faces against 2,000 people is 40 G multiply-adds compared exhaustively.
 */
const EXACT_PEOPLE = 256;
const PEOPLE_CANDIDATES = 16;

/** The nearest people to a face, with their exact similarities (index, similarity). */
function nearestPeople(centroids: Float32Array[]): (face: Float32Array) => Array<readonly [number, number]> {
  const index = new HierarchicalNSW('ip', centroids[0].length);
  index.initIndex(centroids.length, 16, 200, 42);
  index.setEf(100);
  centroids.forEach((c, i) => index.addPoint(Array.from(c), i));
  return (face) =>
    index
      .searchKnn(Array.from(face), PEOPLE_CANDIDATES)
      .neighbors.sort((a, b) => a - b)
      .map((i) => [i, dot(face, centroids[i])] as const);
}

const byId = <T extends { id: string }>(a: T, b: T) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** Thrown when the caller asked a plan to stop (the service is stopping). */
export class PlanStopped extends Error {
  constructor() {
    super('the grouping plan was stopped');
  }
}

export function planClusters(
  waitingIn: ClusterFace[],
  peopleIn: ClusterPerson[],
  opts: { form?: boolean; thresholds?: Thresholds; stopped?: () => boolean } = {},
): ClusterPlan {
  const check = () => {
    if (opts.stopped?.()) throw new PlanStopped();
  };
  const t = opts.thresholds ?? THRESHOLDS;
  const waiting = [...waitingIn].sort(byId).map((f) => ({ ...f, embedding: unit(f.embedding) }));
  const people = [...peopleIn].sort(byId).filter((p) => p.count > 0);
  const centroids = people.map((p) => unit(p.sum));
  const frames = new Map(people.map((p) => [p.id, new Set(p.frames)]));

  const nearest = people.length > EXACT_PEOPLE ? nearestPeople(centroids) : null;

  // 1. Joins on a clear match.
  const joins: ClusterPlan['joins'] = [];
  const suggested: ClusterPlan['suggestions'] = [];
  const left: typeof waiting = [];
  for (const f of waiting) {
    check();
    let best = -1;
    let bestSim = -Infinity;
    let second = -Infinity;
    // Exact similarities to every person, or (many people) to the nearest ones the index finds.
    const cands = nearest ? nearest(f.embedding) : centroids.map((c, i) => [i, dot(f.embedding, c)] as const);
    for (const [i, s] of cands) {
      if (s > bestSim) {
        second = bestSim;
        bestSim = s;
        best = i;
      } else if (s > second) second = s;
    }
    const p = best >= 0 ? people[best] : null;
    const clear = p !== null && bestSim >= (f.good ? t.join : t.join_weak) && bestSim - second >= JOIN_MARGIN;
    if (p && clear && !f.excluded.includes(p.id) && !frames.get(p.id)?.has(f.frame)) {
      joins.push({ face_id: f.id, person_id: p.id, similarity: Math.round(bestSim * 1000) / 1000 });
      frames.get(p.id)?.add(f.frame);
    } else {
      left.push(f);
      // The likeliest person it may be, allowed for it: the owner is asked.
      let pick = -1;
      let pickSim = t.suggest;
      for (const [i, s] of cands) {
        if (s >= pickSim && !f.excluded.includes(people[i].id) && !frames.get(people[i].id)?.has(f.frame)) {
          pick = i;
          pickSim = s;
        }
      }
      if (pick >= 0) suggested.push({ face_id: f.id, person_id: people[pick].id, similarity: Math.round(pickSim * 1000) / 1000 });
    }
  }

  // 2. New groups from good faces.
  const good = opts.form === false ? [] : left.filter((f) => f.good);
  const n = good.length;
  const edges: Array<[number, number, number]> = [];
  if (n >= MIN_GROUP) {
    const dim = good[0].embedding.length;
    const index = new HierarchicalNSW('ip', dim);
    index.initIndex(n, 16, 200, 42);
    index.setEf(Math.max(50, NEIGHBOURS * 2));
    good.forEach((f, i) => {
      check();
      index.addPoint(Array.from(f.embedding), i);
    });
    const k = Math.min(NEIGHBOURS + 1, n);
    for (let i = 0; i < n; i++) {
      check();
      const r = index.searchKnn(Array.from(good[i].embedding), k);
      for (const j of r.neighbors) if (j > i) edges.push([i, j, dot(good[i].embedding, good[j].embedding)]);
      for (const j of r.neighbors) if (j < i) edges.push([j, i, dot(good[i].embedding, good[j].embedding)]);
    }
  }
  edges.sort((a, b) => b[2] - a[2] || a[0] - b[0] || a[1] - b[1]);
  const parent = good.map((_, i) => i);
  const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i])));
  const sums = good.map((f) => Float32Array.from(f.embedding));
  const sizes = good.map(() => 1);
  const groupFrames = good.map((f) => new Set([f.frame]));
  const groupExcluded = good.map((f) => new Set(f.excluded));
  for (const [a, b, s] of edges) {
    if (s < t.cluster) break;
    const ra = find(a);
    const rb = find(b);
    if (ra === rb) continue;
    if ([...groupFrames[rb]].some((fr) => groupFrames[ra].has(fr))) continue;
    if (dot(sums[ra], sums[rb]) / (sizes[ra] * sizes[rb]) < t.cluster) continue;
    const [keep, drop] = ra < rb ? [ra, rb] : [rb, ra];
    parent[drop] = keep;
    for (let i = 0; i < sums[keep].length; i++) sums[keep][i] += sums[drop][i];
    sizes[keep] += sizes[drop];
    for (const fr of groupFrames[drop]) groupFrames[keep].add(fr);
    for (const ex of groupExcluded[drop]) groupExcluded[keep].add(ex);
  }
  const groups = new Map<number, number[]>();
  good.forEach((_, i) => groups.set(find(i), [...(groups.get(find(i)) ?? []), i]));
  const formed: Array<{ face_ids: string[]; cohesion: number; centroid: Float32Array; frames: Set<string> }> = [];
  for (const [root, members] of groups) {
    if (members.length < MIN_GROUP) continue;
    const cohesion = dot(sums[root], sums[root]) / (sizes[root] * sizes[root]);
    const face_ids = members.map((i) => good[i].id);
    formed.push({ face_ids, cohesion: Math.round(cohesion * 1000) / 1000, centroid: unit(sums[root]), frames: groupFrames[root] });
  }

  // 3. What is still waiting joins a group formed just now by the rule of step 1 (a clear match,
  //    measured against the existing people too; no second face of a frame), as it would join that
  //    person at the next look: small and blurred faces find the people their good faces formed.
  const formedIds = new Set(formed.flatMap((g) => g.face_ids));
  for (const f of left) {
    if (formedIds.has(f.id) || formed.length === 0) continue;
    check();
    const toPeople = nearest ? nearest(f.embedding).map(([, sim]) => sim) : centroids.map((c) => dot(f.embedding, c));
    const toFormed = formed.map((g) => dot(f.embedding, g.centroid));
    const all = [...toPeople, ...toFormed].sort((a, b) => b - a);
    const bestSim = Math.max(...toFormed);
    const g = formed[toFormed.indexOf(bestSim)];
    const clear = bestSim === all[0] && bestSim >= (f.good ? t.join : t.join_weak) && bestSim - (all[1] ?? -Infinity) >= JOIN_MARGIN;
    if (clear && !g.frames.has(f.frame)) {
      g.face_ids.push(f.id);
      g.frames.add(f.frame);
      formedIds.add(f.id);
    }
  }
  const new_people: ClusterPlan['new_people'] = formed.map((g) => ({ face_ids: g.face_ids.sort(), cohesion: g.cohesion }));
  new_people.sort((a, b) => (a.face_ids[0] < b.face_ids[0] ? -1 : 1));
  const grouped = new_people.reduce((c, g) => c + g.face_ids.length, 0);
  // A face grouped into a new person is not asked about.
  const inGroups = new Set(new_people.flatMap((g) => g.face_ids));
  const suggestions = suggested
    .filter((s) => !inGroups.has(s.face_id))
    .sort((a, b) => b.similarity - a.similarity || (a.face_id < b.face_id ? -1 : 1))
    .slice(0, MAX_SUGGESTIONS);
  return { joins, new_people, suggestions, waiting: left.length - grouped };
}
