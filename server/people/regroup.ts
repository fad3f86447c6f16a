// A re-grouping of the workspace's waiting faces: the plan is computed off the thread that answers
// HTTP (plan.worker.ts reads the faces and runs cluster.ts) from what the store holds now, and
// applied by apply.ts in slices, each step checked against what changed meanwhile.
import type { Store } from '../store/index.ts';
import { runInThread } from '../thread.ts';
import { entryModule } from '../paths.ts';
import type { ClusterPlan } from './cluster.ts';
import { applyPlanInSlices } from './apply.ts';

export async function planRegrouping(store: Store, workspaceId: string, opts: { assetId?: string; form: boolean }): Promise<ClusterPlan> {
  return runInThread<ClusterPlan>(entryModule('people/plan.worker'), { dbFile: store.dbFile, workspaceId, assetId: opts.assetId, form: opts.form });
}

export async function regroup(store: Store, workspaceId: string): Promise<{ joined: number; created: number }> {
  return applyPlanInSlices(store, workspaceId, await planRegrouping(store, workspaceId, { form: true }));
}
