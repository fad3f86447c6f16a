// Keeps each library in step with its folder: a full scan when the service starts, when the library
// is added or asked for, and periodically (watchers miss events on network and removable drives),
// and between scans the folder is watched (@parcel/watcher). The walking, reading and hashing
// happen in a file-system thread (fs.worker.ts); this side records what it reports, in one
// transaction per batch:
//   - a new file becomes an asset (a file still being written waits until it has settled);
//   - a changed file keeps its asset: new content, every stage again, People decisions carried over;
//   - a file whose content the workspace already holds at a path that is gone was moved or
//     renamed: the asset follows it (same id, nothing re-run); at a path that is still there it is
//     a duplicate, answered by the same asset;
//   - a file that is gone (a grace period first, so that a move is seen as one) leaves the index;
//   - a root that is not there (a drive unplugged) makes the library `offline`: nothing is removed,
//     and when it is back a scan reconciles what changed meanwhile.
import fs from 'node:fs';
import path from 'node:path';
import type { Worker } from 'node:worker_threads';
import watcher from '@parcel/watcher';
import type { Store } from '../store/index.ts';
import type { LibraryRow } from '../store/libraries.repo.ts';
import { clock } from '../store/ids.ts';
import { startThread } from '../thread.ts';
import type { AssetsService, LibraryFileIn } from '../services/assets.service.ts';
import type { FileReport, FsJob, FsMessage, FsThreadData, LibraryRef, WorkRequest } from './protocol.ts';
import { realRoots } from './policy.ts';
import { entryModule } from '../paths.ts';

export interface SyncOptions {
  /** Folders libraries may come from (symbolic links leading elsewhere are not followed). */
  roots: string[];
  /** How often roots are looked at (offline drives coming back, online ones going away). */
  checkMs: number;
  /** How often each library is scanned in full. */
  rescanMs: number;
  /** A file modified less than this long ago is still being written. */
  settleMs: number;
  /** How long a file reported gone waits before it leaves the index (a move shows as gone + new). */
  graceMs: number;
  log?: (msg: string) => void;
}

export interface ScanProgress {
  running: boolean;
  /** Another full scan will follow this one. */
  queued: boolean;
  started_at: number | null;
  files_walked: number;
  /** Files seen that are still being written. */
  waiting: number;
}

interface LibState {
  scanning: boolean;
  scanQueued: boolean;
  startedAt: number | null;
  walked: number;
  waiting: Set<string>;
  checks: Set<string>;
  checkTimer: NodeJS.Timeout | null;
  deletions: Map<string, NodeJS.Timeout>;
  subscription: watcher.AsyncSubscription | null;
  nextScanAt: number;
}

interface Done {
  walked: number;
  missing: string[];
  rootMissing: boolean;
  rootEmpty: boolean;
}

interface PendingJob {
  libraryId: string;
  resolve(done: Done): void;
  reject(err: Error): void;
}

const CHECK_DEBOUNCE_MS = 100;

/** A job as asked for, before it gets its number. */
type JobRequest = WorkRequest extends infer J ? (J extends WorkRequest ? Omit<J, 'job'> : never) : never;

export class LibrarySync {
  private thread: Worker | null = null;
  private nextJob = 1;
  private readonly jobs = new Map<number, PendingJob>();
  private readonly states = new Map<string, LibState>();
  private ticker: NodeJS.Timeout | null = null;
  private stopping = false;
  private readonly running = new Set<Promise<unknown>>();

  constructor(
    private readonly store: Store,
    private readonly assets: AssetsService,
    private readonly opts: SyncOptions,
  ) {}

  start(): void {
    const data: FsThreadData = { dbFile: this.store.dbFile, roots: realRoots(this.opts.roots), settleMs: this.opts.settleMs };
    this.thread = startThread(entryModule('libraries/fs.worker'), data);
    this.thread.on('message', (m: FsMessage) => this.onMessage(m));
    this.thread.on('error', (err) => {
      this.log(`file-system thread failed: ${err.message}`);
      for (const j of this.jobs.values()) j.reject(err);
      this.jobs.clear();
    });
    this.thread.unref();
    for (const lib of this.store.libraries.all()) this.scan(lib.id);
    this.ticker = setInterval(() => this.tick(), this.opts.checkMs);
    this.ticker.unref();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    if (this.ticker) clearInterval(this.ticker);
    for (const id of [...this.states.keys()]) await this.forget(id);
    for (const j of this.jobs.values()) j.reject(new Error('stopping'));
    this.jobs.clear();
    await Promise.allSettled([...this.running]);
    await this.thread?.terminate();
  }

  /** A full scan now, or after the one running. */
  scan(libraryId: string): void {
    if (this.stopping) return;
    const st = this.state(libraryId);
    if (st.scanning) {
      st.scanQueued = true;
      return;
    }
    this.track(this.runScan(libraryId));
  }

  /** Stops following a library (its rows are the service's to remove). */
  async forget(libraryId: string): Promise<void> {
    const st = this.states.get(libraryId);
    if (!st) return;
    this.states.delete(libraryId);
    if (st.checkTimer) clearTimeout(st.checkTimer);
    for (const t of st.deletions.values()) clearTimeout(t);
    await st.subscription?.unsubscribe().catch(() => {});
  }

  progress(libraryId: string): ScanProgress {
    const st = this.states.get(libraryId);
    return {
      running: st?.scanning ?? false,
      queued: st?.scanQueued ?? false,
      started_at: st?.startedAt ?? null,
      files_walked: st?.walked ?? 0,
      waiting: st?.waiting.size ?? 0,
    };
  }

  /** Resolves when no scan or check is under way (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.running.size) await Promise.allSettled([...this.running]);
  }

  private log(msg: string): void {
    this.opts.log?.(`libraries: ${msg}`);
  }

  /** Work that stop() waits for; a failure is logged (never left unhandled, which would end the process). */
  private track<T>(p: Promise<T>): void {
    this.running.add(p);
    void p
      .catch((err: unknown) => {
        if (!this.stopping) this.log(`library work failed: ${(err as Error)?.message ?? err}`);
      })
      .finally(() => this.running.delete(p));
  }

  private state(id: string): LibState {
    let st = this.states.get(id);
    if (!st) {
      st = {
        scanning: false,
        scanQueued: false,
        startedAt: null,
        walked: 0,
        waiting: new Set(),
        checks: new Set(),
        checkTimer: null,
        deletions: new Map(),
        subscription: null,
        nextScanAt: Date.now() + this.opts.rescanMs,
      };
      this.states.set(id, st);
    }
    return st;
  }

  private ref(lib: LibraryRow): LibraryRef {
    return { id: lib.id, root: lib.path, exclude: JSON.parse(lib.exclude) as string[] };
  }

  private job(req: JobRequest, libraryId: string): Promise<Done> {
    const job = this.nextJob++;
    return new Promise<Done>((resolve, reject) => {
      if (!this.thread) return reject(new Error('the library sync is not running'));
      this.jobs.set(job, { libraryId, resolve, reject });
      this.thread.postMessage({ ...req, job } as FsJob);
    });
  }

  /**
   * Reports are recorded one batch per turn of the event loop (a thread that walks faster than the
   * database records must not keep requests waiting), in the order they came.
   */
  private readonly inbox: FsMessage[] = [];
  private draining = false;

  private onMessage(m: FsMessage): void {
    this.inbox.push(m);
    if (!this.draining) {
      this.draining = true;
      setImmediate(() => this.drain());
    }
  }

  private drain(): void {
    const m = this.inbox.shift();
    if (!m) {
      this.draining = false;
      return;
    }
    try {
      this.handle(m);
    } finally {
      setImmediate(() => this.drain());
    }
  }

  private handle(m: FsMessage): void {
    const pending = this.jobs.get(m.job);
    if (!pending) return;
    const lib = this.store.libraries.byId(pending.libraryId);
    if (m.type === 'files') {
      try {
        if (lib && !this.stopping) this.apply(lib, m.files);
      } finally {
        this.thread?.postMessage({ type: 'ack', job: m.job } satisfies FsJob);
      }
    } else if (m.type === 'progress') {
      const st = this.states.get(pending.libraryId);
      if (st) st.walked = m.walked;
    } else {
      this.jobs.delete(m.job);
      if (m.type === 'failed') pending.reject(new Error(m.message));
      else pending.resolve(m);
    }
  }

  private async runScan(libraryId: string): Promise<void> {
    if (this.stopping) return;
    const lib = this.store.libraries.byId(libraryId);
    if (!lib) return;
    const st = this.state(libraryId);
    st.scanning = true;
    st.startedAt = clock.now();
    st.walked = 0;
    const was = lib.status;
    this.store.libraries.setStatus(lib.id, 'scanning');
    try {
      const done = await this.job({ type: 'scan', library: this.ref(lib), under: '' }, lib.id);
      if (this.stopping || !this.store.libraries.byId(lib.id)) return;
      st.walked = done.walked;
      if (done.rootMissing) {
        await this.goOffline(lib, 'the folder is not there (is its drive connected?)');
      } else if (done.rootEmpty && this.store.libraries.counts(lib.id).assets > 0) {
        // An empty mount point looks like a folder whose files were all deleted: keep them.
        await this.goOffline(lib, 'the folder is empty (is its drive mounted?); its assets are kept');
      } else {
        this.removeMissing(lib, done.missing);
        this.store.libraries.scanned(lib.id, clock.now());
        this.store.libraries.setStatus(lib.id, 'watching');
        if (was === 'offline' || was === 'error') this.assets.retryMissingFiles(lib.id);
        await this.watch(lib);
      }
    } catch (err) {
      if (!this.stopping && this.store.libraries.byId(lib.id)) {
        this.store.libraries.setStatus(lib.id, 'error', (err as Error).message);
        this.log(`scan of ${lib.path} failed: ${(err as Error).message}`);
      }
    } finally {
      st.scanning = false;
      st.nextScanAt = Date.now() + this.opts.rescanMs;
      if (st.scanQueued && !this.stopping) {
        st.scanQueued = false;
        this.scan(lib.id);
      }
    }
  }

  private async goOffline(lib: LibraryRow, reason: string): Promise<void> {
    const st = this.state(lib.id);
    for (const t of st.deletions.values()) clearTimeout(t);
    st.deletions.clear();
    await st.subscription?.unsubscribe().catch(() => {});
    st.subscription = null;
    this.store.libraries.setStatus(lib.id, 'offline', reason);
    if (lib.status !== 'offline') this.log(`${lib.path} is offline: ${reason}`);
  }

  private async watch(lib: LibraryRow): Promise<void> {
    const st = this.state(lib.id);
    if (st.subscription) return;
    try {
      st.subscription = await watcher.subscribe(lib.path, (err, events) => {
        // Events still coming while the library is forgotten or the service stops.
        if (this.stopping || this.states.get(lib.id) !== st) return;
        if (err) {
          this.log(`watching ${lib.path}: ${err.message}`);
          this.tick();
          return;
        }
        for (const e of events) {
          const rel = path.relative(lib.path, e.path).split(path.sep).join('/');
          if (rel === '' || rel.startsWith('..')) this.tick();
          else st.checks.add(rel);
        }
        if (st.checks.size && !st.checkTimer) st.checkTimer = setTimeout(() => this.track(this.runChecks(lib.id)), CHECK_DEBOUNCE_MS);
      });
    } catch (err) {
      // Not watchable (too many folders for the system's watch limit, say): periodic scans still run.
      this.log(`cannot watch ${lib.path}: ${(err as Error).message}; it is scanned every ${Math.round(this.opts.rescanMs / 60_000)} min`);
    }
  }

  private checkLater(libraryId: string, rel: string, ms: number): void {
    const st = this.state(libraryId);
    st.checks.add(rel);
    if (st.checkTimer) clearTimeout(st.checkTimer);
    st.checkTimer = setTimeout(() => this.track(this.runChecks(libraryId)), ms);
  }

  private async runChecks(libraryId: string): Promise<void> {
    const st = this.states.get(libraryId);
    if (!st || this.stopping) return;
    const lib = this.store.libraries.byId(libraryId);
    if (!lib) return;
    st.checkTimer = null;
    const paths = [...st.checks];
    st.checks.clear();
    if (paths.length === 0 || lib.status === 'offline') return;
    try {
      const done = await this.job({ type: 'check', library: this.ref(lib), paths }, lib.id);
      if (done.rootMissing) return this.tick();
      for (const rel of done.missing) this.removeAfterGrace(lib.id, rel);
    } catch (err) {
      if (!this.stopping) this.log(`checking ${paths.length} path(s) of ${lib.path} failed: ${(err as Error).message}`);
    }
  }

  private removeAfterGrace(libraryId: string, rel: string): void {
    const st = this.state(libraryId);
    if (st.deletions.has(rel)) return;
    st.deletions.set(
      rel,
      setTimeout(() => {
        st.deletions.delete(rel);
        if (this.stopping) return;
        const lib = this.store.libraries.byId(libraryId);
        if (lib && lib.status !== 'offline') this.removeMissing(lib, [rel]);
      }, this.opts.graceMs),
    );
  }

  /** Roots coming and going, and the periodic full scans. */
  private tick(): void {
    if (this.stopping) return;
    for (const lib of this.store.libraries.all()) {
      const st = this.state(lib.id);
      if (st.scanning) continue;
      const present = isFolder(lib.path);
      if (lib.status === 'offline' || lib.status === 'error') {
        if (present) this.scan(lib.id);
      } else if (!present) {
        this.track(this.goOffline(lib, 'the folder is not there (is its drive connected?)'));
      } else if (Date.now() >= st.nextScanAt) {
        this.scan(lib.id);
      }
    }
  }

  /** Records one batch of the file-system thread's reports. */
  private apply(lib: LibraryRow, files: FileReport[]): void {
    const st = this.state(lib.id);
    const fresh: Array<LibraryFileIn & { rel: string; mtimeMs: number; twins: string[] }> = [];
    this.store.transaction(() => {
      for (const f of files) {
        st.waiting.delete(f.rel);
        if (f.kind === 'unsettled') {
          st.waiting.add(f.rel);
          this.checkLater(lib.id, f.rel, this.opts.settleMs + 50);
        } else if (f.kind === 'refused' || f.kind === 'unreadable') {
          this.drop(lib, f.rel);
          const sizes = f.kind === 'refused' ? { size: f.size, mtime_ms: f.mtimeMs } : { size: 0, mtime_ms: 0 };
          this.store.libraries.putFile({ library_id: lib.id, rel_path: f.rel, ...sizes, sha256: null, asset_id: null, state: f.kind, reason: f.reason });
        } else {
          this.place(lib, f, fresh);
        }
      }
      if (fresh.length === 0) return;
      const ids = this.assets.admitLibraryFiles(lib.workspace_id, lib.id, fresh);
      fresh.forEach((f, i) => {
        for (const rel of [f.rel, ...f.twins]) {
          this.store.libraries.putFile({
            library_id: lib.id,
            rel_path: rel,
            size: f.size,
            mtime_ms: f.mtimeMs,
            sha256: f.sha256,
            asset_id: ids[i],
            state: 'indexed',
            reason: null,
          });
        }
      });
    });
  }

  /** A file that is new or changed, read and hashed: a change, a move, a duplicate or a new asset. */
  private place(
    lib: LibraryRow,
    f: Extract<FileReport, { kind: 'file' }>,
    fresh: Array<LibraryFileIn & { rel: string; mtimeMs: number; twins: string[] }>,
  ): void {
    const abs = path.join(lib.path, f.rel);
    const row = this.store.libraries.file(lib.id, f.rel);
    const put = (assetId: string) =>
      this.store.libraries.putFile({
        library_id: lib.id,
        rel_path: f.rel,
        size: f.size,
        mtime_ms: f.mtimeMs,
        sha256: f.sha256,
        asset_id: assetId,
        state: 'indexed',
        reason: null,
      });
    if (row?.asset_id && this.live(row.asset_id)) {
      if (row.sha256 === f.sha256) return put(row.asset_id); // touched, not changed
      const others = this.store.libraries.filesOfAsset(row.asset_id).filter((o) => o.library_id !== lib.id || o.rel_path !== f.rel);
      if (others.length === 0) {
        this.assets.contentChanged(row.asset_id, f);
        return put(row.asset_id);
      }
      // One of several copies changed: the others keep the asset; this one is new content.
      this.follow(row.asset_id, abs, others);
    }
    const same = this.store.libraries.withContent(lib.workspace_id, f.sha256).filter((o) => o.library_id !== lib.id || o.rel_path !== f.rel);
    const moved = same.find((o) => !fs.existsSync(path.join(o.root, o.rel_path)));
    if (moved?.asset_id) {
      this.store.libraries.deleteFile(moved.library_id, moved.rel_path);
      const asset = this.store.assets.byId(moved.asset_id);
      if (asset && asset.stored_path === path.join(moved.root, moved.rel_path)) this.assets.relocate(moved.asset_id, abs, lib.id);
      return put(moved.asset_id);
    }
    if (same[0]?.asset_id) return put(same[0].asset_id);
    const twin = fresh.find((x) => x.sha256 === f.sha256);
    if (twin) twin.twins.push(f.rel);
    else fresh.push({ path: abs, ext: f.ext, size: f.size, sha256: f.sha256, mime: f.mime, rel: f.rel, mtimeMs: f.mtimeMs, twins: [] });
  }

  private live(assetId: string): boolean {
    const a = this.store.assets.byId(assetId);
    return a !== undefined && a.deleted_at === null;
  }

  /** An asset whose file at `abs` no longer answers for it moves to another of its copies. */
  private follow(assetId: string, abs: string, others: Array<{ root: string; rel_path: string; library_id: string }>): void {
    const asset = this.store.assets.byId(assetId);
    if (asset && asset.stored_path === abs && others[0]) this.assets.relocate(assetId, path.join(others[0].root, others[0].rel_path), others[0].library_id);
  }

  /** Takes a path out of the library; its asset leaves the index unless another copy answers for it. */
  private drop(lib: LibraryRow, rel: string): void {
    const row = this.store.libraries.file(lib.id, rel);
    if (!row) return;
    this.store.libraries.deleteFile(lib.id, rel);
    if (!row.asset_id) return;
    const others = this.store.libraries.filesOfAsset(row.asset_id);
    if (others.length === 0) this.assets.removeFromIndex(row.asset_id);
    else this.follow(row.asset_id, path.join(lib.path, rel), others);
  }

  /** Paths reported gone, confirmed gone (and the root still there), leave the library. */
  private removeMissing(lib: LibraryRow, rels: string[]): void {
    if (rels.length === 0 || !isFolder(lib.path)) return;
    const gone = rels.filter((rel) => !fs.existsSync(path.join(lib.path, rel)));
    for (let i = 0; i < gone.length; i += 500) {
      this.store.transaction(() => {
        for (const rel of gone.slice(i, i + 500)) this.drop(lib, rel);
      });
    }
  }
}

function isFolder(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}
