// Keeps each library in step with its folder, on a schedule: a full scan when the service starts,
// when the library is added or asked for, and periodically (watchers miss events on network and
// removable drives); between scans the folder is watched (@parcel/watcher) and the paths it names
// are looked at. The walking, reading, hashing and every look at the disk happen in the file-system
// thread (fs-client.ts, fs.worker.ts); what it reports is recorded by apply.ts under the rules of
// reconcile.ts. A file still being written is looked at again once settled; a file gone waits a
// grace period first (a move shows as gone + new); a root that is not there (a drive unplugged)
// makes the library `offline`: nothing is removed, and when it is back a scan reconciles.
import path from 'node:path';
import watcher from '@parcel/watcher';
import type { Store } from '../store/index.ts';
import type { LibraryRow } from '../store/libraries.repo.ts';
import { clock } from '../store/ids.ts';
import type { LibraryRef } from './protocol.ts';
import { realRoots } from './policy.ts';
import { FsClient } from './fs-client.ts';
import { LibraryApply, type LibraryAssets } from './apply.ts';
import { scanOutcome } from './reconcile.ts';

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
  /** Bumped each time the library's files are recorded (a batch, files gone): counts taken before are out of date. */
  recorded: number;
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
  recorded: number;
}

const CHECK_DEBOUNCE_MS = 100;

export class LibrarySync {
  private readonly fs: FsClient;
  private readonly record: LibraryApply;
  private readonly states = new Map<string, LibState>();
  private ticker: NodeJS.Timeout | null = null;
  private stopping = false;
  /** A look at the roots is under way (the file-system thread answers after the job before it). */
  private ticking = false;
  private readonly running = new Set<Promise<unknown>>();

  constructor(
    private readonly store: Store,
    private readonly assets: LibraryAssets,
    private readonly opts: SyncOptions,
  ) {
    this.fs = new FsClient((msg) => this.log(msg));
    this.record = new LibraryApply(store, assets);
  }

  start(): void {
    this.fs.start({ dbFile: this.store.dbFile, roots: realRoots(this.opts.roots), settleMs: this.opts.settleMs });
    for (const lib of this.store.libraries.all()) this.scan(lib.id);
    this.ticker = setInterval(() => this.tick(), this.opts.checkMs);
    this.ticker.unref();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    if (this.ticker) clearInterval(this.ticker);
    for (const id of [...this.states.keys()]) await this.forget(id);
    await this.fs.stop();
    await Promise.allSettled([...this.running]);
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

  /** Stops following a library and takes it out of the index (see LibraryApply.removeLibrary); how many assets left. */
  async remove(lib: LibraryRow): Promise<number> {
    await this.forget(lib.id);
    return this.record.removeLibrary(lib);
  }

  progress(libraryId: string): ScanProgress {
    const st = this.states.get(libraryId);
    return {
      running: st?.scanning ?? false,
      queued: st?.scanQueued ?? false,
      started_at: st?.startedAt ?? null,
      files_walked: st?.walked ?? 0,
      waiting: st?.waiting.size ?? 0,
      recorded: st?.recorded ?? 0,
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
        recorded: 0,
      };
      this.states.set(id, st);
    }
    return st;
  }

  private ref(lib: LibraryRow): LibraryRef {
    return { id: lib.id, workspace: lib.workspace_id, root: lib.path, exclude: JSON.parse(lib.exclude) as string[] };
  }

  /** Walks or looks at a library through the file-system thread, recording each batch it reports. */
  private walk(lib: LibraryRow, req: { type: 'scan'; under: string } | { type: 'check'; paths: string[] }) {
    const st = this.state(lib.id);
    return this.fs.walk(
      { ...req, library: this.ref(lib) },
      {
        onFiles: (files) => {
          const now = this.store.libraries.byId(lib.id);
          if (!now || this.stopping) return;
          this.record.batch(now, files, (rel, stillWritten) => this.waiting(lib.id, rel, stillWritten));
          st.recorded++;
        },
        onProgress: (walked) => {
          st.walked = walked;
        },
      },
    );
  }

  /** A file still being written is looked at again once it has had time to settle. */
  private waiting(libraryId: string, rel: string, stillWritten: boolean): void {
    const st = this.state(libraryId);
    st.waiting.delete(rel);
    if (!stillWritten) return;
    st.waiting.add(rel);
    this.checkLater(libraryId, rel, this.opts.settleMs + 50);
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
      const done = await this.walk(lib, { type: 'scan', under: '' });
      if (this.stopping || !this.store.libraries.byId(lib.id)) return;
      st.walked = done.walked;
      const outcome = scanOutcome(done, done.rootEmpty ? this.store.libraries.counts(lib.id).assets : 0);
      if (outcome.kind === 'offline') {
        await this.goOffline(lib, outcome.reason);
      } else {
        this.record.gone(lib, done.missing); // the thread has just seen them missing, and the root there
        st.recorded++;
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
          // A sidecar written or removed: the metadata of the files it belongs to is read again.
          else if (/\.xmp$/i.test(rel)) for (const id of this.store.libraries.assetsOfSidecar(lib.id, rel)) this.assets.sidecarChanged(id);
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
      const done = await this.walk(lib, { type: 'check', paths });
      if (done.rootMissing) return this.tick();
      for (const rel of done.missing) this.removeAfterGrace(lib.id, rel);
    } catch (err) {
      if (!this.stopping) this.log(`checking ${paths.length} path(s) of ${lib.path} failed: ${(err as Error).message}`);
    }
  }

  /** A path reported gone leaves after the grace period if the thread still finds it gone (and the root there). */
  private removeAfterGrace(libraryId: string, rel: string): void {
    const st = this.state(libraryId);
    if (st.deletions.has(rel)) return;
    st.deletions.set(
      rel,
      setTimeout(() => {
        st.deletions.delete(rel);
        this.track(this.confirmGone(libraryId, rel));
      }, this.opts.graceMs),
    );
  }

  private async confirmGone(libraryId: string, rel: string): Promise<void> {
    const lib = this.store.libraries.byId(libraryId);
    if (this.stopping || !lib || lib.status === 'offline') return;
    const done = await this.walk(lib, { type: 'check', paths: [rel] });
    const now = this.store.libraries.byId(libraryId);
    if (this.stopping || !now || now.status === 'offline' || done.rootMissing) return;
    this.record.gone(now, done.missing);
    this.state(libraryId).recorded++;
  }

  /** Roots coming and going (looked at by the file-system thread), and the periodic full scans. */
  private tick(): void {
    if (this.stopping || this.ticking) return;
    this.ticking = true;
    this.track(this.checkRoots().finally(() => (this.ticking = false)));
  }

  private async checkRoots(): Promise<void> {
    const libs = this.store.libraries.all().filter((lib) => !this.state(lib.id).scanning);
    const present = await this.fs.present(libs.map((lib) => lib.path));
    if (this.stopping) return;
    for (const [i, was] of libs.entries()) {
      // Read again: the answer took a moment, meanwhile a library may have gone or started a scan.
      const lib = this.store.libraries.byId(was.id);
      const st = this.states.get(was.id);
      if (!lib || !st || st.scanning) continue;
      if (lib.status === 'offline' || lib.status === 'error') {
        if (present[i]) this.scan(lib.id);
      } else if (!present[i]) {
        await this.goOffline(lib, 'the folder is not there (is its drive connected?)');
      } else if (Date.now() >= st.nextScanAt) {
        this.scan(lib.id);
      }
    }
  }
}
