// Writes a grouping plan, checking each step against what changed since it was computed (a face
// taken meanwhile, a person merged, a new exclusion). Used by recluster and by the people stage.
import type { Store } from '../store/index.ts';
import { clock, newId } from '../store/ids.ts';
import { MIN_GROUP, type ClusterPlan } from './cluster.ts';

export function applyPlan(store: Store, workspaceId: string, plan: ClusterPlan): { joined: number; created: number } {
  const now = clock.now();
  let joined = 0;
  let created = 0;
  store.transaction(() => {
    const waiting = new Map(store.people.waitingFaces(workspaceId).map((f) => [f.id, f]));
    for (const j of plan.joins) {
      const f = waiting.get(j.face_id);
      const person = store.people.get(j.person_id);
      if (!f || !person || person.merged_into || person.workspace_id !== workspaceId || f.excluded.includes(person.id)) continue;
      store.people.assign(f.id, person.id, 'match', now);
      waiting.delete(f.id);
      joined++;
    }
    for (const g of plan.new_people) {
      const faces = g.face_ids.filter((id) => waiting.has(id));
      // At least MIN_GROUP good faces make a person (the plan may add faces that are not good).
      if (faces.filter((id) => waiting.get(id)?.good).length < MIN_GROUP) continue;
      const id = newId('per');
      store.people.insert({ id, workspace_id: workspaceId, name: '', hidden: 0, cover_face_id: null, merged_into: null, created_at: now, updated_at: now });
      for (const faceId of faces) {
        store.people.assign(faceId, id, 'cluster', now);
        waiting.delete(faceId);
      }
      created++;
    }
  });
  return { joined, created };
}
