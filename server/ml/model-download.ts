// Downloading a model from its hub repository (or a mirror with the same layout,
// MEDIA_INDEX_MODEL_MIRROR). First each file's metadata is asked for (HEAD, redirects not
// followed, as the hub answers it): the commit `main` stands at (`X-Repo-Commit`: the rest of the
// download asks for that commit, so every file comes from one revision), the size, and the
// checksum the hub publishes — the sha256 of a file kept in LFS (`X-Linked-Etag`) or the git blob
// id of a small file (`ETag`). Then each file downloads into `<file>.part`, resumed with a Range
// request when a part exists, and is checked against the manifest's sha256 where the build pins
// one, else against the hub's checksum; a file that does not match is removed and the install
// fails. The receipt records the revision and each file's verified sha256.
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream } from 'node:stream/web';
import {
  fileOf,
  gitBlobId,
  isDownloadable,
  isPinned,
  ModelError,
  modelsDir,
  readReceipt,
  sha256,
  writeReceipt,
  type ModelEntry,
  type ModelFile,
  type Receipt,
  type VerifiedBy,
} from './models.ts';
import { env } from '../config.ts';

/** The public model hub the manifest's repositories are on. */
export const HUB = 'https://huggingface.co';

export interface PullProgress {
  file: string;
  received: number;
  total: number;
}

export interface PullOptions {
  fetch?: typeof fetch;
  onProgress?: (p: PullProgress) => void;
  /** A mirror with the hub's layout (`<mirror>/<repo>/resolve/<revision>/<file>`); else MEDIA_INDEX_MODEL_MIRROR, else the hub. */
  mirror?: string;
}

/** Where a revision's files are. */
export function filesBase(m: ModelEntry, revision: string, mirror?: string): string {
  if (m.base_url && !m.repo) return m.base_url;
  const origin = (mirror ?? env.modelMirror ?? HUB).replace(/\/+$/, '');
  return `${origin}/${m.repo}/resolve/${encodeURIComponent(revision)}/`;
}

interface Remote {
  url: string;
  commit: string | null;
  size: number | null;
  /** The checksum the host publishes for the file. */
  sha256: string | null;
  gitBlob: string | null;
}

const unquote = (v: string | null) => (v ?? '').replace(/^W\//, '').replace(/"/g, '').trim().toLowerCase();

/** The file's metadata as the hub gives it, following only redirects within the hub (a renamed repository). */
async function remoteOf(doFetch: typeof fetch, url: string): Promise<Remote> {
  let at = url;
  for (let hop = 0; hop < 4; hop++) {
    const res = await doFetch(at, { method: 'HEAD', redirect: 'manual' });
    const h = res.headers;
    const location = h.get('location');
    const linked = unquote(h.get('x-linked-etag'));
    const etag = unquote(h.get('etag'));
    // A redirect within the hub (not to the file store) is followed; one to the file store carries the file's metadata.
    if (res.status >= 300 && res.status < 400 && location && !linked && new URL(location, at).origin === new URL(at).origin) {
      at = new URL(location, at).href;
      continue;
    }
    if (res.status >= 400) throw new ModelError(`${url} answered HTTP ${res.status}`);
    const size = Number(h.get('x-linked-size') ?? (res.status === 200 ? h.get('content-length') : null));
    return {
      url: at,
      commit: h.get('x-repo-commit'),
      size: Number.isFinite(size) && size > 0 ? size : null,
      sha256: /^[0-9a-f]{64}$/.test(linked) ? linked : /^[0-9a-f]{64}$/.test(etag) ? etag : null,
      gitBlob: !linked && /^[0-9a-f]{40}$/.test(etag) ? etag : null,
    };
  }
  throw new ModelError(`${url}: too many redirects`);
}

async function download(doFetch: typeof fetch, url: string, part: string, size: number | null, onBytes: (n: number) => void): Promise<void> {
  let have = fs.statSync(part, { throwIfNoEntry: false })?.size ?? 0;
  if (size !== null && have > size) {
    await fs.promises.rm(part);
    have = 0;
  }
  if (size !== null && have === size) return onBytes(have);
  const res = await doFetch(url, { headers: have > 0 ? { Range: `bytes=${have}-` } : {} });
  if (!res.ok || !res.body) throw new ModelError(`download of ${url} failed: HTTP ${res.status}`);
  const resumed = res.status === 206;
  if (!resumed) have = 0;
  onBytes(have);
  const out = fs.createWriteStream(part, { flags: resumed ? 'a' : 'w' });
  let received = have;
  const counted = Readable.fromWeb(res.body as ReadableStream).on('data', (c: Buffer) => {
    received += c.length;
    onBytes(received);
  });
  await pipeline(counted, out);
}

/** Checks a downloaded file; the reason it does not match, or null. */
async function mismatch(file: string, f: ModelFile, remote: Remote): Promise<{ problem: string } | { sha: string; by: VerifiedBy }> {
  const size = fs.statSync(file).size;
  const wantSize = f.size ?? remote.size;
  if (wantSize !== null && size !== wantSize) return { problem: `${size} bytes, expected ${wantSize}` };
  const sha = await sha256(file);
  if (f.sha256 !== null) return sha === f.sha256 ? { sha, by: 'manifest' } : { problem: 'does not match the checksum pinned in this build' };
  if (remote.sha256 !== null) return sha === remote.sha256 ? { sha, by: 'hub-sha256' } : { problem: 'does not match the sha256 the host publishes for it' };
  if (remote.gitBlob !== null)
    return (await gitBlobId(file)) === remote.gitBlob ? { sha, by: 'hub-git-blob' } : { problem: 'does not match the checksum the host publishes for it' };
  return { problem: 'the host publishes no checksum for it, and this build pins none' };
}

/** Downloads a model (see the top of this file). Files already in place and matching are kept. */
export async function pullModel(dataDir: string, m: ModelEntry, opts: PullOptions = {}): Promise<Receipt> {
  if (!isDownloadable(m)) throw new ModelError(`${m.name} lists no files to download in this build`);
  const doFetch = opts.fetch ?? fetch;
  const dir = modelsDir(dataDir);
  const previous = readReceipt(dir, m.name);

  // Which commit: the pinned one, else where `main` stands now (asked once, with the first file).
  let revision = m.revision ?? 'main';
  const remotes: Remote[] = [];
  for (const f of m.files) {
    const r = await remoteOf(doFetch, new URL(f.path, filesBase(m, revision, opts.mirror)).href);
    if (r.commit && revision === 'main' && m.repo) revision = r.commit;
    else if (r.commit && remotes[0]?.commit && r.commit !== remotes[0].commit && !m.repo)
      throw new ModelError(`${m.name}: the files come from two revisions (${remotes[0].commit}, ${r.commit}); try again`);
    remotes.push(r);
  }
  const sizes = m.files.map((f, i) => f.size ?? remotes[i].size ?? 0);
  const total = sizes.reduce((a, b) => a + b, 0);
  let done = 0;
  const files: Receipt['files'] = [];
  for (const [i, f] of m.files.entries()) {
    const target = fileOf(dir, m, f);
    await fs.promises.mkdir(path.dirname(target), { recursive: true });
    const remote = remotes[i];
    const url = m.repo ? new URL(f.path, filesBase(m, revision, opts.mirror)).href : remote.url;
    // Already in place: kept when it matches what it should be.
    if (fs.existsSync(target)) {
      const known = f.sha256 ?? (previous?.revision === (remote.commit ?? revision) ? previous?.files.find((x) => x.path === f.path)?.sha256 : undefined);
      const check = known
        ? (await sha256(target)) === known
          ? { sha: known, by: f.sha256 ? ('manifest' as const) : ('hub-sha256' as const) }
          : null
        : await mismatch(target, f, remote);
      if (check && 'sha' in check) {
        files.push({ path: f.path, size: fs.statSync(target).size, sha256: check.sha, verified_by: check.by });
        done += sizes[i];
        opts.onProgress?.({ file: f.path, received: done, total });
        continue;
      }
    }
    const part = `${target}.part`;
    await download(doFetch, url, part, f.size ?? remote.size, (n) => opts.onProgress?.({ file: f.path, received: done + n, total }));
    const check = await mismatch(part, f, remote);
    if ('problem' in check) {
      await fs.promises.rm(part, { force: true });
      throw new ModelError(`${m.name}/${f.path} ${check.problem}; the download was removed, nothing of it is used`);
    }
    await fs.promises.rename(part, target);
    files.push({ path: f.path, size: fs.statSync(target).size, sha256: check.sha, verified_by: check.by });
    done += sizes[i];
  }
  const receipt: Receipt = {
    name: m.name,
    build: isPinned(m) ? 'pinned' : 'hub',
    revision: m.repo ? revision : (remotes[0]?.commit ?? m.revision ?? null),
    source: m.repo ? filesBase(m, revision, opts.mirror) : (m.base_url as string),
    installed_at: new Date().toISOString(),
    files,
  };
  writeReceipt(dir, receipt);
  return receipt;
}
