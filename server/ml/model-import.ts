// Installing a model without a network: `media-index models import NAME --from DIR` (and
// `POST /models/{name}/import`) copies the files the app loads from a folder or a single file.
// Each file of the manifest is found in the source by its path, its name, or (for a pinned file)
// its checksum. A pinned build is verified against the manifest. Another export of the same model
// (another quantization, another packaging) is accepted for a weights file when its interface is
// the one the app loads: for ONNX the input and output names and the fixed dimensions of their
// shapes, for GGUF the architecture and the sizes written in its header. The files are copied into
// a staging folder and moved into place only when every one is accepted, so a refused import
// leaves the installed model as it was.
import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { runInThread } from '../thread.ts';
import { entryModule } from '../paths.ts';
import { ModelError, RECEIPT, fileOf, modelsDir, sha256, type ModelEntry, type ModelFile, type Receipt } from './models.ts';
import type { InterfaceOf, ModelInterface } from './model-interface.worker.ts';

const WEIGHTS = /\.(onnx|gguf)$/i;
const MAX_SOURCE_FILES = 5000;

export interface ImportResult {
  receipt: Receipt;
  /** For each file: where it came from and how it was accepted. */
  files: Array<{ path: string; from: string; verified_by: 'manifest' | 'interface' | 'import' }>;
}

function listSource(from: string): string[] {
  const st = fs.statSync(from, { throwIfNoEntry: false });
  if (!st) throw new ModelError(`${from} does not exist`);
  if (st.isFile()) return [from];
  if (!st.isDirectory()) throw new ModelError(`${from} is neither a file nor a folder`);
  const out: string[] = [];
  const walk = (dir: string, depth: number) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      if (out.length >= MAX_SOURCE_FILES) throw new ModelError(`${from} holds more than ${MAX_SOURCE_FILES} files; point at the model's own folder`);
      const p = path.join(dir, e.name);
      if (e.isDirectory() && depth < 6 && !e.name.startsWith('.')) walk(p, depth + 1);
      else if (e.isFile()) out.push(p);
    }
  };
  walk(from, 0);
  return out;
}

/** The interface of a weights file, read in a worker thread (parsing a model can take a while). */
export function readInterface(file: string): Promise<InterfaceOf> {
  return runInThread<InterfaceOf>(entryModule('ml/model-interface.worker'), { file });
}

/** Why an interface is not the one the manifest describes, or null when it is. */
export function interfaceProblem(want: ModelInterface, got: InterfaceOf): string | null {
  if ('error' in got) return `cannot be read as a model: ${got.error}`;
  if (want.format !== got.format) return `is ${got.format}, expected ${want.format}`;
  if (want.format === 'gguf' && got.format === 'gguf') {
    for (const [k, v] of Object.entries(want.header)) {
      if (got.header[k] !== v) return `has ${k} = ${String(got.header[k])}, expected ${String(v)}`;
    }
    return null;
  }
  if (want.format === 'onnx' && got.format === 'onnx') {
    for (const side of ['inputs', 'outputs'] as const) {
      for (const [name, shape] of Object.entries(want[side])) {
        const have = got[side][name];
        if (!have) return `has no ${side === 'inputs' ? 'input' : 'output'} named ${name} (it has ${Object.keys(got[side]).join(', ') || 'none'})`;
        if (have.length !== shape.length) return `${name} has ${have.length} dimensions, expected ${shape.length}`;
        for (let i = 0; i < shape.length; i++) {
          if (typeof shape[i] === 'number' && typeof have[i] === 'number' && have[i] !== shape[i])
            return `${name} dimension ${i} is ${String(have[i])}, expected ${String(shape[i])}`;
        }
      }
    }
    return null;
  }
  return 'unknown model format';
}

async function copy(src: string, dst: string): Promise<void> {
  fs.mkdirSync(path.dirname(dst), { recursive: true });
  await pipeline(fs.createReadStream(src), fs.createWriteStream(dst));
}

export async function importModel(dataDir: string, m: ModelEntry, from: string, onStep: (msg: string) => void = () => {}): Promise<ImportResult> {
  const source = path.resolve(from);
  const candidates = listSource(source);
  const sizes = new Map(candidates.map((c) => [c, fs.statSync(c).size]));
  const shaOf = new Map<string, Promise<string>>();
  const shaCached = (c: string) => {
    let p = shaOf.get(c);
    if (!p) shaOf.set(c, (p = sha256(c)));
    return p;
  };
  const rel = (c: string) => (candidates.length === 1 && c === source ? path.basename(c) : path.relative(source, c));

  async function find(f: ModelFile): Promise<string | null> {
    const byPath = candidates.find((c) => rel(c).split(path.sep).join('/') === f.path);
    if (byPath) return byPath;
    const base = path.basename(f.path);
    const byName = candidates.filter((c) => path.basename(c) === base);
    if (byName.length === 1) return byName[0];
    if (f.sha256 && f.size !== null) {
      for (const c of candidates.filter((x) => sizes.get(x) === f.size)) if ((await shaCached(c)) === f.sha256) return c;
    }
    if (WEIGHTS.test(f.path)) {
      const ext = path.extname(f.path).toLowerCase();
      const others = m.files.filter((x) => path.extname(x.path).toLowerCase() === ext);
      const same = candidates.filter((c) => path.extname(c).toLowerCase() === ext);
      if (others.length === 1 && same.length === 1) return same[0];
    }
    return null;
  }

  const chosen: Array<{ f: ModelFile; src: string; sha: string; verified_by: 'manifest' | 'interface' | 'import' }> = [];
  const problems: string[] = [];
  for (const f of m.files) {
    const src = await find(f);
    if (!src) {
      problems.push(`${f.path}: not found in ${source}`);
      continue;
    }
    onStep(`checking ${f.path} (${rel(src)})`);
    const sha = await shaCached(src);
    if (f.sha256 && sha === f.sha256) {
      chosen.push({ f, src, sha, verified_by: 'manifest' });
      continue;
    }
    if (f.interface) {
      const problem = interfaceProblem(f.interface, await readInterface(src));
      if (problem) problems.push(`${f.path}: ${rel(src)} ${problem}`);
      else chosen.push({ f, src, sha, verified_by: 'interface' });
      continue;
    }
    if (f.sha256) {
      problems.push(`${f.path}: ${rel(src)} differs from the pinned file (sha256 ${sha.slice(0, 12)}…, expected ${f.sha256.slice(0, 12)}…)`);
      continue;
    }
    if (WEIGHTS.test(f.path)) {
      const got = await readInterface(src);
      if ('error' in got) {
        problems.push(`${f.path}: ${rel(src)} cannot be read as a model: ${got.error}`);
        continue;
      }
    }
    chosen.push({ f, src, sha, verified_by: 'import' });
  }
  if (problems.length) throw new ModelError(`cannot import ${m.name}:\n  ${problems.join('\n  ')}`);

  const dir = modelsDir(dataDir);
  const staging = path.join(dir, `.${m.name}.import-${process.pid}-${Date.now()}`);
  try {
    for (const c of chosen) {
      onStep(`copying ${c.f.path}`);
      await copy(c.src, fileOf(staging, { name: '' }, c.f));
      if ((await sha256(fileOf(staging, { name: '' }, c.f))) !== c.sha) throw new ModelError(`${c.f.path} changed while it was copied`);
    }
    const pinned = chosen.every((c) => c.verified_by === 'manifest');
    const receipt: Receipt = {
      name: m.name,
      build: pinned ? 'pinned' : 'imported',
      revision: pinned ? (m.revision ?? null) : null,
      source,
      installed_at: new Date().toISOString(),
      files: chosen.map((c) => ({
        path: c.f.path,
        size: sizes.get(c.src) ?? 0,
        sha256: c.sha,
        verified_by: c.verified_by === 'manifest' ? 'manifest' : 'import',
      })),
      ...(pinned
        ? {}
        : {
            note: chosen
              .filter((c) => c.verified_by !== 'manifest')
              .map(
                (c) =>
                  `${c.f.path}: ${c.verified_by === 'interface' ? 'another build, accepted because its interface is the one the app loads' : 'no checksum to check in this build; recorded as found'}`,
              )
              .join('; '),
          }),
    };
    fs.mkdirSync(staging, { recursive: true });
    fs.writeFileSync(path.join(staging, RECEIPT), JSON.stringify(receipt, null, 2));
    const target = path.join(dir, m.name);
    const old = fs.existsSync(target) ? `${target}.old-${Date.now()}` : null;
    if (old) fs.renameSync(target, old);
    fs.renameSync(staging, target);
    if (old) await fs.promises.rm(old, { recursive: true, force: true });
    return { receipt, files: chosen.map((c) => ({ path: c.f.path, from: c.src, verified_by: c.verified_by })) };
  } finally {
    await fs.promises.rm(staging, { recursive: true, force: true });
  }
}
