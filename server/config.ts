// Runtime settings: command-line flags over MEDIA_INDEX_* environment variables over defaults.
import os from 'node:os';
import path from 'node:path';
import envPaths from 'env-paths';
import { defaultLibraryRoots } from './libraries/policy.ts';
import { fromRoot } from './paths.ts';

export interface Config {
  dataDir: string;
  host: string;
  port: number;
  /** Indexer processes; 0 accepts uploads but pauses indexing. */
  workers: number;
  /** Requests per key (or per client address before auth) in each window. */
  rateLimit: { max: number; windowMs: number };
  maxUploadBytes: number;
  stageTimeoutMs: number;
  /** An indexer process without work for this long ends, giving back the memory of its models. */
  indexerIdleMs: number;
  /**
   * The indexer processes' memory, in MiB, within which a second process may load a model that
   * another already holds (indexer/memory.ts); over it, runs needing that model wait for its process.
   * Default: a quarter of the machine's memory (with two processes and 8 GiB or more, room for every
   * model in every process: runs are placed as they always were).
   */
  indexerMemoryMiB: number;
  /** Host header names accepted besides the loopback names. */
  allowedHosts: string[];
  /** The built app served at `/` (dist/renderer). */
  uiDir: string;
  /** Folders libraries may come from (default: the home folder and removable drives' mount points). */
  libraryRoots: string[];
  /** Library sync timings (see libraries/sync.ts). */
  libraryCheckMs: number;
  libraryRescanMs: number;
  librarySettleMs: number;
  libraryGraceMs: number;
  /**
   * Free space the disk of the data folder needs before stages that failed for want of it run
   * again, and how often it is looked at while some wait (see services/space-watch.service.ts).
   */
  minFreeBytes: number;
  spaceCheckMs: number;
  /**
   * Re-grouping of waiting faces by itself (people/auto-group.ts): after `quietMs` with no new face,
   * and at most `maxWaitMs` after the first face that waits for it under a steady stream; null is off.
   */
  peopleAutoGroup: { quietMs: number; maxWaitMs: number } | null;
}

function intEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a non-negative number, got "${raw}"`);
  return Math.floor(n);
}

/** A positive number from the environment, else the fallback (unset, empty, 0 or not a number). */
function positiveEnv(name: string, fallback: number): number {
  const n = Number(process.env[name]);
  return Number.isFinite(n) && n > 0 ? n : fallback;
}

/**
 * What one file may cost (SPEC 5: too_large, too_many_pages, too_long), read once per process: the
 * indexer processes inherit the service's environment.
 */
export const limits = {
  /** Bytes a zip container (Office, OpenDocument, EPUB) may inflate to. */
  maxUnzippedBytes: positiveEnv('MEDIA_INDEX_MAX_UNZIPPED_BYTES', 512 * 1024 ** 2),
  /** Pages of one document. */
  maxPages: positiveEnv('MEDIA_INDEX_MAX_PAGES', 5000),
  /** Pixels of one picture. */
  maxPixels: positiveEnv('MEDIA_INDEX_MAX_PIXELS', 200_000_000),
  /** Seconds of one video or recording; 0 is no limit. */
  maxDurationS: positiveEnv('MEDIA_INDEX_MAX_DURATION_S', 0),
};

/**
 * Settings read where they are used, in any process (indexer processes inherit the service's
 * environment), each at the moment it is needed. Documented in docs/guide.md, "Settings".
 */
export const env = {
  /** Where optional models live instead of `<data>/models`. */
  get modelsDir(): string | undefined {
    return process.env.MEDIA_INDEX_MODELS || undefined;
  },
  /** A JSON file of model entries replacing the bundled ones of the same name. */
  get modelManifest(): string | undefined {
    return process.env.MEDIA_INDEX_MODEL_MANIFEST || undefined;
  },
  /** Where model downloads come from instead of the hub. */
  get modelMirror(): string | undefined {
    return process.env.MEDIA_INDEX_MODEL_MIRROR || undefined;
  },
  /** The models' execution provider: auto, cpu, cuda, dml, coreml. */
  get device(): string {
    return (process.env.MEDIA_INDEX_DEVICE ?? 'auto').toLowerCase();
  },
  /** How long a write waits for another program's lock on the database. */
  get dbBusyMs(): number {
    const raw = process.env.MEDIA_INDEX_DB_BUSY_MS;
    const n = Number(raw);
    return raw !== undefined && raw !== '' && Number.isFinite(n) && n >= 0 ? Math.floor(n) : 3000;
  },
  /** ffmpeg (and ffprobe, else the one beside it) to use instead of the packaged ones. */
  get ffmpeg(): string | undefined {
    return process.env.MEDIA_INDEX_FFMPEG || undefined;
  },
  get ffprobe(): string | undefined {
    return process.env.MEDIA_INDEX_FFPROBE || undefined;
  },
  /** How often an indexer process tells how far a long run has got, at most (tests set it lower). */
  get progressEveryMs(): number {
    const n = Number(process.env.MEDIA_INDEX_PROGRESS_MS);
    return process.env.MEDIA_INDEX_PROGRESS_MS && Number.isFinite(n) && n >= 0 ? n : 1000;
  },
  /** Benchmarks: each indexer process writes a V8 CPU profile here when it ends. */
  get cpuProfileDir(): string | undefined {
    return process.env.MEDIA_INDEX_CPU_PROFILE_DIR || undefined;
  },
};

export function defaultDataDir(): string {
  return process.env.MEDIA_INDEX_DATA || envPaths('media-index', { suffix: '' }).data;
}

export function defaultWorkers(): number {
  return Math.max(1, os.availableParallelism());
}

/** The indexer processes unless a command says otherwise: MEDIA_INDEX_WORKERS, else one per core. */
export function workersFromEnv(): number {
  return intEnv('MEDIA_INDEX_WORKERS', defaultWorkers());
}

/** MEDIA_INDEX_PEOPLE_AUTO_GROUP=off turns it off; the quiet period and the longest wait in ms. */
function autoGroupFromEnv(): Config['peopleAutoGroup'] {
  if (/^(off|false|0|no)$/i.test(process.env.MEDIA_INDEX_PEOPLE_AUTO_GROUP ?? '')) return null;
  const quietMs = intEnv('MEDIA_INDEX_PEOPLE_QUIET_MS', 20_000);
  return { quietMs, maxWaitMs: Math.max(quietMs, intEnv('MEDIA_INDEX_PEOPLE_MAX_WAIT_MS', 3 * 60_000)) };
}

export function loadConfig(overrides: Partial<Config> = {}): Config {
  return {
    dataDir: overrides.dataDir ?? defaultDataDir(),
    host: overrides.host ?? process.env.MEDIA_INDEX_HOST ?? '127.0.0.1',
    port: overrides.port ?? intEnv('MEDIA_INDEX_PORT', 7717),
    workers: overrides.workers ?? workersFromEnv(),
    rateLimit: overrides.rateLimit ?? {
      max: intEnv('MEDIA_INDEX_RATE_LIMIT', 1200),
      windowMs: intEnv('MEDIA_INDEX_RATE_WINDOW_MS', 60_000),
    },
    maxUploadBytes: overrides.maxUploadBytes ?? intEnv('MEDIA_INDEX_MAX_UPLOAD_BYTES', 20 * 1024 ** 3),
    stageTimeoutMs: overrides.stageTimeoutMs ?? intEnv('MEDIA_INDEX_STAGE_TIMEOUT_MS', 30 * 60_000),
    indexerIdleMs: overrides.indexerIdleMs ?? intEnv('MEDIA_INDEX_INDEXER_IDLE_MS', 60_000),
    indexerMemoryMiB: overrides.indexerMemoryMiB ?? intEnv('MEDIA_INDEX_INDEXER_MEMORY_MIB', Math.round(os.totalmem() / 4 / 2 ** 20)),
    allowedHosts:
      overrides.allowedHosts ??
      (process.env.MEDIA_INDEX_ALLOWED_HOSTS ?? '')
        .split(',')
        .map((s) => s.trim().toLowerCase())
        .filter(Boolean),
    uiDir: overrides.uiDir ?? fromRoot('dist', 'renderer'),
    libraryRoots:
      overrides.libraryRoots ??
      (process.env.MEDIA_INDEX_LIBRARY_ROOTS ? process.env.MEDIA_INDEX_LIBRARY_ROOTS.split(path.delimiter).filter(Boolean) : defaultLibraryRoots()),
    libraryCheckMs: overrides.libraryCheckMs ?? intEnv('MEDIA_INDEX_LIBRARY_CHECK_MS', 10_000),
    libraryRescanMs: overrides.libraryRescanMs ?? intEnv('MEDIA_INDEX_LIBRARY_RESCAN_MS', 30 * 60_000),
    librarySettleMs: overrides.librarySettleMs ?? intEnv('MEDIA_INDEX_LIBRARY_SETTLE_MS', 800),
    libraryGraceMs: overrides.libraryGraceMs ?? intEnv('MEDIA_INDEX_LIBRARY_GRACE_MS', 1500),
    minFreeBytes: overrides.minFreeBytes ?? intEnv('MEDIA_INDEX_MIN_FREE_BYTES', 256 * 1024 ** 2),
    spaceCheckMs: overrides.spaceCheckMs ?? intEnv('MEDIA_INDEX_SPACE_CHECK_MS', 10_000),
    peopleAutoGroup: overrides.peopleAutoGroup !== undefined ? overrides.peopleAutoGroup : autoGroupFromEnv(),
  };
}
