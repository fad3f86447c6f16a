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

/** The onnxruntime-node package's own folder. */
const ortRoot = (): string => path.join(path.dirname(require.resolve('onnxruntime-node')), '..');

/** The onnxruntime-node package's folder of native binaries, and what is in it. */
function ortBinaries(): { version: string | null; libs: string[] } {
  try {
    const root = ortRoot();
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

/** The provider each model's session was made on in this process (a GPU one may have refused it). */
const madeOn = new Map<string, Provider>();
const refused = new Set<string>();

/** The provider `model` runs on in this process: where its session was made, else the one it will be given. */
export function providerOf(model: string): Provider {
  return madeOn.get(model) ?? executionProvider();
}

/** Where `model`'s session was made in this process; null if it was not loaded here. */
export function providerRan(model: string): Provider | null {
  return madeOn.get(model) ?? null;
}

/**
 * Loads `model` on the provider the models are given, and on the CPU where that provider refuses it
 * (its library or the driver's missing, no GPU, an operator it lacks): the reason is written to the
 * log once per provider and process, and the report's provider says where it ran.
 */
export async function onProvider<T>(model: string, load: (provider: Provider) => Promise<T>, wanted: Provider = executionProvider()): Promise<T> {
  if (wanted !== 'cpu') {
    try {
      return made(model, wanted, await load(wanted));
    } catch (err) {
      refusedBy(wanted, model, err);
    }
  }
  return made(model, 'cpu', await load('cpu'));
}

/** `onProvider` for a session made synchronously. */
export function onProviderSync<T>(model: string, load: (provider: Provider) => T, wanted: Provider = executionProvider()): T {
  if (wanted !== 'cpu') {
    try {
      return made(model, wanted, load(wanted));
    } catch (err) {
      refusedBy(wanted, model, err);
    }
  }
  return made(model, 'cpu', load('cpu'));
}

function made<T>(model: string, provider: Provider, session: T): T {
  madeOn.set(model, provider);
  return session;
}

/** Says once per provider and process why it refused a model. */
function refusedBy(provider: Provider, model: string, err: unknown): void {
  if (refused.has(provider)) return;
  refused.add(provider);
  process.stderr.write(`${provider} could not take ${model}, which runs on the CPU: ${(err as Error).message.split('\n')[0]}\n`);
}

/**
 * An ONNX Runtime session of `file` (a path, or the model's bytes) on the provider the models are
 * given (the CPU where it refuses); CPU options apply to the CPU alone.
 */
export async function ortSession(
  model: string,
  file: string | Uint8Array,
  cpuOptions: import('onnxruntime-node').InferenceSession.SessionOptions = {},
  wanted: Provider = executionProvider(),
): Promise<import('onnxruntime-node').InferenceSession> {
  const ort = await import('onnxruntime-node');
  return onProvider(
    model,
    (p) => {
      const options: import('onnxruntime-node').InferenceSession.SessionOptions =
        p === 'cpu' ? { ...cpuOptions, executionProviders: ['cpu'] } : { graphOptimizationLevel: 'all', executionProviders: [p, 'cpu'] };
      // Two calls, as `create` is typed by overloads: a path, or the bytes.
      return typeof file === 'string' ? ort.InferenceSession.create(file, options) : ort.InferenceSession.create(file, options);
    },
    wanted,
  );
}

/**
 * What the system's loader says of CUDA's provider library where it cannot load it (a CUDA library
 * missing from the library path, say): ONNX Runtime's own error says only that it failed, and
 * writes the cause to its log.
 */
function loaderSays(provider: Provider): string | null {
  if (provider !== 'cuda' || process.platform !== 'linux') return null;
  const lib = path.join(ortRoot(), 'bin', 'napi-v6', 'linux', process.arch, 'libonnxruntime_providers_cuda.so');
  try {
    process.dlopen({ exports: {} }, lib);
    return null;
  } catch (err) {
    const message = (err as Error).message;
    // Loaded, but not a Node module (what it is not meant to be): the loader found everything it needs.
    return /cannot open shared object|undefined symbol|version .* not found/.test(message) ? message : null;
  }
}

/** Why `provider` cannot run the ONNX model `file` here (its library, the driver's, no device…); null when it can (`media-index doctor`). */
export async function providerRefusal(file: string, provider: Provider): Promise<string | null> {
  const ort = await import('onnxruntime-node');
  try {
    const session = await ort.InferenceSession.create(file, { executionProviders: [provider] });
    await session.release();
    return null;
  } catch (err) {
    const said = (err as Error).message.split('\n')[0];
    const loader = loaderSays(provider);
    return loader ? `${said} (${loader})` : said;
  }
}
