// A re-grouping of the workspace's waiting faces: the plan is computed off the thread that answers
// HTTP (plan.worker.ts reads the faces and runs cluster.ts) from what the store holds now, and
// applied by apply.ts in slices, each step checked against what changed meanwhile.
import type { Store } from '../store/index.ts';
import { runInThread } from '../thread.ts';
import { entryModule } from '../paths.ts';
import { PlanStopped, type ClusterPlan } from './cluster.ts';
import { applyPlanInSlices } from './apply.ts';

/** A flag shared with the plans' threads: set to 1, every plan stops at its next step (PlanStopped). */
export const newStopFlag = () => new Int32Array(new SharedArrayBuffer(4));

export async function planRegrouping(store: Store, workspaceId: string, opts: { assetId?: string; form: boolean; stop?: Int32Array }): Promise<ClusterPlan> {
  const answer = await runInThread<ClusterPlan | { stopped: true }>(entryModule('people/plan.worker'), {
    dbFile: store.dbFile,
    workspaceId,
    assetId: opts.assetId,
    form: opts.form,
    stop: opts.stop ?? newStopFlag(),
  });
  if ('stopped' in answer) throw new PlanStopped();
  return answer;
}

export async function regroup(store: Store, workspaceId: string, stop?: Int32Array): Promise<{ joined: number; created: number }> {
  return applyPlanInSlices(store, workspaceId, await planRegrouping(store, workspaceId, { form: true, stop }));
}
