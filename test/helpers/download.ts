// A file from the network, once: kept at `file` when its SHA-256 is the one expected.
import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';

/** `file`, fetched from `url` unless already there, checked against `sha256` (a mismatch is removed and thrown). */
export async function downloadChecked(url: string, file: string, sha256: string): Promise<string> {
  if (!fs.existsSync(file)) {
    const res = await fetch(url);
    if (!res.ok) throw new Error(`could not fetch ${url}: HTTP ${res.status}`);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(`${file}.part`, Buffer.from(await res.arrayBuffer()));
    fs.renameSync(`${file}.part`, file);
  }
  const sum = createHash('sha256').update(fs.readFileSync(file)).digest('hex');
  if (sum !== sha256) {
    fs.rmSync(file, { force: true });
    throw new Error(`${path.basename(file)}: SHA-256 ${sum}, expected ${sha256}`);
  }
  return file;
}
