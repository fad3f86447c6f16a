// people: newly indexed faces join an existing person of the workspace on a clear match (see
// people/cluster.ts); the others wait for POST /people/recluster, which forms new people.
// Reads the workspace's people and this asset's waiting faces; writes face assignments.
import { planClusters, type ClusterFace, type ClusterPerson, type ClusterPlan } from '../../people/cluster.ts';
import { applyPlan } from '../../people/apply.ts';
import { ALWAYS_AVAILABLE, ok, type StageDefinition } from '../stage.ts';

interface PeopleInput {
  workspaceId: string | null;
  faces: ClusterFace[];
  people: ClusterPerson[];
}

export const peopleStage: StageDefinition = {
  name: 'people',
  version: 1,
  kinds: ['video', 'image', 'document'],
  dependsOn: ['faces'],
  model: null,
  availability: ALWAYS_AVAILABLE,
  prepare: (store, assetId): PeopleInput => {
    const workspaceId = store.people.workspaceOfAsset(assetId);
    if (!workspaceId) return { workspaceId: null, faces: [], people: [] };
    return { workspaceId, faces: store.people.waitingFaces(workspaceId, assetId), people: store.people.clusterPeople(workspaceId) };
  },
  async run({ input }) {
    const { workspaceId, faces, people } = input as PeopleInput;
    const plan = planClusters(faces, people, { form: false });
    return ok({ faces: faces.length, joined: plan.joins.length, waiting: faces.length - plan.joins.length, people: people.length }, { workspaceId, plan });
  },
  save(store, _assetId, output) {
    const { workspaceId, plan } = output as { workspaceId: string | null; plan: ClusterPlan };
    if (workspaceId) applyPlan(store, workspaceId, plan);
  },
};
