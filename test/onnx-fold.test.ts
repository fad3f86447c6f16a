// The scalar steps of PaddlePaddle's exports folded into the convolutions beside them
// (server/ml/onnx-fold.ts): a generated graph with each pattern and the cases that must stay, and
// the real PP-OCRv4 detector on corpus pictures, each run by ONNX Runtime as written and folded.
import fs from 'node:fs';
import sharp from 'sharp';
import * as ort from 'onnxruntime-node';
import onnxProto from 'onnx-proto';
import { describe, expect, it } from 'vitest';
import { corpus } from './helpers/corpus.ts';
import { paddleChains, seededTable } from './helpers/tiny-onnx.ts';
import { foldScalarChains } from '../server/ml/onnx-fold.ts';
import { BUNDLED_DETECTOR, detectorSize } from '../server/ml/text-detect.ts';

const options: ort.InferenceSession.SessionOptions = { intraOpNumThreads: 1, graphOptimizationLevel: 'all', logSeverityLevel: 3 };
const ops = (model: Uint8Array) =>
  onnxProto.onnx.ModelProto.decode(model)
    .graph!.node!.filter((n) => n.opType !== 'Constant')
    .map((n) => n.opType);

async function outputs(model: Uint8Array, feeds: Record<string, ort.Tensor>): Promise<Record<string, Float32Array>> {
  const s = await ort.InferenceSession.create(model, options);
  const out = await s.run(feeds);
  await s.release();
  return Object.fromEntries(Object.entries(out).map(([k, v]) => [k, v.data as Float32Array]));
}

const maxDiff = (a: Float32Array, b: Float32Array) => a.reduce((m, v, i) => Math.max(m, Math.abs(v - b[i])), 0);

describe('scalar steps folded into convolutions', () => {
  it('folds a scale and shift after a convolution, the hard-swish, and a scale and shift before an unpadded convolution; the outputs stay', async () => {
    const model = paddleChains();
    const { model: folded, folded: counts } = foldScalarChains(model);
    expect(counts).toEqual({ convScale: 1, hardSwish: 1, scaleConv: 1 });
    expect(ops(model)).toHaveLength(15);
    // The padded 3×3 convolution keeps its scale and shift (its zero border), and the scale of a
    // convolution whose output is also the graph's is not folded into it.
    expect(ops(folded)).toEqual(['Conv', 'HardSigmoid', 'Mul', 'Conv', 'Mul', 'Add', 'Conv', 'Conv', 'Mul']);
    for (const seed of [1, 2, 3]) {
      const x = new ort.Tensor(
        'float32',
        seededTable(4 * 64, 1, seed).map((v) => 4 * v - 2),
        [1, 4, 8, 8],
      );
      const [before, after] = [await outputs(model, { x }), await outputs(folded, { x })];
      for (const name of ['a', 'b', 'c_conv', 'c']) {
        expect(after[name].length, name).toBe(before[name].length);
        // Float rounding only: within a millionth of the outputs' range.
        const range = before[name].reduce((m, v) => Math.max(m, Math.abs(v)), 0);
        expect(maxDiff(before[name], after[name]) / range, name).toBeLessThan(1e-6);
      }
    }
  });

  it('leaves a graph with nothing to fold as it was', () => {
    const model = paddleChains();
    const { model: once } = foldScalarChains(model);
    expect(foldScalarChains(once).folded).toEqual({ convScale: 0, hardSwish: 0, scaleConv: 0 });
  });

  it("gives PP-OCRv4's detector the same text maps on real pictures, with 72 fewer steps in it", async () => {
    const original = new Uint8Array(fs.readFileSync(BUNDLED_DETECTOR.file));
    const { model: folded, folded: counts } = foldScalarChains(original);
    expect(counts).toEqual({ convScale: 28, hardSwish: 24, scaleConv: 10 });
    expect(ops(original).length - ops(folded).length).toBe(28 * 2 + 24 * 2 + 10 * 2);
    for (const file of ['ocr/images/imageTextN.png', 'ocr/images/digits.png', 'faces/face-api-samples/sample1.jpg']) {
      const meta = await sharp(corpus(file)).metadata();
      const { width: W, height: H } = detectorSize(meta.width!, meta.height!);
      const rgb = await sharp(corpus(file)).flatten({ background: '#ffffff' }).resize(W, H, { fit: 'fill' }).raw().toBuffer();
      const input = new Float32Array(3 * W * H);
      for (let c = 0; c < 3; c++) {
        const [m, s] = [BUNDLED_DETECTOR.mean[c] * 255, BUNDLED_DETECTOR.std[c] * 255];
        for (let i = 0; i < W * H; i++) input[c * W * H + i] = (rgb[i * 3 + 2 - c] - m) / s;
      }
      const feeds = { x: new ort.Tensor('float32', input, [1, 3, H, W]) };
      const [before, after] = [await outputs(original, feeds), await outputs(folded, feeds)];
      const [p, q] = [Object.values(before)[0], Object.values(after)[0]];
      expect(maxDiff(p, q), file).toBeLessThan(1e-3);
      // Text pixels (probability ≥ 0.3) the same but for a few on the threshold.
      let flips = 0;
      for (let i = 0; i < p.length; i++) if (p[i] >= 0.3 !== q[i] >= 0.3) flips++;
      expect(flips, file).toBeLessThanOrEqual(p.length * 1e-5);
    }
  }, 60_000);
});
