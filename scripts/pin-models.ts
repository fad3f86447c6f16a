// Writes models/manifest.json: the optional models, each file pinned by size and sha256. Weights'
// hashes come from the upstream list in ../shared/models-meta; configs and tokenizers are hashed
// from the real copies there. Run: npx tsx scripts/pin-models.ts
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

const hf = (repo: string) => `https://huggingface.co/${repo}/resolve/main/`;

const manifest = {
  version: 1,
  note: 'Optional models, downloaded on request with `media-index models pull NAME`; every file is checked against its size and sha256.',
  models: [
    {
      name: 'whisper-tiny',
      stage: 'transcript',
      task: 'automatic-speech-recognition',
      source: 'Xenova/whisper-tiny',
      licence: 'MIT',
      description: 'Speech to text, 99 languages, 39M parameters (8-bit ONNX).',
      base_url: hf('Xenova/whisper-tiny'),
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
      base_url: hf('Xenova/whisper-base'),
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
      base_url: hf('Xenova/all-MiniLM-L6-v2'),
      files: [...local('all-MiniLM-L6-v2'), weight('all-MiniLM-L6-v2', 'onnx/model_quantized.onnx')],
    },
    {
      name: 'clip-vit-base-patch32',
      stage: 'embeddings',
      task: 'zero-shot-image-classification',
      source: 'Xenova/clip-vit-base-patch32',
      licence: 'MIT',
      description: 'Image and text embeddings in one space (512-d): image search by description, scene labels.',
      base_url: hf('Xenova/clip-vit-base-patch32'),
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
      base_url: hf('Xenova/vit-gpt2-image-captioning'),
      files: [],
    },
    {
      name: 'ast-audioset',
      stage: 'sounds',
      task: 'audio-classification',
      source: 'Xenova/ast-finetuned-audioset-10-10-0.4593',
      licence: 'BSD-3-Clause',
      description: 'Sound events with AudioSet labels.',
      base_url: hf('Xenova/ast-finetuned-audioset-10-10-0.4593'),
      files: [],
    },
    {
      name: 'wespeaker-voxceleb-resnet34',
      stage: 'speakers',
      task: 'speaker-embedding',
      source: 'onnx-community/wespeaker-voxceleb-resnet34-LM',
      licence: 'CC-BY-4.0',
      description: 'Voice embeddings to tell speakers apart.',
      base_url: hf('onnx-community/wespeaker-voxceleb-resnet34-LM'),
      files: [],
    },
    {
      name: 'owlv2-base-patch16',
      stage: 'objects',
      task: 'zero-shot-object-detection',
      source: 'Xenova/owlv2-base-patch16',
      licence: 'Apache-2.0',
      description: 'Open-vocabulary object detection (logo, sign, chart... and your own phrases).',
      base_url: hf('Xenova/owlv2-base-patch16'),
      files: [],
    },
  ],
};

fs.writeFileSync(path.join(ROOT, 'models', 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
console.log(`wrote ${manifest.models.length} models`);
