// One indexer per data folder: a lock file holding the owner's pid. A lock whose process is gone
// is stale and taken over.
import fs from 'node:fs';
import path from 'node:path';

export class DataFolderBusyError extends Error {
  constructor(
    readonly pid: number,
    readonly info: string,
  ) {
    super(`The data folder is in use by process ${pid}${info ? ` (${info})` : ''}.`);
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Takes the lock; returns its release function. `info` is shown to whoever finds it taken. */
export function lockDataFolder(dataDir: string, info: string): () => void {
  const file = path.join(dataDir, 'indexer.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(file, JSON.stringify({ pid: process.pid, info }), { flag: 'wx', mode: 0o600 });
      let released = false;
      return () => {
        if (released) return;
        released = true;
        fs.rmSync(file, { force: true });
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      let holder: { pid?: number; info?: string } = {};
      try {
        holder = JSON.parse(fs.readFileSync(file, 'utf8')) as { pid?: number; info?: string };
      } catch {
        /* unreadable lock: treat as stale */
      }
      if (holder.pid && holder.pid !== process.pid && alive(holder.pid)) {
        throw new DataFolderBusyError(holder.pid, holder.info ?? '');
      }
      fs.rmSync(file, { force: true });
    }
  }
  throw new Error(`Could not take the lock ${file}`);
}
