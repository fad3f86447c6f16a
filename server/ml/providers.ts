// Which ONNX Runtime execution provider the optional models run on: CUDA, DirectML or CoreML where
// this ONNX Runtime build has it (and MEDIA_INDEX_DEVICE does not say otherwise), else the CPU.
// A provider the package lists as not bundled counts only when its library is actually installed
// beside the binding (CUDA's comes with onnxruntime-node's optional download).
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { env } from '../config.ts';

const require = createRequire(import.meta.url);

export type Provider = 'cuda' | 'dml' | 'coreml' | 'cpu';

let chosen: Provider | null = null;

export function executionProvider(): Provider {
  if (chosen) return chosen;
  const wanted = env.device;
  if (wanted === 'cpu') return (chosen = 'cpu');
  let available: string[] = [];
  try {
    const ort = require('onnxruntime-node') as { listSupportedBackends?: () => Array<{ name: string; bundled: boolean }> };
    const bin = path.join(path.dirname(require.resolve('onnxruntime-node')), '..', 'bin');
    const libs = fs.existsSync(bin) ? (fs.readdirSync(bin, { recursive: true }) as string[]).map((f) => path.basename(f)) : [];
    available = (ort.listSupportedBackends?.() ?? []).filter((b) => b.bundled || libs.some((l) => l.includes(`providers_${b.name}`))).map((b) => b.name);
  } catch {
    available = [];
  }
  const order: Provider[] = wanted === 'auto' ? ['cuda', 'dml', 'coreml'] : [wanted as Provider];
  return (chosen = order.find((p) => available.includes(p)) ?? 'cpu');
}
