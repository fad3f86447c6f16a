// The library sync's file-system thread: walks folders, compares what it finds with what the
// library knows (a read-only connection), and reads and hashes only what is new or changed, so the
// thread that answers HTTP never waits on the disk. Writes nothing: the service records its reports.
import fs from 'node:fs';
import path from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { openDatabase } from '../store/db.ts';
import { EXTENSION_KINDS, LEGACY_EXTENSIONS } from '../contract/assets.ts';
import { confirmContent } from '../media/sniff.ts';
import { hashFile } from '../media/hash.ts';
import { AppError, Errors } from '../errors.ts';
import { excluder, type Excluded } from './exclude.ts';
import { withinRoots } from './policy.ts';
import type { FileReport, FsJob, FsMessage, FsThreadData, LibraryRef } from './protocol.ts';

const { dbFile, roots, settleMs } = workerData as FsThreadData;
const db = openDatabase(dbFile, { readonly: true });
const known = db.prepare('SELECT size, mtime_ms, state FROM library_files WHERE library_id = ? AND rel_path = ?');
const knownUnder = db.prepare("SELECT rel_path FROM library_files WHERE library_id = ? AND (? = '' OR rel_path = ? OR substr(rel_path, 1, ?) = ?)");
const BATCH = 500;

const send = (m: FsMessage) => parentPort?.postMessage(m);
const reasonOf = (err: unknown) => {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'EACCES' || code === 'EPERM' ? 'permission denied' : `cannot be read (${code ?? (err as Error).message})`;
};

class Job {
  readonly seen = new Set<string>();
  /** Folders that could not be listed: what the library knew under them is not taken for gone. */
  readonly unknownUnder: string[] = [];
  private batch: FileReport[] = [];
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
    this.batch.push(r);
    if (this.batch.length >= BATCH) this.flush();
  }

  flush(): void {
    if (this.batch.length) send({ type: 'files', job: this.id, files: this.batch });
    this.batch = [];
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
    try {
      for await (const entry of dir) {
        const rel = relDir ? `${relDir}/${entry.name}` : entry.name;
        if (this.excluded(rel, entry.name)) continue;
        if (entry.isDirectory()) dirs.push(rel);
        else if (entry.isFile()) await this.file(rel);
        else if (entry.isSymbolicLink()) await this.link(rel, dirs);
      }
    } catch (err) {
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
    this.seen.add(rel);
    this.walked++;
    if (this.walked % 2000 === 0) send({ type: 'progress', job: this.id, walked: this.walked });
    const abs = path.join(this.lib.root, rel);
    let st: fs.Stats;
    try {
      st = await fs.promises.stat(abs);
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
      const { sha256 } = await hashFile(abs);
      const after = await fs.promises.stat(abs);
      if (after.size !== size || Math.floor(after.mtimeMs) !== mtimeMs)
        return this.report({ rel, kind: 'unsettled', size: after.size, mtimeMs: Math.floor(after.mtimeMs) });
      const mime = await confirmContent(abs, ext, kind);
      this.report({ rel, kind: 'file', size, mtimeMs, sha256, mime, ext });
    } catch (err) {
      if (err instanceof AppError) refuse(err.message);
      else this.report({ rel, kind: 'unreadable', reason: reasonOf(err) });
    }
  }

  /** Known paths under `prefix` ('' = all) that were not seen, except under folders that could not be read. */
  missingUnder(prefix: string): string[] {
    const rows = knownUnder.all(this.lib.id, prefix, prefix, prefix.length + 1, `${prefix}/`) as Array<{ rel_path: string }>;
    const blind = (rel: string) => this.unknownUnder.some((u) => u === '' || rel === u || rel.startsWith(`${u}/`));
    return rows.map((r) => r.rel_path).filter((rel) => !this.seen.has(rel) && !blind(rel));
  }
}

async function run(req: FsJob): Promise<void> {
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
  job.flush();
  const rootEmpty = req.type === 'scan' && req.under === '' && (await fs.promises.readdir(root)).length === 0;
  send({ type: 'done', job: req.job, walked: job.walked, missing: [...new Set(missing)], rootMissing: false, rootEmpty });
}

// One job at a time, in the order asked.
let chain = Promise.resolve();
parentPort?.on('message', (req: FsJob) => {
  chain = chain.then(() => run(req).catch((err: unknown) => send({ type: 'failed', job: req.job, message: (err as Error).message ?? String(err) })));
});
