// The sentence-embedding path with the real all-MiniLM-L6-v2 tokenizer and config from
// ../shared/models-meta and a tiny generated encoder in place of the weights.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from './helpers/server.ts';
import { seededTable, tinyEncoder } from './helpers/tiny-onnx.ts';
import { embedTexts } from '../server/ml/embeddings.ts';

const META = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../shared/models-meta/Xenova/all-MiniLM-L6-v2');
const VOCAB = 30522;
const HIDDEN = 16;

describe('sentence embeddings (tiny encoder, real tokenizer)', () => {
  const root = tempDir('mi-emb-');
  const table = seededTable(VOCAB, HIDDEN);
  let vocab: Map<string, number>;

  beforeAll(() => {
    const dir = path.join(root, 'all-MiniLM-L6-v2');
    fs.mkdirSync(path.join(dir, 'onnx'), { recursive: true });
    for (const f of fs.readdirSync(META)) fs.copyFileSync(path.join(META, f), path.join(dir, f));
    fs.writeFileSync(path.join(dir, 'onnx', 'model_quantized.onnx'), tinyEncoder(table, VOCAB, HIDDEN));
    vocab = new Map(
      fs
        .readFileSync(path.join(META, 'vocab.txt'), 'utf8')
        .split('\n')
        .map((w, i) => [w, i]),
    );
  });
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

  /** What the pipeline must return: the mean of the token rows, unit length. */
  function expected(tokens: string[]): number[] {
    const ids = ['[CLS]', ...tokens, '[SEP]'].map((t) => vocab.get(t) as number);
    const v = Array.from({ length: HIDDEN }, (_, j) => ids.reduce((s, id) => s + table[id * HIDDEN + j], 0) / ids.length);
    const n = Math.hypot(...v);
    return v.map((x) => x / n);
  }

  it('tokenizes with the real WordPiece vocabulary, runs the ONNX graph and mean-pools to unit vectors', async () => {
    const [alice, rabbit] = await embedTexts(root, 'all-MiniLM-L6-v2', ['Alice', 'the White Rabbit']);
    expect(alice).toHaveLength(HIDDEN);
    expect(Math.hypot(...alice)).toBeCloseTo(1, 5);
    Array.from(alice).forEach((x, j) => expect(x).toBeCloseTo(expected(['alice'])[j], 5));
    Array.from(rabbit).forEach((x, j) => expect(x).toBeCloseTo(expected(['the', 'white', 'rabbit'])[j], 5));
  });

  it('gives the same vector for the same text in any batch, and none for no text', async () => {
    const [a] = await embedTexts(root, 'all-MiniLM-L6-v2', ['down the rabbit hole']);
    const [, b] = await embedTexts(root, 'all-MiniLM-L6-v2', ['Alice', 'down the rabbit hole']);
    Array.from(a).forEach((x, j) => expect(x).toBeCloseTo(b[j], 5));
    expect(await embedTexts(root, 'all-MiniLM-L6-v2', [])).toEqual([]);
  });

  it('fails plainly when the model folder lacks the model', async () => {
    await expect(embedTexts(root, 'missing-model', ['x'])).rejects.toThrow();
  });
});
