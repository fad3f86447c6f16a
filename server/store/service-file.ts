// While `serve` (or the desktop app) runs, the data folder holds service.json: its process id and
// address, so the CLI can hand work to the running service instead of opening the folder itself.
import fs from 'node:fs';
import path from 'node:path';

const FILE = 'service.json';

export function writeServiceFile(dataDir: string, url: string): () => void {
  const file = path.join(dataDir, FILE);
  fs.writeFileSync(file, JSON.stringify({ pid: process.pid, url }), { mode: 0o600 });
  return () => {
    try {
      if ((JSON.parse(fs.readFileSync(file, 'utf8')) as { pid?: number }).pid === process.pid) fs.rmSync(file, { force: true });
    } catch {
      /* already gone */
    }
  };
}

/** The running service of this data folder, if there is one (its process is alive). */
export function runningService(dataDir: string): { pid: number; url: string } | null {
  try {
    const s = JSON.parse(fs.readFileSync(path.join(dataDir, FILE), 'utf8')) as { pid?: number; url?: string };
    if (!s.pid || !s.url) return null;
    process.kill(s.pid, 0);
    return { pid: s.pid, url: s.url };
  } catch {
    return null;
  }
}
