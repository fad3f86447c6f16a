// Worker-thread entry: reads the waiting faces and the people of a workspace from the database
// (its own read-only connection: 40,000 embeddings are never read on the thread that answers HTTP)
// and computes a grouping plan (people/cluster.ts).
import { parentPort, workerData } from 'node:worker_threads';
import { openDatabase } from '../store/db.ts';
import { PeopleRepo } from '../store/people.repo.ts';
import { planClusters, type ClusterPlan } from './cluster.ts';

const { dbFile, workspaceId, assetId, form } = workerData as { dbFile: string; workspaceId: string; assetId?: string; form: boolean };
const db = openDatabase(dbFile, { readonly: true });
let plan: ClusterPlan;
try {
  const repo = new PeopleRepo(db);
  const faces = repo.waitingFaces(workspaceId, assetId);
  plan = faces.length === 0 ? { joins: [], new_people: [], suggestions: [], waiting: 0 } : planClusters(faces, repo.clusterPeople(workspaceId), { form });
} finally {
  db.close();
}
parentPort?.postMessage(plan);
