// Starts the local service: store, indexer host, purger and the HTTP API on loopback.
import http from 'node:http';
import { warmSearch } from './search/warm.ts';
import type { AddressInfo } from 'node:net';
import type { Config } from './config.ts';
import { openStore, type Store } from './store/index.ts';
import { lockDataFolder } from './store/lock.ts';
import { writeServiceFile } from './store/service-file.ts';
import { IndexerHost } from './indexer/host.ts';
import { StageQueue } from './indexer/queue.ts';
import { forkLauncher } from './indexer/launcher.ts';
import type { WorkerLauncher } from './indexer/protocol.ts';
import { AuthService } from './services/auth.service.ts';
import { AssetsService } from './services/assets.service.ts';
import { IndexOptionsService } from './services/index-options.service.ts';
import { EnginesService } from './services/engines.service.ts';
import { Purger } from './services/purge.service.ts';
import { ReadsService } from './services/reads.service.ts';
import { UrlSigner } from './services/signing.service.ts';
import { SearchService } from './services/search.service.ts';
import { PeopleService } from './services/people.service.ts';
import { AnswersService } from './services/answers.service.ts';
import { AnswerWriter } from './ml/answer-writer.ts';
import { WorkspacesService } from './services/workspaces.service.ts';
import { ModelPulls } from './services/model-pulls.service.ts';
import { createApp } from './api/app.ts';
import { LibrarySync } from './libraries/sync.ts';
import { LibrariesService } from './services/libraries.service.ts';
import { SpaceWatch } from './services/space-watch.service.ts';
import type { Services } from './api/services.ts';
import { VERSION } from './version.ts';

export interface Core {
  store: Store;
  host: IndexerHost;
  purger: Purger;
  services: Services;
  sync: LibrarySync;
  close(): Promise<void>;
}

/** The service without HTTP: what `serve` and the CLI `index` both run on. Takes the folder lock. */
export async function openCore(config: Config, opts: { launch?: WorkerLauncher; log?: (msg: string) => void; lockInfo?: string } = {}): Promise<Core> {
  const log = opts.log ?? ((msg: string) => console.error(msg));
  const store = openStore(config.dataDir);
  let release: () => void;
  try {
    release = lockDataFolder(config.dataDir, opts.lockInfo ?? 'media-index');
  } catch (err) {
    store.close();
    throw err;
  }
  await store.files.sweep(store.assets.allIds());
  const queue = new StageQueue(store);
  const host = new IndexerHost(store, { workers: config.workers, launch: opts.launch ?? forkLauncher, stageTimeoutMs: config.stageTimeoutMs, log }, queue);
  const purger = new Purger(store, log);
  host.on('run-finished', () => purger.kick());
  const indexOptions = new IndexOptionsService(store);
  const people = new PeopleService(store, log);
  const assets = new AssetsService(store, indexOptions, queue, {
    deleted: (workspaceId) => {
      people.refresh(workspaceId);
      purger.kick();
    },
  });
  const space = new SpaceWatch(config.dataDir, assets, { minFreeBytes: config.minFreeBytes, checkMs: config.spaceCheckMs, log });
  host.on('run-finished', (e) => {
    if (e.code === 'no_space') space.arm();
  });
  const signer = new UrlSigner(config.dataDir);
  const reads = new ReadsService(store, assets, signer);
  const sync = new LibrarySync(store, assets, {
    roots: config.libraryRoots,
    checkMs: config.libraryCheckMs,
    rescanMs: config.libraryRescanMs,
    settleMs: config.librarySettleMs,
    graceMs: config.libraryGraceMs,
    log,
  });
  const libraries = new LibrariesService(store, sync, { roots: config.libraryRoots, dataDir: config.dataDir });
  host.on('run-finished', (e) => {
    if (e.assetCompleted) libraries.assetCompleted();
  });
  const search = new SearchService(store);
  // Writes answers when a language model is installed; its worker starts on the first question.
  const writer = new AnswerWriter(config.dataDir);
  const services: Services = {
    config,
    auth: new AuthService(store),
    indexOptions,
    engines: new EnginesService(store),
    assets,
    reads,
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
    libraries,
    version: VERSION,
    log,
  };
  if (!space.check() && store.runs.failedWith('no_space').length > 0) space.arm();
  const resumed = assets.resumeWaitingForModels(config.dataDir);
  if (resumed > 0) log(`models installed since the last start: indexing ${resumed} asset(s) again with them`);
  host.start();
  purger.kick();
  sync.start();
  return {
    store,
    host,
    purger,
    services,
    sync,
    async close() {
      space.stop();
      await sync.stop();
      // A re-cluster under way is applied whole if it finishes soon; else not at all (one transaction).
      await people.settledAll(10_000);
      await services.modelPulls.settled();
      await writer.close();
      await reads.settled();
      await host.stop();
      await purger.settled();
      store.close();
      release();
    },
  };
}

export interface RunningServer extends Core {
  url: string;
  port: number;
}

export async function startServer(config: Config, opts: { launch?: WorkerLauncher; log?: (msg: string) => void } = {}): Promise<RunningServer> {
  const core = await openCore(config, { ...opts, lockInfo: 'media-index serve' });
  const server = http.createServer(createApp(core.services).callback());
  server.requestTimeout = 0; // large uploads may take long; idle sockets still time out
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.port, config.host, () => resolve());
    });
  } catch (err) {
    await core.close();
    throw err;
  }
  const { port } = server.address() as AddressInfo;
  const shownHost = config.host.includes(':') ? `[${config.host}]` : config.host;
  const url = `http://${shownHost}:${port}`;
  const forget = writeServiceFile(config.dataDir, url);
  warmSearch(core.store).catch((e: Error) => core.services.log(`search: could not load ahead (${e.message}); the first query will`));
  return {
    ...core,
    url,
    port,
    async close() {
      forget();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await core.close();
    },
  };
}
