// The library sync's file-system thread: walks folders, compares what it finds with what the
// library knows (a read-only connection), and reads and hashes only what is new or changed, so the
// thread that answers HTTP never waits on the disk. Writes nothing: the service records its reports.
import fs from 'node:fs';
import path from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { openDatabase } from '../store/db.ts';
import { EXTENSION_KINDS, LEGACY_EXTENSIONS } from '../contract/extensions.ts';
import { createHash } from 'node:crypto';
import { HEAD_BYTES, confirmHead, readHead } from '../media/sniff.ts';
import { hashFile } from '../media/hash.ts';
import { AppError, Errors } from '../errors.ts';
import { excluder, type Excluded } from './exclude.ts';
import { withinRoots } from './policy.ts';
import type { FileReport, FsJob, FsMessage, FsThreadData, LibraryRef, WorkRequest } from './protocol.ts';

const { dbFile, roots, settleMs } = workerData as FsThreadData;
const db = openDatabase(dbFile, { readonly: true });
const known = db.prepare('SELECT size, mtime_ms, state FROM library_files WHERE library_id = ? AND rel_path = ?');
const knownUnder = db.prepare("SELECT rel_path FROM library_files WHERE library_id = ? AND (? = '' OR rel_path = ? OR substr(rel_path, 1, ?) = ?)");
/** Indexed paths of live assets in a workspace with this content: a file new here may have been moved from one. */
const sameContent = db.prepare(
  `SELECT f.library_id, f.rel_path, l.path AS root FROM library_files f JOIN libraries l ON l.id = f.library_id
     JOIN assets a ON a.id = f.asset_id AND a.deleted_at IS NULL
     WHERE f.sha256 = ? AND l.workspace_id = ? AND f.state = 'indexed'`,
);
const BATCH = 1000;
/**
 * A batch is also sent once its first file has waited this long: the files of a drive that takes
 * time to read (large photos, videos) are indexed while the walk goes on, not once a thousand of
 * them or the whole folder have been read.
 */
const BATCH_WAIT_MS = 200;
/** Files read whole in one call (their hash and type from one buffer); larger ones are streamed. */
const SMALL = 4 * 1024 * 1024;
/** Files looked at at once (the disk and the thread pool overlap them). */
const PARALLEL = 16;
/** Batches sent ahead of the service's acknowledgements: memory stays bounded when it is busy. */
const AHEAD = 4;

let unacknowledged = 0;
let acknowledged: (() => void) | null = null;
/** Past AHEAD unacknowledged batches, the walk waits (only the walk waits: one job at a time). */
async function caughtUp(): Promise<void> {
  while (unacknowledged >= AHEAD) await new Promise<void>((resolve) => (acknowledged = resolve));
}

const send = (m: FsMessage) => parentPort?.postMessage(m);
const reasonOf = (err: unknown) => {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'EACCES' || code === 'EPERM' ? 'permission denied' : `cannot be read (${code ?? (err as Error).message})`;
};

interface Read {
  sha256: string;
  head: Uint8Array;
  /** Size and modification time once read (a file written meanwhile has not settled). */
  size: number;
  mtimeMs: number;
}

/** A small file read whole through one descriptor: its hash, its first bytes, and whether it changed meanwhile. */
function readSmall(abs: string): Read {
  const fd = fs.openSync(abs, 'r');
  try {
    const buf = Buffer.allocUnsafe(fs.fstatSync(fd).size);
    let n = 0;
    while (n < buf.length) {
      const got = fs.readSync(fd, buf, n, buf.length - n, n);
      if (got === 0) break;
      n += got;
    }
    const after = fs.fstatSync(fd);
    const whole = buf.subarray(0, n);
    return {
      sha256: createHash('sha256').update(whole).digest('hex'),
      head: whole.subarray(0, HEAD_BYTES),
      size: after.size,
      mtimeMs: Math.floor(after.mtimeMs),
    };
  } finally {
    fs.closeSync(fd);
  }
}

/** A large file streamed (a video of gigabytes is never held whole). */
async function readLarge(abs: string): Promise<Read> {
  const { sha256 } = await hashFile(abs);
  const head = await readHead(abs);
  const after = fs.statSync(abs);
  return { sha256, head, size: after.size, mtimeMs: Math.floor(after.mtimeMs) };
}

class Job {
  readonly seen = new Set<string>();
  /** Folders that could not be listed: what the library knew under them is not taken for gone. */
  readonly unknownUnder: string[] = [];
  private batch: FileReport[] = [];
  /** Sends the batch BATCH_WAIT_MS after its first file was reported, if it is not full by then. */
  private batchTimer: NodeJS.Timeout | null = null;
  walked = 0;
  private readonly visited = new Set<string>();
  readonly excluded: Excluded;

  constructor(
    readonly id: number,
    readonly lib: LibraryRef,
  ) {
    this.excluded = excluder(lib.exclude);
  }

  report(r: FileReport): void {
    if (this.batch.length === 0) this.batchTimer = setTimeout(() => this.sendBatch(), BATCH_WAIT_MS);
    this.batch.push(r);
  }

  /** Called between files: sends a full batch; past AHEAD unacknowledged batches, waits for the service to catch up. */
  async maybeFlush(): Promise<void> {
    if (this.batch.length >= BATCH) this.sendBatch();
    await caughtUp();
  }

  /** Sends what the batch holds, then waits as maybeFlush does. */
  async flush(): Promise<void> {
    this.sendBatch();
    await caughtUp();
  }

  private sendBatch(): void {
    if (this.batchTimer) clearTimeout(this.batchTimer);
    this.batchTimer = null;
    if (this.batch.length === 0) return;
    send({ type: 'files', job: this.id, files: this.batch });
    this.batch = [];
    unacknowledged++;
  }

  /** Walks a folder (its path relative to the root; '' = the root). */
  async walk(relDir: string): Promise<void> {
    const abs = relDir ? path.join(this.lib.root, relDir) : this.lib.root;
    let dir: fs.Dir;
    try {
      const st = await fs.promises.stat(abs);
      const id = `${st.dev}:${st.ino}`;
      if (this.visited.has(id)) return; // a link back into a folder already walked
      this.visited.add(id);
      dir = await fs.promises.opendir(abs, { bufferSize: 256 });
    } catch (err) {
      if (relDir) this.report({ rel: relDir, kind: 'unreadable', reason: reasonOf(err) });
      this.unknownUnder.push(relDir);
      return;
    }
    const dirs: string[] = [];
    const inFlight = new Set<Promise<void>>();
    const start = (p: Promise<void>) => {
      inFlight.add(p);
      void p.finally(() => inFlight.delete(p));
    };
    try {
      for await (const entry of dir) {
        const rel = relDir ? `${relDir}/${entry.name}` : entry.name;
        if (this.excluded(rel, entry.name)) continue;
        if (entry.isDirectory()) dirs.push(rel);
        else if (entry.isFile()) start(this.file(rel));
        else if (entry.isSymbolicLink()) start(this.link(rel, dirs));
        if (inFlight.size >= PARALLEL) await Promise.race(inFlight);
        await this.maybeFlush();
      }
      await Promise.all(inFlight);
    } catch (err) {
      await Promise.allSettled(inFlight);
      this.report({ rel: relDir, kind: 'unreadable', reason: reasonOf(err) });
      this.unknownUnder.push(relDir);
    }
    for (const d of dirs) await this.walk(d);
  }

  /** A symbolic link is followed only where it leads inside an allowed root. */
  async link(rel: string, dirs: string[]): Promise<void> {
    let target: string;
    let st: fs.Stats;
    try {
      target = await fs.promises.realpath(path.join(this.lib.root, rel));
      st = await fs.promises.stat(target);
    } catch {
      return; // a dangling link: nothing to index
    }
    if (!withinRoots(target, roots)) {
      this.seen.add(rel);
      this.report({
        rel,
        kind: 'refused',
        size: st.size,
        mtimeMs: Math.floor(st.mtimeMs),
        reason: 'a symbolic link leading outside the folders libraries may read',
      });
      return;
    }
    if (st.isDirectory()) dirs.push(rel);
    else if (st.isFile()) await this.file(rel);
  }

  async file(rel: string): Promise<void> {
    // An XMP sidecar is not an asset and not a problem: its photo's metadata stage reads it. (Not
    // seen either: a sidecar refused by an earlier version of the walk is forgotten.)
    if (path.extname(rel).toLowerCase() === '.xmp') return;
    this.seen.add(rel);
    this.walked++;
    if (this.walked % 2000 === 0) send({ type: 'progress', job: this.id, walked: this.walked });
    const abs = path.join(this.lib.root, rel);
    // This thread exists to wait on the disk: plain blocking calls cost least here.
    let st: fs.Stats;
    try {
      st = fs.statSync(abs);
    } catch (err) {
      this.report({ rel, kind: 'unreadable', reason: reasonOf(err) });
      return;
    }
    const size = st.size;
    const mtimeMs = Math.floor(st.mtimeMs);
    const row = known.get(this.lib.id, rel) as { size: number; mtime_ms: number; state: string } | undefined;
    if (row && row.state !== 'unreadable' && row.size === size && row.mtime_ms === mtimeMs) return; // unchanged: not read again
    const ext = path.extname(rel).toLowerCase();
    const refuse = (reason: string) => this.report({ rel, kind: 'refused', size, mtimeMs, reason });
    if ((LEGACY_EXTENSIONS as readonly string[]).includes(ext)) return refuse(Errors.legacyFormat(ext).message);
    const kind = EXTENSION_KINDS[ext];
    if (!kind) return refuse(ext ? `files of type ${ext} are not supported` : 'no extension: the type cannot be told');
    if (size === 0) return refuse('the file is empty');
    if (Date.now() - mtimeMs < settleMs) return this.report({ rel, kind: 'unsettled', size, mtimeMs });
    try {
      const read = size <= SMALL ? readSmall(abs) : await readLarge(abs);
      if (read.size !== size || read.mtimeMs !== mtimeMs) return this.report({ rel, kind: 'unsettled', size: read.size, mtimeMs: read.mtimeMs });
      const mime = await confirmHead(read.head, size, ext, kind);
      this.report({ rel, kind: 'file', size, mtimeMs, sha256: read.sha256, mime, ext, gone: this.goneWith(read.sha256, rel) });
    } catch (err) {
      if (err instanceof AppError) refuse(err.message);
      else this.report({ rel, kind: 'unreadable', reason: reasonOf(err) });
    }
  }

  /** Other known paths with this content that are no longer there. */
  goneWith(sha256: string, rel: string): Array<{ library: string; rel: string }> {
    const rows = sameContent.all(sha256, this.lib.workspace) as Array<{ library_id: string; rel_path: string; root: string }>;
    return rows
      .filter((o) => (o.library_id !== this.lib.id || o.rel_path !== rel) && !fs.existsSync(path.join(o.root, o.rel_path)))
      .map((o) => ({ library: o.library_id, rel: o.rel_path }));
  }

  /** Known paths under `prefix` ('' = all) that were not seen, except under folders that could not be read. */
  missingUnder(prefix: string): string[] {
    const rows = knownUnder.all(this.lib.id, prefix, prefix, prefix.length + 1, `${prefix}/`) as Array<{ rel_path: string }>;
    const blind = (rel: string) => this.unknownUnder.some((u) => u === '' || rel === u || rel.startsWith(`${u}/`));
    return rows.map((r) => r.rel_path).filter((rel) => !this.seen.has(rel) && !blind(rel));
  }
}

async function run(req: WorkRequest): Promise<void> {
  if (req.type === 'present') {
    const present = await Promise.all(
      req.paths.map((p) =>
        fs.promises.stat(p).then(
          (st) => st.isDirectory(),
          () => false,
        ),
      ),
    );
    send({ type: 'present', job: req.job, present });
    return;
  }
  const job = new Job(req.job, req.library);
  const root = req.library.root;
  let rootStat: fs.Stats | null;
  try {
    rootStat = await fs.promises.stat(root);
  } catch {
    rootStat = null;
  }
  if (!rootStat?.isDirectory()) {
    send({ type: 'done', job: req.job, walked: 0, missing: [], rootMissing: true, rootEmpty: false });
    return;
  }
  const missing: string[] = [];
  if (req.type === 'scan') {
    await job.walk(req.under);
    missing.push(...job.missingUnder(req.under));
  } else {
    for (const rel of new Set(req.paths)) {
      if (rel.split('/').some((part, i, all) => job.excluded(all.slice(0, i + 1).join('/'), part))) continue;
      let st: fs.Stats | null;
      try {
        st = await fs.promises.lstat(path.join(root, rel));
      } catch {
        st = null;
      }
      if (!st) missing.push(...job.missingUnder(rel));
      else if (st.isDirectory()) {
        await job.walk(rel);
        missing.push(...job.missingUnder(rel));
      } else if (st.isFile()) await job.file(rel);
      else if (st.isSymbolicLink()) {
        const dirs: string[] = [];
        await job.link(rel, dirs);
        for (const d of dirs) await job.walk(d);
      }
    }
  }
  await job.flush();
  const rootEmpty = req.type === 'scan' && req.under === '' && (await fs.promises.readdir(root)).length === 0;
  send({ type: 'done', job: req.job, walked: job.walked, missing: [...new Set(missing)], rootMissing: false, rootEmpty });
}

// One job at a time, in the order asked.
let chain = Promise.resolve();
parentPort?.on('message', (req: FsJob) => {
  if (req.type === 'ack') {
    unacknowledged = Math.max(0, unacknowledged - 1);
    acknowledged?.();
    acknowledged = null;
    return;
  }
  chain = chain.then(() => run(req).catch((err: unknown) => send({ type: 'failed', job: req.job, message: (err as Error).message ?? String(err) })));
});
