// A re-grouping of the workspace's waiting faces: the plan is computed off the thread that answers
// HTTP (plan.worker.ts runs cluster.ts) from what the store holds now, and applied by apply.ts,
// which checks each step against what changed meanwhile.
import type { Store } from '../store/index.ts';
import { runInThread } from '../thread.ts';
import { entryModule } from '../paths.ts';
import type { ClusterPlan } from './cluster.ts';
import { applyPlan } from './apply.ts';

export async function planRegrouping(store: Store, workspaceId: string, opts: { assetId?: string; form: boolean }): Promise<ClusterPlan> {
  const faces = store.people.waitingFaces(workspaceId, opts.assetId);
  const people = store.people.clusterPeople(workspaceId);
  if (faces.length === 0) return { joins: [], new_people: [], suggestions: [], waiting: 0 };
  return runInThread<ClusterPlan>(entryModule('people/plan.worker'), { faces, people, form: opts.form });
}

export async function regroup(store: Store, workspaceId: string): Promise<{ joined: number; created: number }> {
  return applyPlan(store, workspaceId, await planRegrouping(store, workspaceId, { form: true }));
}
