// people: newly indexed faces join an existing person of the workspace on a clear match (see
// people/cluster.ts; run: people.run.ts); the others wait for POST /people/recluster, which forms
// new people. Reads the workspace's people and this asset's waiting faces; writes face assignments
// through people/apply.ts, checked against what changed meanwhile.
import type { ClusterFace, ClusterPerson, ClusterPlan } from '../../people/cluster.ts';
import { applyPlan } from '../../people/apply.ts';
import { ALWAYS_AVAILABLE, defineStage } from '../stage.ts';

export interface PeopleInput {
  workspaceId: string | null;
  faces: ClusterFace[];
  people: ClusterPerson[];
}

export interface PeopleOutput {
  workspaceId: string | null;
  plan: ClusterPlan;
}

export const peopleStage = defineStage<PeopleInput, PeopleOutput, 'people'>({
  name: 'people',
  version: 1,
  kinds: ['video', 'image', 'document'],
  dependsOn: ['faces'],
  model: null,
  availability: ALWAYS_AVAILABLE,
  prepare: (store, assetId) => {
    const workspaceId = store.people.workspaceOfAsset(assetId);
    if (!workspaceId) return { workspaceId: null, faces: [], people: [] };
    return { workspaceId, faces: store.people.waitingFaces(workspaceId, assetId), people: store.people.clusterPeople(workspaceId) };
  },
  save(store, _assetId, { workspaceId, plan }) {
    if (workspaceId) applyPlan(store, workspaceId, plan);
  },
});
