// Worker-thread entry: builds a model's vector index from the rows of the database (with every
// core) and writes it beside the others; the service then maps it from disk.
import { parentPort, workerData } from 'node:worker_threads';
import { openDatabase } from './db.ts';
import { VectorsRepo } from './vectors.repo.ts';
import { buildIndexFile } from './vector-index.ts';

const { dbFile, dir, model } = workerData as { dbFile: string; dir: string; model: string };
try {
  const db = openDatabase(dbFile, { readonly: true });
  try {
    buildIndexFile(dir, model, new VectorsRepo(db));
  } finally {
    db.close();
  }
  parentPort?.postMessage({ ok: true });
} catch (e) {
  parentPort?.postMessage({ ok: false, error: (e as Error).message });
}
