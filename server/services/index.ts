// The services, wired once: `serve` (through openCore), the CLI and the tests build them here.
// Building them starts nothing: no indexer process, timer, watcher or thread (openCore starts those).
import type { Config } from '../config.ts';
import type { Store } from '../store/index.ts';
import { StageQueue } from '../indexer/queue.ts';
import { LibrarySync } from '../libraries/sync.ts';
import { LibraryAssetsOps } from '../libraries/assets.ts';
import { AnswerWriter } from '../ml/answer-writer.ts';
import { VERSION } from '../version.ts';
import { AuthService } from './auth.service.ts';
import { AssetsService } from './assets.service.ts';
import { IndexOptionsService } from './index-options.service.ts';
import { DoctorService } from './doctor.service.ts';
import { EnginesService } from './engines.service.ts';
import { Purger } from './purge.service.ts';
import { ReadsService } from './reads.service.ts';
import { UrlSigner } from './signing.service.ts';
import { SearchService } from './search.service.ts';
import { PeopleService } from './people.service.ts';
import { AnswersService } from './answers.service.ts';
import { WorkspacesService } from './workspaces.service.ts';
import { ModelPulls } from './model-pulls.service.ts';
import { LibrariesService } from './libraries.service.ts';
import { SpaceWatch } from './space-watch.service.ts';
import { CollectionsService } from './collections.service.ts';

/** What the routes and the CLI call. */
export interface Services {
  config: Config;
  auth: AuthService;
  assets: AssetsService;
  indexOptions: IndexOptionsService;
  engines: EnginesService;
  doctor: DoctorService;
  reads: ReadsService;
  search: SearchService;
  people: PeopleService;
  collections: CollectionsService;
  libraries: LibrariesService;
  answers: AnswersService;
  workspaces: WorkspacesService;
  modelPulls: ModelPulls;
  /** Signs the URLs of stored files (frame_url, thumbnail_url). */
  signer: UrlSigner;
  version: string;
  log: (msg: string) => void;
}

/** The services and the parts behind them that a running service starts and stops. */
export interface ServiceGraph extends Services {
  queue: StageQueue;
  purger: Purger;
  sync: LibrarySync;
  space: SpaceWatch;
  writer: AnswerWriter;
}

export function createServices(store: Store, config: Config, opts: { log?: (msg: string) => void } = {}): ServiceGraph {
  const log = opts.log ?? ((msg: string) => console.error(msg));
  const queue = new StageQueue(store);
  const purger = new Purger(store, log);
  const indexOptions = new IndexOptionsService(store);
  const people = new PeopleService(store, log, config.peopleAutoGroup, (id, stages) => {
    const asset = store.assets.byId(id);
    if (asset && asset.deleted_at === null) queue.rerun(asset, stages);
  });
  const assets = new AssetsService(store, indexOptions, queue, {
    deleted: (workspaceId) => {
      people.refresh(workspaceId);
      purger.kick();
    },
  });
  const space = new SpaceWatch(config.dataDir, assets, { minFreeBytes: config.minFreeBytes, checkMs: config.spaceCheckMs, log });
  const signer = new UrlSigner(config.dataDir);
  const libraryAssets = new LibraryAssetsOps(store, queue, {
    optionsFor: (workspaceId) => indexOptions.effective(workspaceId, {}),
    deleted: (workspaceId) => {
      people.refresh(workspaceId);
      purger.kick();
    },
  });
  const sync = new LibrarySync(store, libraryAssets, {
    roots: config.libraryRoots,
    checkMs: config.libraryCheckMs,
    rescanMs: config.libraryRescanMs,
    settleMs: config.librarySettleMs,
    graceMs: config.libraryGraceMs,
    log,
  });
  const search = new SearchService(store);
  // Writes answers when a language model is installed; its worker starts on the first question.
  const writer = new AnswerWriter(config.dataDir);
  return {
    config,
    auth: new AuthService(store),
    indexOptions,
    engines: new EnginesService(store),
    doctor: new DoctorService(store),
    assets,
    reads: new ReadsService(store, assets, signer),
    search,
    answers: new AnswersService(store, search, assets, writer),
    workspaces: new WorkspacesService(store),
    signer,
    modelPulls: new ModelPulls(
      config.dataDir,
      () => {
        // The model is in place: stages that waited for it run again where they missed it.
        assets.resumeWaitingForModels(config.dataDir);
      },
      log,
    ),
    people,
    collections: new CollectionsService(store),
    libraries: new LibrariesService(store, sync, { roots: config.libraryRoots, dataDir: config.dataDir }),
    version: VERSION,
    log,
    queue,
    purger,
    sync,
    space,
    writer,
  };
}
