// Writes a grouping plan, checking each step against what changed since it was computed (a face
// taken or ignored meanwhile, a person merged, a new exclusion). Used by the people stage (one
// asset's joins, inside the stage's transaction) and by re-grouping (a whole workspace, in slices
// of about a hundred faces, each its own transaction, so the thread that answers HTTP is never held
// for long; each slice checks its steps against what the ones before it left).
import type { Store } from '../store/index.ts';
import { clock, newId } from '../store/ids.ts';
import { MIN_GROUP, type ClusterPlan } from './cluster.ts';

type Step = { join: ClusterPlan['joins'][number] } | { group: ClusterPlan['new_people'][number] };

/** Faces written per transaction when a plan is applied in slices. */
const SLICE_FACES = 100;

function applyStep(store: Store, workspaceId: string, step: Step, now: number): 'joined' | 'created' | null {
  if ('join' in step) {
    const j = step.join;
    const f = store.people.waitingState(j.face_id, workspaceId);
    const person = store.people.get(j.person_id);
    if (!f || !person || person.merged_into || person.workspace_id !== workspaceId || f.excluded.includes(person.id)) return null;
    store.people.assign(j.face_id, person.id, 'match', now);
    return 'joined';
  }
  const faces = step.group.face_ids.filter((id) => store.people.waitingState(id, workspaceId));
  // At least MIN_GROUP good faces make a person (the plan may add faces that are not good).
  if (faces.filter((id) => store.people.waitingState(id, workspaceId)?.good).length < MIN_GROUP) return null;
  const id = newId('per');
  store.people.insert({ id, workspace_id: workspaceId, name: '', hidden: 0, cover_face_id: null, merged_into: null, created_at: now, updated_at: now });
  for (const faceId of faces) store.people.assign(faceId, id, 'cluster', now);
  return 'created';
}

const stepsOf = (plan: ClusterPlan): Step[] => [...plan.joins.map((join) => ({ join })), ...plan.new_people.map((group) => ({ group }))];

function count(results: Array<'joined' | 'created' | null>): { joined: number; created: number } {
  return { joined: results.filter((r) => r === 'joined').length, created: results.filter((r) => r === 'created').length };
}

/** The whole plan in one transaction (the people stage: one asset's faces). */
export function applyPlan(store: Store, workspaceId: string, plan: ClusterPlan): { joined: number; created: number } {
  const now = clock.now();
  return count(store.transaction(() => stepsOf(plan).map((step) => applyStep(store, workspaceId, step, now))));
}

/** The plan in slices of about SLICE_FACES faces, one transaction each, yielding between them. */
export async function applyPlanInSlices(store: Store, workspaceId: string, plan: ClusterPlan): Promise<{ joined: number; created: number }> {
  const results: Array<'joined' | 'created' | null> = [];
  const steps = stepsOf(plan);
  for (let i = 0; i < steps.length;) {
    const slice: Step[] = [];
    for (let faces = 0; i < steps.length && faces < SLICE_FACES; i++) {
      slice.push(steps[i]);
      faces += 'join' in steps[i] ? 1 : (steps[i] as { group: { face_ids: string[] } }).group.face_ids.length;
    }
    const now = clock.now();
    results.push(...store.transaction(() => slice.map((step) => applyStep(store, workspaceId, step, now))));
    await new Promise((r) => setImmediate(r));
  }
  return count(results);
}
