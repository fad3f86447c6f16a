// The store: one database connection and the repositories over it, plus the file store.
import path from 'node:path';
import fs from 'node:fs';
import { openDatabase, type DB } from './db.ts';
import { WorkspacesRepo } from './workspaces.repo.ts';
import { KeysRepo } from './keys.repo.ts';
import { AssetsRepo } from './assets.repo.ts';
import { StageRunsRepo } from './stage-runs.repo.ts';
import { FileStore } from './files.ts';
import { MediaRepo } from './media.repo.ts';
import { RegionsRepo } from './regions.repo.ts';
import { SearchRepo } from './search.repo.ts';
import { FacesRepo } from './faces.repo.ts';
import { PeopleRepo } from './people.repo.ts';
import { VectorsRepo } from './vectors.repo.ts';
import { VectorIndex } from './vector-index.ts';
import { LibrariesRepo } from './libraries.repo.ts';
import { MetadataRepo } from './metadata.repo.ts';
import { CollectionsRepo } from './collections.repo.ts';

export interface Store {
  db: DB;
  /** The database file (other threads open it read-only). */
  dbFile: string;
  files: FileStore;
  workspaces: WorkspacesRepo;
  keys: KeysRepo;
  assets: AssetsRepo;
  runs: StageRunsRepo;
  media: MediaRepo;
  regions: RegionsRepo;
  search: SearchRepo;
  faces: FacesRepo;
  people: PeopleRepo;
  vectors: VectorsRepo;
  libraries: LibrariesRepo;
  metadata: MetadataRepo;
  /** Collections, marks (favourites, ratings) and index pauses: the owner's own organising. */
  collections: CollectionsRepo;
  /** The HNSW graphs over `vectors`, one file per model under <data>/vectors. */
  vectorIndex: VectorIndex;
  transaction<T>(fn: () => T): T;
  /** Rows written through this connection since it opened (SQLite's total_changes()): a cheap "has anything changed". */
  changes(): number;
  close(): void;
}

export function openStore(dataDir: string): Store {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const dbFile = path.join(dataDir, 'media-index.sqlite');
  const db = openDatabase(dbFile);
  const vectors = new VectorsRepo(db);
  const vectorIndex = new VectorIndex(path.join(dataDir, 'vectors'), vectors, dbFile);
  return {
    db,
    dbFile,
    libraries: new LibrariesRepo(db),
    metadata: new MetadataRepo(db),
    collections: new CollectionsRepo(db),
    files: new FileStore(dataDir),
    workspaces: new WorkspacesRepo(db),
    keys: new KeysRepo(db),
    assets: new AssetsRepo(db),
    runs: new StageRunsRepo(db),
    media: new MediaRepo(db),
    regions: new RegionsRepo(db),
    search: new SearchRepo(db),
    faces: new FacesRepo(db),
    people: new PeopleRepo(db),
    vectors,
    vectorIndex,
    transaction: <T>(fn: () => T): T => db.transaction(fn)(),
    changes: () => db.prepare('SELECT total_changes()').pluck().get() as number,
    close: () => {
      vectorIndex.save();
      db.close();
    },
  };
}
