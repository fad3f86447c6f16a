// people: newly indexed faces join an existing person of the workspace on a clear match (see
// people/cluster.ts; run: people.run.ts); the others wait for POST /people/recluster, which forms
// new people. Reads the workspace's people and this asset's waiting faces; writes face assignments
// through people/apply.ts, checked against what changed meanwhile. Faces another tool named in the
// photo's XMP (read by the metadata stage) go to the person of that name first, as the owner's
// decision (people/named-regions.ts).
import type { ClusterFace, ClusterPerson, ClusterPlan } from '../../people/cluster.ts';
import { applyPlan } from '../../people/apply.ts';
import { applyNamedFaces, matchNamedRegions, type NamedFace } from '../../people/named-regions.ts';
import { ALWAYS_AVAILABLE, defineStage } from '../stage.ts';

export interface PeopleInput {
  workspaceId: string | null;
  faces: ClusterFace[];
  people: ClusterPerson[];
  /** Faces named in the file's XMP. */
  named: NamedFace[];
}

export interface PeopleOutput {
  workspaceId: string | null;
  plan: ClusterPlan;
  named: NamedFace[];
}

export const peopleStage = defineStage<PeopleInput, PeopleOutput, 'people'>({
  name: 'people',
  version: 1,
  kinds: ['video', 'image', 'document'],
  picturesOnly: true,
  dependsOn: ['faces', 'metadata'],
  requires: ['faces'],
  model: null,
  availability: ALWAYS_AVAILABLE,
  prepare: (store, assetId) => {
    const workspaceId = store.people.workspaceOfAsset(assetId);
    if (!workspaceId) return { workspaceId: null, faces: [], people: [], named: [] };
    const faceBoxes = store.regions
      .all(assetId)
      .filter((r) => r.kind === 'face')
      .map((r) => ({ id: r.id, box: { x: r.x, y: r.y, w: r.w, h: r.h } }));
    const named = matchNamedRegions(store.metadata.namedRegions(assetId), faceBoxes);
    const namedIds = new Set(named.map((n) => n.face_id));
    return {
      workspaceId,
      faces: store.people.waitingFaces(workspaceId, assetId).filter((f) => !namedIds.has(f.id)),
      people: store.people.clusterPeople(workspaceId),
      named,
    };
  },
  save(store, _assetId, { workspaceId, plan, named }) {
    if (!workspaceId) return;
    applyNamedFaces(store, workspaceId, named);
    applyPlan(store, workspaceId, plan);
  },
});
