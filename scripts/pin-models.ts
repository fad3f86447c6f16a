// Writes models/manifest.json: the optional models, each with its hub repository, revision and the
// files the app loads. Files are pinned by size and sha256 where the hashes are known: weights' from
// the upstream list in ../shared/models-meta, configs and tokenizers hashed from the real copies
// there. The others are checked against the hub's published checksums at install
// (docs/models.md). Run: npx tsx scripts/pin-models.ts
import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(fileURLToPath(new URL('.', import.meta.url)), '..');
const META = path.resolve(ROOT, '../shared/models-meta');

const weights = fs
  .readFileSync(path.join(META, 'upstream-weights.tsv'), 'utf8')
  .trim()
  .split('\n')
  .slice(1)
  .map((l) => l.split('\t'))
  .map(([, , p, sha256, size]) => ({ path: p, sha256, size: Number(size) }));

function weight(repo: string, file: string) {
  const w = weights.find((x) => x.path.endsWith(`${repo}/${file}`) || (x.path === file && repo === 'all-MiniLM-L6-v2'));
  if (!w) throw new Error(`no upstream hash for ${repo}/${file}`);
  return { path: file, size: w.size, sha256: w.sha256 };
}

function local(repo: string): Array<{ path: string; size: number; sha256: string }> {
  const dir = path.join(META, 'Xenova', repo);
  return fs
    .readdirSync(dir)
    .filter((f) => f !== 'README.md')
    .sort()
    .map((f) => {
      const data = fs.readFileSync(path.join(dir, f));
      return { path: f, size: data.length, sha256: createHash('sha256').update(data).digest('hex') };
    });
}

/** A file the app loads whose checksum this build does not know: the hub's is verified at install. */
const unpinned = (...paths: string[]) => paths.map((p) => ({ path: p, size: null, sha256: null }));

const manifest = {
  version: 1,
  models: [
    {
      name: 'whisper-tiny',
      stage: 'transcript',
      task: 'automatic-speech-recognition',
      source: 'Xenova/whisper-tiny',
      licence: 'MIT',
      description: 'Speech to text, 99 languages, 39M parameters (8-bit ONNX).',
      repo: 'Xenova/whisper-tiny',
      revision: 'main',
      files: [
        ...local('whisper-tiny'),
        weight('whisper-tiny', 'onnx/encoder_model_quantized.onnx'),
        weight('whisper-tiny', 'onnx/decoder_model_merged_quantized.onnx'),
      ],
    },
    {
      name: 'whisper-base',
      stage: 'transcript',
      task: 'automatic-speech-recognition',
      source: 'Xenova/whisper-base',
      licence: 'MIT',
      description: 'Speech to text, 99 languages, 74M parameters (8-bit ONNX); more accurate than whisper-tiny.',
      repo: 'Xenova/whisper-base',
      revision: 'main',
      files: [
        ...local('whisper-base'),
        weight('whisper-base', 'onnx/encoder_model_quantized.onnx'),
        weight('whisper-base', 'onnx/decoder_model_merged_quantized.onnx'),
      ],
    },
    {
      name: 'all-MiniLM-L6-v2',
      stage: 'embeddings',
      task: 'feature-extraction',
      source: 'Xenova/all-MiniLM-L6-v2',
      licence: 'Apache-2.0',
      description: 'Sentence embeddings (384-d) for passages, transcript windows and queries (8-bit ONNX).',
      repo: 'Xenova/all-MiniLM-L6-v2',
      revision: 'main',
      files: [
        ...local('all-MiniLM-L6-v2'),
        {
          ...weight('all-MiniLM-L6-v2', 'onnx/model_quantized.onnx'),
          // What the encoder feeds and reads: another export (fp32, another int8) is accepted on import.
          interface: {
            format: 'onnx',
            inputs: { input_ids: ['batch', 'sequence'], attention_mask: ['batch', 'sequence'], token_type_ids: ['batch', 'sequence'] },
            outputs: { last_hidden_state: ['batch', 'sequence', 384] },
          },
        },
      ],
    },
    {
      name: 'clip-vit-base-patch32',
      stage: 'embeddings',
      task: 'zero-shot-image-classification',
      source: 'Xenova/clip-vit-base-patch32',
      licence: 'MIT',
      description: 'Image and text embeddings in one space (512-d): image search by description, scene labels.',
      repo: 'Xenova/clip-vit-base-patch32',
      revision: 'main',
      files: [
        ...local('clip-vit-base-patch32'),
        weight('clip-vit-base-patch32', 'onnx/vision_model.onnx'),
        { path: 'onnx/text_model.onnx', size: null, sha256: null },
      ],
    },
    {
      name: 'vit-gpt2-image-captioning',
      stage: 'captions',
      task: 'image-to-text',
      source: 'Xenova/vit-gpt2-image-captioning',
      licence: 'Apache-2.0',
      description: 'A sentence describing a picture or a shot.',
      repo: 'Xenova/vit-gpt2-image-captioning',
      revision: 'main',
      files: unpinned(
        'config.json',
        'generation_config.json',
        'preprocessor_config.json',
        'special_tokens_map.json',
        'tokenizer.json',
        'tokenizer_config.json',
        'vocab.json',
        'merges.txt',
        'onnx/encoder_model_quantized.onnx',
        'onnx/decoder_model_merged_quantized.onnx',
      ),
    },
    {
      name: 'ast-audioset',
      stage: 'sounds',
      task: 'audio-classification',
      source: 'Xenova/ast-finetuned-audioset-10-10-0.4593',
      licence: 'BSD-3-Clause',
      description: 'Sound events with AudioSet labels.',
      repo: 'Xenova/ast-finetuned-audioset-10-10-0.4593',
      revision: 'main',
      files: unpinned('config.json', 'preprocessor_config.json', 'onnx/model_quantized.onnx'),
    },
    {
      name: 'wespeaker-voxceleb-resnet34',
      stage: 'speakers',
      task: 'speaker-embedding',
      source: 'onnx-community/wespeaker-voxceleb-resnet34-LM',
      licence: 'CC-BY-4.0',
      description: 'Voice embeddings to tell speakers apart.',
      repo: 'onnx-community/wespeaker-voxceleb-resnet34-LM',
      revision: 'main',
      files: unpinned('config.json', 'preprocessor_config.json', 'onnx/model.onnx'),
    },
    {
      name: 'owlv2-base-patch16',
      stage: 'objects',
      task: 'zero-shot-object-detection',
      source: 'Xenova/owlv2-base-patch16',
      licence: 'Apache-2.0',
      description: 'Open-vocabulary object detection (logo, sign, chart... and your own phrases).',
      repo: 'Xenova/owlv2-base-patch16',
      revision: 'main',
      files: unpinned(
        'config.json',
        'preprocessor_config.json',
        'special_tokens_map.json',
        'tokenizer.json',
        'tokenizer_config.json',
        'vocab.json',
        'merges.txt',
        'onnx/model_quantized.onnx',
      ),
    },
    {
      name: 'gemma-3-270m-it',
      stage: 'answers',
      task: 'text-generation',
      source: 'google/gemma-3-270m-it (GGUF by unsloth)',
      licence: 'Gemma',
      description: 'Writes answers to chat and recall from the evidence found, with citations; small (0.25 GB), fast on a CPU.',
      repo: 'unsloth/gemma-3-270m-it-GGUF',
      revision: 'main',
      files: [
        {
          path: 'gemma-3-270m-it-Q4_K_M.gguf',
          size: null,
          sha256: null,
          // Any GGUF of Gemma 3 270M (another quantization or packaging) is accepted on import.
          interface: { format: 'gguf', header: { architecture: 'gemma3', embedding_length: 640, block_count: 18 } },
        },
      ],
    },
    {
      name: 'qwen2.5-1.5b-instruct',
      stage: 'answers',
      task: 'text-generation',
      source: 'Qwen/Qwen2.5-1.5B-Instruct-GGUF',
      licence: 'Apache-2.0',
      description: 'Writes better answers than gemma-3-270m-it; 1.1 GB, needs about 2 GB of memory. Used instead of it when installed.',
      repo: 'Qwen/Qwen2.5-1.5B-Instruct-GGUF',
      revision: '91cad51170dc346986eccefdc2dd33a9da36ead9',
      files: [
        {
          path: 'qwen2.5-1.5b-instruct-q4_k_m.gguf',
          size: 1117320736,
          sha256: '6a1a2eb6d15622bf3c96857206351ba97e1af16c30d7a74ee38970e434e9407e',
          interface: { format: 'gguf', header: { architecture: 'qwen2', embedding_length: 1536, block_count: 28 } },
        },
      ],
    },
  ],
};

fs.writeFileSync(path.join(ROOT, 'models', 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
console.log(`wrote ${manifest.models.length} models`);
