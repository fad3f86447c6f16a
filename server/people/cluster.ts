// Grouping faces into people: pure and deterministic (the same faces in any order give the same
// plan). Faces carry unit 1024-d embeddings; similarity is the cosine.
//   1. Join: a waiting face joins an existing person on a clear match: similarity to the person's
//      centroid (of good faces) >= JOIN_SIM (JOIN_SIM_WEAK for a face that is not good), at least
//      JOIN_MARGIN above the next person, never a person it was rejected or split from, never a
//      person already holding a face of the same frame.
//   1b. Suggest: a waiting face that does not join but whose best person is at least SUGGEST_SIM
//      alike (and allowed: not rejected, no face of that frame) is proposed to the owner; nothing
//      moves without them.
//   2. Form: the remaining good waiting faces are grouped by average-linkage agglomeration over
//      their nearest neighbours (HNSW), merging two groups only while their average similarity is
//      >= CLUSTER_SIM and no frame would hold two faces of one group; groups of MIN_GROUP or more
//      become new people. Everything else keeps waiting.
import hnswlib from 'hnswlib-node';
import type { PersonCentroid, WaitingFace } from '../store/people.repo.ts';

const { HierarchicalNSW } = hnswlib;

export const JOIN_SIM = 0.68;
export const JOIN_SIM_WEAK = 0.75;
export const JOIN_MARGIN = 0.05;
export const CLUSTER_SIM = 0.62;
/** Below a join, still worth asking the owner about ("Is this Anna?"). */
export const SUGGEST_SIM = 0.5;
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

const byId = <T extends { id: string }>(a: T, b: T) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

export function planClusters(waitingIn: ClusterFace[], peopleIn: ClusterPerson[], opts: { form?: boolean } = {}): ClusterPlan {
  const waiting = [...waitingIn].sort(byId).map((f) => ({ ...f, embedding: unit(f.embedding) }));
  const people = [...peopleIn].sort(byId).filter((p) => p.count > 0);
  const centroids = people.map((p) => unit(p.sum));
  const frames = new Map(people.map((p) => [p.id, new Set(p.frames)]));

  // 1. Joins on a clear match.
  const joins: ClusterPlan['joins'] = [];
  const suggested: ClusterPlan['suggestions'] = [];
  const left: typeof waiting = [];
  for (const f of waiting) {
    let best = -1;
    let bestSim = -Infinity;
    let second = -Infinity;
    const sims = centroids.map((c) => dot(f.embedding, c));
    sims.forEach((s, i) => {
      if (s > bestSim) {
        second = bestSim;
        bestSim = s;
        best = i;
      } else if (s > second) second = s;
    });
    const p = best >= 0 ? people[best] : null;
    const clear = p !== null && bestSim >= (f.good ? JOIN_SIM : JOIN_SIM_WEAK) && bestSim - second >= JOIN_MARGIN;
    if (p && clear && !f.excluded.includes(p.id) && !frames.get(p.id)?.has(f.frame)) {
      joins.push({ face_id: f.id, person_id: p.id, similarity: Math.round(bestSim * 1000) / 1000 });
      frames.get(p.id)?.add(f.frame);
    } else {
      left.push(f);
      // The likeliest person it may be, allowed for it: the owner is asked.
      let pick = -1;
      let pickSim = SUGGEST_SIM;
      people.forEach((q, i) => {
        const s = sims[i];
        if (s >= pickSim && !f.excluded.includes(q.id) && !frames.get(q.id)?.has(f.frame)) {
          pick = i;
          pickSim = s;
        }
      });
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
    good.forEach((f, i) => index.addPoint(Array.from(f.embedding), i));
    const k = Math.min(NEIGHBOURS + 1, n);
    for (let i = 0; i < n; i++) {
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
    if (s < CLUSTER_SIM) break;
    const ra = find(a);
    const rb = find(b);
    if (ra === rb) continue;
    if ([...groupFrames[rb]].some((fr) => groupFrames[ra].has(fr))) continue;
    if (dot(sums[ra], sums[rb]) / (sizes[ra] * sizes[rb]) < CLUSTER_SIM) continue;
    const [keep, drop] = ra < rb ? [ra, rb] : [rb, ra];
    parent[drop] = keep;
    for (let i = 0; i < sums[keep].length; i++) sums[keep][i] += sums[drop][i];
    sizes[keep] += sizes[drop];
    for (const fr of groupFrames[drop]) groupFrames[keep].add(fr);
    for (const ex of groupExcluded[drop]) groupExcluded[keep].add(ex);
  }
  const groups = new Map<number, number[]>();
  good.forEach((_, i) => groups.set(find(i), [...(groups.get(find(i)) ?? []), i]));
  const new_people: ClusterPlan['new_people'] = [];
  for (const [root, members] of groups) {
    if (members.length < MIN_GROUP) continue;
    const cohesion = dot(sums[root], sums[root]) / (sizes[root] * sizes[root]);
    new_people.push({ face_ids: members.map((i) => good[i].id).sort(), cohesion: Math.round(cohesion * 1000) / 1000 });
  }
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
