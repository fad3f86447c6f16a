// Worker-thread entry: reads the waiting faces and the people of a workspace from the database
// (its own read-only connection: 40,000 embeddings are never read on the thread that answers HTTP)
// and computes a grouping plan (people/cluster.ts).
import { parentPort, workerData } from 'node:worker_threads';
import { openDatabase } from '../store/db.ts';
import { PeopleRepo } from '../store/people.repo.ts';
import { PlanStopped, planClusters, type ClusterPlan } from './cluster.ts';

// `stop` (shared with the service) turns 1 when the service stops: the plan ends at its next step
// and answers `{stopped: true}`, so that no thread is cut off in the middle of a native call.
const { dbFile, workspaceId, assetId, form, stop } = workerData as { dbFile: string; workspaceId: string; assetId?: string; form: boolean; stop: Int32Array };
const stopped = () => Atomics.load(stop, 0) === 1;
const db = openDatabase(dbFile, { readonly: true });
let answer: ClusterPlan | { stopped: true };
try {
  const repo = new PeopleRepo(db);
  const faces = stopped() ? [] : repo.waitingFaces(workspaceId, assetId);
  answer =
    faces.length === 0 ? { joins: [], new_people: [], suggestions: [], waiting: 0 } : planClusters(faces, repo.clusterPeople(workspaceId), { form, stopped });
  if (stopped()) answer = { stopped: true };
} catch (err) {
  if (!(err instanceof PlanStopped)) throw err;
  answer = { stopped: true };
} finally {
  db.close();
}
parentPort?.postMessage(answer);
