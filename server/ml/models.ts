// The model manager: the optional models of models/manifest.json, each the files the app loads
// from a model hub repository (`repo`, at `revision`: a commit where one is pinned, else `main`).
// Downloaded only on request into the models folder (model-download.ts), imported from a folder
// for machines without a network (model-import.ts). Every install leaves a receipt beside the
// files: the build (pinned, hub, imported), the revision it resolved and each file's size and
// sha256 as verified, which `verify` checks later. Stages ask `isInstalled(name)`; a stage whose
// model is missing reports `model_not_installed: NAME`.
import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { pipeline } from 'node:stream/promises';
import type { ModelInterface } from './model-interface.worker.ts';
import { fromRoot } from '../paths.ts';
import { env } from '../config.ts';
import { executionProvider } from './providers.ts';

const require = createRequire(import.meta.url);

export interface ModelFile {
  path: string;
  /** Pinned size and sha256, where the build knows them; else the hub's published checksum is verified. */
  size: number | null;
  sha256: string | null;
  /** For a weights file: the interface the app loads, against which another build is accepted on import. */
  interface?: ModelInterface;
}

export interface ModelEntry {
  name: string;
  stage: string;
  task: string;
  source: string;
  licence: string;
  description: string;
  /** The hub repository (`owner/name`) the files come from. */
  repo?: string;
  /** A commit of that repository where one is pinned; `main` (the default) otherwise. */
  revision?: string;
  /** Where the files are, when not on the hub (a manifest of the user's own). */
  base_url?: string;
  files: ModelFile[];
}

interface Manifest {
  version: number;
  models: ModelEntry[];
}

const BUNDLED: Manifest = require(fromRoot('models', 'manifest.json'));
let local: { file: string; mtimeMs: number; manifest: Manifest } | null = null;

/**
 * The bundled manifest, with the entries of `MEDIA_INDEX_MODEL_MANIFEST` (a JSON file of the same
 * shape) taking the place of those of the same name: a model exported or quantized another way,
 * pinned by its user with its own sizes and checksums. The file is read again when it changes.
 */
export function manifest(): Manifest {
  const file = env.modelManifest;
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

/** Every file's size and sha256 written in the manifest. */
export function isPinned(m: ModelEntry): boolean {
  return m.files.length > 0 && m.files.every((f) => f.size !== null && f.sha256 !== null);
}

/** Whether the files can be fetched: a hub repository or an address to fetch them from. */
export function isDownloadable(m: ModelEntry): boolean {
  return m.files.length > 0 && Boolean(m.repo || m.base_url);
}

/** Every optional model with its state here, and the execution provider models run on (GET /models, `models list`). */
export function modelsCatalogue(dataDir: string) {
  const dir = modelsDir(dataDir);
  return { dir, models: manifest().models.map((m) => modelStatus(dir, m)), provider: executionProvider() };
}

/** The models folder: MEDIA_INDEX_MODELS, else `models` in the data folder. */
export function modelsDir(dataDir: string): string {
  return env.modelsDir ?? path.join(dataDir, 'models');
}

export function fileOf(dir: string, m: Pick<ModelEntry, 'name'>, f: Pick<ModelFile, 'path'>): string {
  const p = path.resolve(dir, m.name, f.path);
  if (!p.startsWith(path.resolve(dir, m.name) + path.sep)) throw new Error(`bad path in manifest: ${f.path}`);
  return p;
}

/** How a file's bytes were checked when it was installed. */
export type VerifiedBy = 'manifest' | 'hub-sha256' | 'hub-git-blob' | 'import';

/** What an install wrote beside the files (`install-receipt.json`). */
export interface Receipt {
  name: string;
  /** `pinned`: every file matched the manifest; `hub`: checked against the hub's published checksums; `imported`: from a folder. */
  build: 'pinned' | 'hub' | 'imported';
  /** The commit the files came from (the hub's `X-Repo-Commit`), when known. */
  revision: string | null;
  /** Where the files came from: a URL or the folder imported from. */
  source: string;
  installed_at: string;
  files: Array<{ path: string; size: number; sha256: string; verified_by: VerifiedBy }>;
  /** For an imported build that is not the pinned one: how it was accepted. */
  note?: string;
}

export const RECEIPT = 'install-receipt.json';

export function readReceipt(dir: string, name: string): Receipt | null {
  try {
    return JSON.parse(fs.readFileSync(path.join(dir, name, RECEIPT), 'utf8')) as Receipt;
  } catch {
    return null;
  }
}

export function writeReceipt(dir: string, r: Receipt): void {
  fs.mkdirSync(path.join(dir, r.name), { recursive: true });
  const file = path.join(dir, r.name, RECEIPT);
  fs.writeFileSync(`${file}.tmp`, JSON.stringify(r, null, 2));
  fs.renameSync(`${file}.tmp`, file);
}

export interface ModelStatus extends Pick<ModelEntry, 'name' | 'stage' | 'task' | 'source' | 'licence' | 'description'> {
  downloadable: boolean;
  /** Every file's checksum is written in this build's manifest. */
  pinned: boolean;
  installed: boolean;
  /** The build installed (pinned, hub, imported), or null. */
  build: Receipt['build'] | null;
  /** The commit installed from, when known. */
  revision: string | null;
  /** Bytes of the files whose size is known (the manifest's, else the receipt's). */
  size_bytes: number;
  missing: string[];
}

/**
 * Installed = every file present with the size it was installed (or pinned) with. A model whose
 * files are not all pinned counts as installed only with a receipt (a verified download or an
 * import); hashes are checked by pull, import and verify.
 */
export function modelStatus(dir: string, m: ModelEntry): ModelStatus {
  const receipt = readReceipt(dir, m.name);
  // What the install recorded comes first: an imported build's files differ from the pinned ones.
  const sizeOf = (f: ModelFile) => receipt?.files.find((r) => r.path === f.path)?.size ?? f.size ?? null;
  const missing = m.files
    .filter((f) => {
      const st = fs.statSync(fileOf(dir, m, f), { throwIfNoEntry: false });
      const size = sizeOf(f);
      return !st || (size !== null && st.size !== size) || (size === null && !receipt);
    })
    .map((f) => f.path);
  const installed = m.files.length > 0 && missing.length === 0 && (isPinned(m) || receipt !== null);
  return {
    name: m.name,
    stage: m.stage,
    task: m.task,
    source: m.source,
    licence: m.licence,
    description: m.description,
    downloadable: isDownloadable(m),
    pinned: isPinned(m),
    installed,
    build: installed ? (receipt?.build ?? 'pinned') : null,
    revision: installed ? (receipt ? receipt.revision : (m.revision ?? null)) : null,
    size_bytes: m.files.reduce((n, f) => n + (sizeOf(f) ?? 0), 0),
    missing: m.files.length === 0 ? ['(no files listed in this build)'] : missing,
  };
}

export function isInstalled(dataDir: string, name: string): boolean {
  const m = modelEntry(name);
  return m !== undefined && modelStatus(modelsDir(dataDir), m).installed;
}

export async function sha256(file: string): Promise<string> {
  const h = createHash('sha256');
  await pipeline(fs.createReadStream(file), h);
  return h.digest('hex');
}

/** The git blob id of a file (what the hub sends as the ETag of a file not kept in LFS). */
export async function gitBlobId(file: string): Promise<string> {
  const h = createHash('sha1');
  h.update(`blob ${fs.statSync(file).size}\0`);
  await pipeline(fs.createReadStream(file), h);
  return h.digest('hex');
}

export class ModelError extends Error {}

export function requireModel(name: string): ModelEntry {
  const m = modelEntry(name);
  if (!m) throw new ModelError(`unknown model ${name}; see \`media-index models list\``);
  return m;
}

/** Checks installed files against the checksums the install verified and recorded, else the manifest's. */
export async function verifyModel(dataDir: string, m: ModelEntry): Promise<Array<{ path: string; ok: boolean; problem?: string }>> {
  const dir = modelsDir(dataDir);
  const receipt = readReceipt(dir, m.name);
  const out = [];
  for (const f of m.files) {
    const file = fileOf(dir, m, f);
    const recorded = receipt?.files.find((r) => r.path === f.path);
    const want = { size: recorded?.size ?? f.size ?? null, sha256: recorded?.sha256 ?? f.sha256 ?? null };
    const st = fs.statSync(file, { throwIfNoEntry: false });
    if (!st) out.push({ path: f.path, ok: false, problem: 'missing' });
    else if (want.sha256 === null) out.push({ path: f.path, ok: false, problem: 'no checksum to check against (not installed by pull or import)' });
    else if (want.size !== null && st.size !== want.size) out.push({ path: f.path, ok: false, problem: `size ${st.size}, expected ${want.size}` });
    else if ((await sha256(file)) !== want.sha256) out.push({ path: f.path, ok: false, problem: 'checksum differs' });
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
