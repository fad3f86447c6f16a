// Worker-thread entry: computes a clustering plan (people/cluster.ts) for the data it is given.
import { parentPort, workerData } from 'node:worker_threads';
import { planClusters, type ClusterFace, type ClusterPerson } from './cluster.ts';

const { faces, people, form } = workerData as { faces: ClusterFace[]; people: ClusterPerson[]; form: boolean };
parentPort?.postMessage(planClusters(faces, people, { form }));
