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

export interface ProviderPresence {
  name: string;
  /** Shipped inside onnxruntime-node's npm package. */
  bundled: boolean;
  /** Its library is beside the binding (a bundled one always is; CUDA's after `npm run gpu:install`). */
  installed: boolean;
}

/** The onnxruntime-node package's folder of native binaries, and what is in it. */
function ortBinaries(): { version: string | null; libs: string[] } {
  try {
    const root = path.join(path.dirname(require.resolve('onnxruntime-node')), '..');
    const bin = path.join(root, 'bin');
    const libs = fs.existsSync(bin) ? (fs.readdirSync(bin, { recursive: true }) as string[]).map((f) => path.basename(f)) : [];
    const version = (JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { version?: string }).version ?? null;
    return { version, libs };
  } catch {
    return { version: null, libs: [] };
  }
}

/** The execution providers this onnxruntime-node build knows for this platform, and which are there (`media-index doctor`). */
export function providersPresent(): { onnxruntime: string | null; providers: ProviderPresence[] } {
  const { version, libs } = ortBinaries();
  let backends: Array<{ name: string; bundled: boolean }>;
  try {
    const ort = require('onnxruntime-node') as { listSupportedBackends?: () => Array<{ name: string; bundled: boolean }> };
    backends = ort.listSupportedBackends?.() ?? [];
  } catch {
    backends = [];
  }
  return {
    onnxruntime: version,
    providers: backends.map((b) => ({ name: b.name, bundled: b.bundled, installed: b.bundled || libs.some((l) => l.includes(`providers_${b.name}`)) })),
  };
}

export function executionProvider(): Provider {
  if (chosen) return chosen;
  const wanted = env.device;
  if (wanted === 'cpu') return (chosen = 'cpu');
  const available = providersPresent()
    .providers.filter((p) => p.installed)
    .map((p) => p.name);
  const order: Provider[] = wanted === 'auto' ? ['cuda', 'dml', 'coreml'] : [wanted as Provider];
  return (chosen = order.find((p) => available.includes(p)) ?? 'cpu');
}
