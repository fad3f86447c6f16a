// The model manager: optional models pinned in models/manifest.json (every file with its size and
// sha256), downloaded only on request into the models folder, with resume and verification.
// Stages ask `isInstalled(name)`; a stage whose model is missing reports `model_not_installed: NAME`.
import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

const require = createRequire(import.meta.url);

export interface ModelFile {
  path: string;
  size: number | null;
  sha256: string | null;
}

export interface ModelEntry {
  name: string;
  stage: string;
  task: string;
  source: string;
  licence: string;
  description: string;
  base_url: string;
  files: ModelFile[];
}

interface Manifest {
  version: number;
  models: ModelEntry[];
}

const BUNDLED: Manifest = require('../../models/manifest.json');
let local: { file: string; mtimeMs: number; manifest: Manifest } | null = null;

/**
 * The bundled manifest, with the entries of `MEDIA_INDEX_MODEL_MANIFEST` (a JSON file of the same
 * shape) taking the place of those of the same name: a model exported or quantized another way,
 * pinned by its user with its own sizes and checksums. The file is read again when it changes.
 */
export function manifest(): Manifest {
  const file = process.env.MEDIA_INDEX_MODEL_MANIFEST;
  if (!file) return BUNDLED;
  const mtimeMs = fs.statSync(file).mtimeMs;
  if (local?.file !== file || local.mtimeMs !== mtimeMs) {
    const extra = JSON.parse(fs.readFileSync(file, 'utf8')) as Manifest;
    const names = new Set(extra.models.map((m) => m.name));
    local = { file, mtimeMs, manifest: { version: BUNDLED.version, models: [...BUNDLED.models.filter((m) => !names.has(m.name)), ...extra.models] } };
  }
  return local.manifest;
}

export function modelEntry(name: string): ModelEntry | undefined {
  return manifest().models.find((m) => m.name === name);
}

/** A model can be downloaded when every one of its files is pinned. */
export function isPinned(m: ModelEntry): boolean {
  return m.files.length > 0 && m.files.every((f) => f.size !== null && f.sha256 !== null);
}

/** The models folder: MEDIA_INDEX_MODELS, else `models` in the data folder. */
export function modelsDir(dataDir: string): string {
  return process.env.MEDIA_INDEX_MODELS || path.join(dataDir, 'models');
}

function fileOf(dir: string, m: ModelEntry, f: ModelFile): string {
  const p = path.resolve(dir, m.name, f.path);
  if (!p.startsWith(path.resolve(dir, m.name) + path.sep)) throw new Error(`bad path in manifest: ${f.path}`);
  return p;
}

export interface ModelStatus extends Pick<ModelEntry, 'name' | 'stage' | 'task' | 'source' | 'licence' | 'description'> {
  downloadable: boolean;
  installed: boolean;
  size_bytes: number;
  missing: string[];
}

/** Installed = every pinned file present with its size (hashes are checked by pull and verify). */
export function modelStatus(dir: string, m: ModelEntry): ModelStatus {
  const missing = m.files
    .filter((f) => {
      const st = fs.statSync(fileOf(dir, m, f), { throwIfNoEntry: false });
      return !st || (f.size !== null && st.size !== f.size);
    })
    .map((f) => f.path);
  return {
    name: m.name,
    stage: m.stage,
    task: m.task,
    source: m.source,
    licence: m.licence,
    description: m.description,
    downloadable: isPinned(m),
    installed: isPinned(m) && missing.length === 0,
    size_bytes: m.files.reduce((n, f) => n + (f.size ?? 0), 0),
    missing: m.files.length === 0 ? ['(no files pinned in this build)'] : missing,
  };
}

export function isInstalled(dataDir: string, name: string): boolean {
  const m = modelEntry(name);
  return m !== undefined && modelStatus(modelsDir(dataDir), m).installed;
}

async function sha256(file: string): Promise<string> {
  const h = createHash('sha256');
  await pipeline(fs.createReadStream(file), h);
  return h.digest('hex');
}

export class ModelError extends Error {}

export interface PullProgress {
  file: string;
  received: number;
  total: number;
}

/**
 * Downloads a pinned model: each file into `<file>.part`, resumed with a Range request when a part
 * exists, checked against its size and sha256, then moved into place. Files already present and
 * correct are kept.
 */
export function requireModel(name: string): ModelEntry {
  const m = modelEntry(name);
  if (!m) throw new ModelError(`unknown model ${name}; see \`media-index models list\``);
  return m;
}

export async function pullModel(
  dataDir: string,
  m: ModelEntry,
  opts: { fetch?: typeof fetch; onProgress?: (p: PullProgress) => void; baseUrl?: string } = {},
): Promise<void> {
  const name = m.name;
  if (!isPinned(m)) throw new ModelError(`${name} has files without a pinned size and checksum in this build, so it cannot be downloaded safely`);
  const doFetch = opts.fetch ?? fetch;
  const dir = modelsDir(dataDir);
  const total = m.files.reduce((n, f) => n + (f.size as number), 0);
  let done = 0;
  for (const f of m.files) {
    const target = fileOf(dir, m, f);
    await fs.promises.mkdir(path.dirname(target), { recursive: true });
    const st = fs.statSync(target, { throwIfNoEntry: false });
    if (st?.size === f.size && (await sha256(target)) === f.sha256) {
      done += f.size as number;
      opts.onProgress?.({ file: f.path, received: done, total });
      continue;
    }
    const part = `${target}.part`;
    let have = fs.statSync(part, { throwIfNoEntry: false })?.size ?? 0;
    if (have > (f.size as number)) {
      await fs.promises.rm(part);
      have = 0;
    }
    if (have < (f.size as number)) {
      const url = new URL(f.path, opts.baseUrl ?? m.base_url).href;
      const res = await doFetch(url, { headers: have > 0 ? { Range: `bytes=${have}-` } : {} });
      if (!res.ok || !res.body) throw new ModelError(`download of ${f.path} failed: HTTP ${res.status}`);
      const resumed = res.status === 206;
      if (!resumed) have = 0;
      const out = fs.createWriteStream(part, { flags: resumed ? 'a' : 'w' });
      let received = have;
      const counted = Readable.fromWeb(res.body as import('node:stream/web').ReadableStream).on('data', (c: Buffer) => {
        received += c.length;
        opts.onProgress?.({ file: f.path, received: done + received, total });
      });
      await pipeline(counted, out);
    }
    const size = fs.statSync(part).size;
    if (size !== f.size || (await sha256(part)) !== f.sha256) {
      await fs.promises.rm(part, { force: true });
      throw new ModelError(`${f.path} does not match its pinned checksum; the partial file was removed, run pull again`);
    }
    await fs.promises.rename(part, target);
    done += f.size as number;
  }
}

export async function verifyModel(dataDir: string, m: ModelEntry): Promise<Array<{ path: string; ok: boolean; problem?: string }>> {
  const dir = modelsDir(dataDir);
  const out = [];
  for (const f of m.files) {
    const file = fileOf(dir, m, f);
    const st = fs.statSync(file, { throwIfNoEntry: false });
    if (!st) out.push({ path: f.path, ok: false, problem: 'missing' });
    else if (f.sha256 === null) out.push({ path: f.path, ok: false, problem: 'not pinned' });
    else if (st.size !== f.size) out.push({ path: f.path, ok: false, problem: `size ${st.size}, expected ${f.size}` });
    else if ((await sha256(file)) !== f.sha256) out.push({ path: f.path, ok: false, problem: 'checksum differs' });
    else out.push({ path: f.path, ok: true });
  }
  return out;
}

export async function removeModel(dataDir: string, m: ModelEntry): Promise<boolean> {
  const dir = path.join(modelsDir(dataDir), m.name);
  const existed = fs.existsSync(dir);
  await fs.promises.rm(dir, { recursive: true, force: true });
  return existed;
}
