// The models' execution provider: a GPU provider that refuses a model leaves it on the CPU (and the
// report says so), `media-index doctor`'s check says why, the text detector's sessions per input
// shape give what one session gives, and `npm run gpu:install -- --wheel` takes the provider's
// libraries out of an onnxruntime-gpu wheel. These run on the real onnxruntime-node and the real
// detector; no GPU here, so the CUDA provider is refused for real (its library is not installed,
// or, where it is, no driver or device answers).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import JSZip from 'jszip';
import * as ort from 'onnxruntime-node';
import { ortSession, providerRan, providerRefusal, providersPresent } from '../server/ml/providers.ts';
import { BUNDLED_DETECTOR, foldedModel, runAtShape, SHAPES_KEPT, shapeSessionsHeld } from '../server/ml/text-detect.ts';
// @ts-expect-error: a plain ES module of the scripts, without types
import { installFromWheel } from '../scripts/gpu-install.mjs';

const dirs: string[] = [];
const tmp = () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'mi-providers-'));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

/** A white picture of w × h as the detector's input. */
const feedsOf = (w: number, h: number) => ({ x: new ort.Tensor('float32', new Float32Array(3 * w * h).fill(2), [1, 3, h, w]) });

const gpuHere = () => {
  const cuda = providersPresent().providers.find((p) => p.name === 'cuda');
  return Boolean(cuda?.installed) && fs.existsSync('/dev/nvidia0');
};

describe('execution providers', () => {
  it('a model the GPU provider refuses runs on the CPU, said once in the log, and its report says cpu', async () => {
    if (gpuHere()) return; // a machine with a GPU would take it
    const said = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      const session = await ortSession('test-detector', BUNDLED_DETECTOR.file, { intraOpNumThreads: 1 }, 'cuda');
      const again = await ortSession('test-detector-2', BUNDLED_DETECTOR.file, { intraOpNumThreads: 1 }, 'cuda');
      expect(providerRan('test-detector')).toBe('cpu');
      expect(providerRan('test-detector-2')).toBe('cpu');
      expect(providerRan('never-loaded')).toBeNull();
      const lines = said.mock.calls.map((c) => String(c[0])).filter((l) => l.startsWith('cuda could not take'));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^cuda could not take test-detector, which runs on the CPU: \S/);
      // And it works there: the detector's map of a 64 × 32 picture.
      const out = await session.run({ [session.inputNames[0]]: feedsOf(64, 32).x });
      expect(out[session.outputNames[0]].dims).toEqual([1, 1, 32, 64]);
      await Promise.all([session.release(), again.release()]);
    } finally {
      said.mockRestore();
    }
  });

  it("doctor's check says why a provider refuses a model, and nothing for the CPU", async () => {
    expect(await providerRefusal(BUNDLED_DETECTOR.file, 'cpu')).toBeNull();
    if (gpuHere()) return;
    // The loader's own words name what is missing: here the provider's library itself, or, where it
    // is installed, a CUDA library it needs.
    expect(await providerRefusal(BUNDLED_DETECTOR.file, 'cuda')).toMatch(/lib[\w.+-]+\.so[\w.]*: cannot open shared object file/);
  });

  it('one detector session per input shape gives what one session gives, and holds at most the last few', async () => {
    // Both made from the model as sessions are made of it (folded: onnx-fold.ts).
    const one = await ort.InferenceSession.create(await foldedModel(BUNDLED_DETECTOR.file), { executionProviders: ['cpu'] });
    const name = one.inputNames[0];
    const input = (w: number, h: number) => {
      const data = new Float32Array(3 * w * h);
      for (let i = 0; i < data.length; i++) data[i] = Math.sin(i / 7) * 2;
      return { [name]: new ort.Tensor('float32', data, [1, 3, h, w]) };
    };
    for (const [w, h] of [
      [96, 64],
      [64, 96],
      [96, 64],
    ]) {
      const a = await one.run(input(w, h));
      const b = await runAtShape(BUNDLED_DETECTOR.file, `${w}x${h}`, input(w, h));
      expect(Array.from(b[one.outputNames[0]].data as Float32Array)).toEqual(Array.from(a[one.outputNames[0]].data as Float32Array));
    }
    expect(shapeSessionsHeld()).toBe(2);
    for (let i = 0; i < SHAPES_KEPT + 2; i++) await runAtShape(BUNDLED_DETECTOR.file, `${32 * (i + 1)}x32`, input(32 * (i + 1), 32));
    expect(shapeSessionsHeld()).toBe(SHAPES_KEPT);
    // Many shapes at once (two pictures of an indexer process in flight, and more): none is let go
    // while a call waits on it, so every run answers.
    const many = Array.from({ length: SHAPES_KEPT + 6 }, (_, i) => runAtShape(BUNDLED_DETECTOR.file, `${32 * (i + 1)}x64`, input(32 * (i + 1), 64)));
    expect((await Promise.all(many)).every((r) => r[one.outputNames[0]].dims[3] > 0)).toBe(true);
    await runAtShape(BUNDLED_DETECTOR.file, '32x32', input(32, 32));
    expect(shapeSessionsHeld()).toBe(SHAPES_KEPT);
    await one.release();
  }, 60_000);

  it('gpu:install --wheel takes the two provider libraries out of a wheel, and refuses a wheel without them', async () => {
    const dir = tmp();
    const zip = new JSZip();
    zip.file('onnxruntime/capi/libonnxruntime_providers_cuda.so', Buffer.from('cuda provider bytes'));
    zip.file('onnxruntime/capi/libonnxruntime_providers_shared.so', Buffer.from('shared bytes'));
    zip.file('onnxruntime/capi/onnxruntime_pybind11_state.so', Buffer.from('not wanted'));
    const wheel = path.join(dir, 'onnxruntime_gpu-1.30.0-cp312-cp312-manylinux_2_28_x86_64.whl');
    fs.writeFileSync(wheel, await zip.generateAsync({ type: 'nodebuffer' }));
    const bin = path.join(dir, 'bin');
    const written: string[] = await installFromWheel(wheel, bin);
    expect(written.map((f) => path.basename(f))).toEqual(['libonnxruntime_providers_cuda.so', 'libonnxruntime_providers_shared.so']);
    expect(fs.readFileSync(path.join(bin, 'libonnxruntime_providers_cuda.so'), 'utf8')).toBe('cuda provider bytes');
    expect(fs.readdirSync(bin).sort()).toEqual(['libonnxruntime_providers_cuda.so', 'libonnxruntime_providers_shared.so']);

    const cpuOnly = new JSZip();
    cpuOnly.file('onnxruntime/capi/libonnxruntime.so.1.30.0', Buffer.from('x'));
    const other = path.join(dir, 'onnxruntime-1.30.0-cp312-cp312-manylinux_2_28_x86_64.whl');
    fs.writeFileSync(other, await cpuOnly.generateAsync({ type: 'nodebuffer' }));
    const empty = path.join(dir, 'empty-bin');
    await expect(installFromWheel(other, empty)).rejects.toThrow(/lacks libonnxruntime_providers_cuda\.so, libonnxruntime_providers_shared\.so/);
    expect(fs.existsSync(empty)).toBe(false);
  });
});
