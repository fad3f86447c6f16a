// Starts the local service: store, indexer host, purger and the HTTP API on loopback.
import http from 'node:http';
import { warmSearch } from './search/warm.ts';
import type { AddressInfo } from 'node:net';
import type { Config } from './config.ts';
import { openStore, type Store } from './store/index.ts';
import { lockDataFolder } from './store/lock.ts';
import { writeServiceFile } from './store/service-file.ts';
import { IndexerHost } from './indexer/host.ts';
import { isPhaseOne } from './indexer/registry.ts';
import { forkLauncher } from './indexer/launcher.ts';
import { VIDEO_PICTURE_STAGES } from './indexer/picture-input.ts';
import { SAMPLED_DIR } from './media/types.ts';
import type { WorkerLauncher } from './indexer/protocol.ts';
import { Purger } from './services/purge.service.ts';
import { createServices, type Services } from './services/index.ts';
import { LibrarySync } from './libraries/sync.ts';

export interface Core {
  store: Store;
  host: IndexerHost;
  purger: Purger;
  services: Services;
  sync: LibrarySync;
  close(): Promise<void>;
}

/**
 * The service without HTTP: what `serve` and the CLI `index` both run on. Takes the folder lock.
 * `libraries: false` leaves the libraries' sync (its file-system thread, their scans and watchers)
 * stopped: the command line's `index` indexes the paths it is given, and the next `serve` syncs them.
 */
export async function openCore(
  config: Config,
  opts: { launch?: WorkerLauncher; log?: (msg: string) => void; lockInfo?: string; libraries?: boolean } = {},
): Promise<Core> {
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
  // Frames a video's reading kept for its picture stages, where a stop came between the last of
  // those stages being recorded and the frames being removed: looked for once the service runs, a
  // look per video (the stages read the file where frames are missing; none of these has a picture
  // stage left to run).
  const framesDone = store.runs.videosWithNoneUnfinished(VIDEO_PICTURE_STAGES);
  const graph = createServices(store, config, { log });
  const { queue, purger, sync, space, writer, people, assets, reads, libraries, modelPulls } = graph;
  const host = new IndexerHost(
    store,
    {
      workers: config.workers,
      launch: opts.launch ?? forkLauncher,
      stageTimeoutMs: config.stageTimeoutMs,
      idleEndMs: config.indexerIdleMs,
      memoryMiB: config.indexerMemoryMiB,
      log,
    },
    queue,
  );
  assets.runningNow = () => host.running();
  host.on('run-finished', (e) => {
    if (e.assetDeleted) purger.kick();
    if (e.code === 'no_space') space.arm();
    if (e.assetCompleted || isPhaseOne(e.stage)) libraries.assetProgressed();
    if (e.stage === 'people' && e.state === 'ok') people.peopleIndexed(e.assetId);
  });
  if (!space.check() && store.runs.failedWith('no_space').length > 0) space.arm();
  const resumed = assets.resumeWaitingForModels(config.dataDir);
  if (resumed > 0) log(`models installed since the last start: indexing ${resumed} asset(s) again with them`);
  host.start();
  void store.files.removeFromAssets(framesDone, SAMPLED_DIR).catch(() => undefined);
  purger.kick();
  if (opts.libraries !== false) sync.start();
  return {
    store,
    host,
    purger,
    services: graph,
    sync,
    async close() {
      space.stop();
      await sync.stop();
      // Plans under way stop; a re-group being written is let finish for 10 s (its slices each whole).
      await people.close(10_000);
      await modelPulls.settled();
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

/**
 * How long after the service listens it loads what search reads (search/warm.ts: WordNet, the date
 * parser, the vector index and the sentence encoder), so that the work a start brings goes first: a
 * library added as the service starts, uploads, the libraries' own scans. Measured with a folder of
 * PDFs, office files and an e-book added as the service listened (6 interleaved pairs): searchable
 * 1.608 s → 1.552 s after the addition with the loading 3 s later. A query before then loads what it
 * needs itself.
 */
const WARM_SEARCH_AFTER_MS = 3000;

export async function startServer(config: Config, opts: { launch?: WorkerLauncher; log?: (msg: string) => void } = {}): Promise<RunningServer> {
  const core = await openCore(config, { ...opts, lockInfo: 'media-index serve' });
  // The HTTP application (Koa, its router, body parsers, the OpenAPI document) is loaded here, not by
  // the commands that index without serving (`media-index index` starts ≈ 0.2 s sooner).
  const { createApp } = await import('./api/app.ts');
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
  const warm = setTimeout(
    () => void warmSearch(core.store).catch((e: Error) => core.services.log(`search: could not load ahead (${e.message}); the first query will`)),
    WARM_SEARCH_AFTER_MS,
  );
  warm.unref();
  return {
    ...core,
    url,
    port,
    async close() {
      clearTimeout(warm);
      forget();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await core.close();
    },
  };
}
