// Human's TensorFlow.js graphs written as ONNX (server/ml/tfjs-onnx.ts) and run by ONNX Runtime
// (server/ml/human-onnx.ts): each packaged network gives what TensorFlow.js gives for the same real
// picture, output for output; a graph with an operator that is not written is refused and stays on
// TensorFlow.js.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { corpus } from './helpers/corpus.ts';
import { HUMAN_MODELS_DIR } from '../server/ml/human.ts';
import { OrtGraph, defaultOutputs, ortGraph, type GraphModelLike, type TfLike } from '../server/ml/human-onnx.ts';
import { readTfWeights, tfjsToOnnx, type TfModelJson } from '../server/ml/tfjs-onnx.ts';

const require = createRequire(import.meta.url);
const { Human } = require(path.join(path.dirname(require.resolve('@vladmandic/human')), 'human.node-wasm.js'));

interface TfTensor {
  shape: number[];
  dataSync(): Float32Array;
  dispose(): void;
}
interface Tf extends TfLike {
  setBackend(name: string): Promise<boolean>;
  tensor(values: Float32Array | Int32Array, shape: number[], dtype?: string): TfTensor;
  loadGraphModel(handler: { load(): Promise<object> }): Promise<GraphModelLike & { inputs: Array<{ shape: number[] }> }>;
}

/** TensorFlow.js's own GraphModel of a packaged model.json, its weights given from memory. */
async function tfjsModel(tf: Tf, file: string) {
  const json = JSON.parse(fs.readFileSync(file, 'utf8')) as TfModelJson & { signature?: object; format?: string };
  const data = Buffer.concat(json.weightsManifest.flatMap((g) => g.paths.map((p) => fs.readFileSync(path.join(path.dirname(file), p)))));
  return tf.loadGraphModel({
    load: async () => ({
      modelTopology: json.modelTopology,
      signature: json.signature,
      format: json.format,
      weightSpecs: json.weightsManifest.flatMap((g) => g.weights),
      weightData: data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength),
    }),
  });
}

/** A real photo as a [1, side, side, 3] input in 0..1 (0..255 for CenterNet, as Human gives them). */
async function photoInput(tf: Tf, side: number, range = 1): Promise<TfTensor> {
  const { data } = await sharp(corpus('faces/face-api-samples/sample1.jpg'))
    .resize(side, side, { fit: 'fill' })
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  return tf.tensor(
    Float32Array.from(data, (v) => (v / 255) * range),
    [1, side, side, 3],
  );
}

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'mi-human-onnx-'));
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

describe("Human's networks on ONNX Runtime", () => {
  it('each packaged network gives what TensorFlow.js gives on a real photo, output for output', async () => {
    const h = new Human({
      backend: 'wasm',
      wasmPath: `${path.dirname(require.resolve('@tensorflow/tfjs-backend-wasm'))}/`,
      face: { enabled: false },
      object: { enabled: false },
    });
    await h.init();
    const tf = h.tf as Tf;
    const cases: Array<[string, number, string[] | undefined]> = [
      ['blazeface', 256, undefined],
      ['facemesh', 192, undefined],
      ['faceres', 224, undefined],
      ['emotion', 64, undefined],
      ['centernet', 512, undefined],
      ['centernet', 512, ['tower_0/detections']], // as Human asks for its detections
    ];
    for (const [name, side, outputs] of cases) {
      const file = path.join(HUMAN_MODELS_DIR, `${name}.json`);
      const model = await tfjsModel(tf, file);
      let x = await photoInput(tf, side, name === 'centernet' ? 255 : 1);
      if (name === 'emotion') {
        // A grey picture, as Human gives it.
        const grey = Float32Array.from({ length: side * side }, (_, i) => x.dataSync()[i * 3]);
        x = tf.tensor(grey, [1, side, side, 1]);
      }
      const want = [model.execute(x, outputs)].flat() as TfTensor[];
      const got = [new OrtGraph(`test/${name}`, file).execute(model, tf, x, outputs)].flat() as TfTensor[];
      expect(got.length, name).toBe(want.length);
      expect(want.length, name).toBeGreaterThan(0);
      for (const [i, w] of want.entries()) {
        expect(got[i].shape, `${name} output ${i}`).toEqual(w.shape);
        const a = w.dataSync();
        const b = got[i].dataSync();
        if (name === 'centernet' && w.shape.length === 3) {
          // The 100 best of the heat map, each [box, score, class]. Below the scores Human keeps (0.05)
          // many are ties, and rows of near-equal scores come in either order: the rows kept must be
          // the same rows, within half a pixel and 0.001 of score.
          const rows = (d: Float32Array) =>
            Array.from({ length: d.length / 6 }, (_, r) => Array.from(d.subarray(r * 6, r * 6 + 6))).filter((row) => row[4] >= 0.05);
          const left = rows(b);
          const kept = rows(a);
          expect(kept.length).toBeGreaterThan(3);
          for (const row of kept) {
            const j = left.findIndex((o) => o[5] === row[5] && Math.abs(o[4] - row[4]) < 1e-3 && [0, 1, 2, 3].every((k) => Math.abs(o[k] - row[k]) < 0.5));
            expect(j, `centernet detection ${row.map((v) => v.toFixed(2)).join(' ')}`).toBeGreaterThanOrEqual(0);
            left.splice(j, 1);
          }
          expect(left.filter((o) => o[4] >= 0.05 + 1e-3)).toEqual([]);
          continue;
        }
        let scale = 1e-6;
        let worst = 0;
        for (let k = 0; k < a.length; k++) {
          scale = Math.max(scale, Math.abs(a[k]));
          worst = Math.max(worst, Math.abs(a[k] - b[k]));
        }
        expect(worst / scale, `${name} output ${i}: largest difference ${worst} of ${scale}`).toBeLessThan(2e-3);
      }
    }
  }, 180_000);

  it('the outputs GraphModel gives by default are the signature’s, else the nodes nothing reads', () => {
    const json = (name: string) => JSON.parse(fs.readFileSync(path.join(HUMAN_MODELS_DIR, `${name}.json`), 'utf8')) as TfModelJson;
    expect(defaultOutputs(json('faceres'))).toEqual(['gender_pred/Sigmoid:0', 'global_pooling/Mean', 'age_pred/Softmax:0']);
    expect(defaultOutputs(json('emotion'))).toHaveLength(1);
    expect(defaultOutputs(json('blazeface')).length).toBeGreaterThan(1);
  });

  it('reads float16 weights as the floats they stand for', () => {
    const file = path.join(HUMAN_MODELS_DIR, 'faceres.json');
    const json = JSON.parse(fs.readFileSync(file, 'utf8')) as TfModelJson;
    const w = readTfWeights(file, json);
    const first = json.weightsManifest[0].weights[0];
    expect(first.quantization?.dtype).toBe('float16');
    const raw = fs.readFileSync(path.join(HUMAN_MODELS_DIR, json.weightsManifest[0].paths[0]));
    // The first half-precision value, decoded by hand.
    const h = raw.readUInt16LE(0);
    const f = (h & 0x8000 ? -1 : 1) * 2 ** (((h >> 10) & 0x1f) - 15) * (1 + (h & 0x3ff) / 1024);
    expect(w.get(first.name)!.values[0]).toBeCloseTo(f, 7);
  });

  it('refuses a graph with an operator it does not write, and that network stays on TensorFlow.js', () => {
    const file = path.join(scratch, 'odd.json');
    fs.writeFileSync(
      file,
      JSON.stringify({
        modelTopology: {
          node: [
            { name: 'input', op: 'Placeholder', attr: { dtype: { type: 'DT_FLOAT' }, shape: { shape: { dim: [{ size: '1' }, { size: '4' }] } } } },
            { name: 'svd', op: 'Svd', input: ['input'] },
          ],
        },
        weightsManifest: [],
      }),
    );
    expect(() => tfjsToOnnx(file, ['svd'])).toThrow(/operator Svd is not written as ONNX/);
    expect(ortGraph('test/odd', file)).toBeNull();
  });
});
