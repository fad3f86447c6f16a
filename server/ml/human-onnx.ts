// Human's networks on ONNX Runtime: a TensorFlow.js graph model's `execute` is answered by an ONNX
// Runtime session of the same graph (server/ml/tfjs-onnx.ts), run synchronously as Human expects,
// on the provider the models are given (a GPU's where there is one, else the CPU). The session is
// made before Human loads the model, so that a graph which cannot be written, or which the provider
// and the CPU both refuse, is known first and stays on TensorFlow.js.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import type { Tensor as OrtTensor } from 'onnxruntime-node';
import { onProviderSync } from './providers.ts';
import { tfjsToOnnx, type TfModelJson } from './tfjs-onnx.ts';

const require = createRequire(import.meta.url);

interface SyncSession {
  loadModel(buffer: ArrayBuffer, byteOffset: number, byteLength: number, options: object): void;
  readonly inputMetadata: Array<{ name: string }>;
  run(feeds: Record<string, OrtTensor>, fetches: Record<string, null>, options: object): Record<string, OrtTensor>;
}
interface Binding {
  binding: { InferenceSession: new () => SyncSession };
  initOrt: () => void;
}

/** onnxruntime-node's own binding, whose sessions run synchronously (its public API wraps them in promises). */
function ortBinding(): Binding {
  const b = require(path.join(path.dirname(require.resolve('onnxruntime-node')), 'binding.js')) as Binding;
  b.initOrt();
  return b;
}

interface TfTensorLike {
  shape: number[];
  dataSync(): Float32Array | Int32Array | Uint8Array;
}
export interface GraphModelLike {
  outputNodes: string[];
  execute(inputs: unknown, outputs?: string | string[]): unknown;
  modelUrl?: string;
}
export interface TfLike {
  tensor(values: Float32Array | Int32Array, shape: number[], dtype?: string): unknown;
}

/** The outputs GraphModel gives when asked for none: the signature's, else the nodes nothing reads. */
export function defaultOutputs(json: TfModelJson): string[] {
  const signed = Object.keys(json.signature?.outputs ?? {});
  if (signed.length) return signed;
  const read = new Set(json.modelTopology.node.flatMap((n) => (n.input ?? []).map((r) => r.replace(/^\^/, '').replace(/:\d+$/, ''))));
  return json.modelTopology.node.filter((n) => n.op !== 'Const' && !read.has(n.name)).map((n) => n.name);
}

/** An output's name as a set of outputs is keyed by ("Identity:0" and "Identity" are one output). */
const outputName = (o: string) => o.replace(/:0$/, '');

/**
 * A TensorFlow.js graph model (`file`, its model.json) run by ONNX Runtime, one session per set of
 * outputs asked for (in any order).
 */
export class OrtGraph {
  private readonly sessions = new Map<string, { session: SyncSession; input: string; outputs: string[] }>();
  private readonly binding = ortBinding();

  /**
   * Makes the session of `outputs` (by default the model's own, as GraphModel gives them when asked
   * for none): throws where the graph cannot be written or loaded.
   */
  constructor(
    readonly name: string,
    readonly file: string,
    outputs?: string[],
  ) {
    this.sessionFor(outputs ?? defaultOutputs(JSON.parse(fs.readFileSync(file, 'utf8')) as TfModelJson));
  }

  private sessionFor(wanted: string[]) {
    const outputs = [...new Set(wanted.map(outputName))].sort();
    const key = outputs.join('\u0000');
    let s = this.sessions.get(key);
    if (!s) {
      const bytes = tfjsToOnnx(this.file, outputs);
      const session = onProviderSync(this.name, (p) => {
        const made = new this.binding.binding.InferenceSession();
        made.loadModel(bytes.buffer as ArrayBuffer, bytes.byteOffset, bytes.byteLength, {
          graphOptimizationLevel: 'all',
          // One thread: an indexer process per core.
          intraOpNumThreads: 1,
          interOpNumThreads: 1,
          executionMode: 'sequential',
          // Measured on 22 photos: 25 MiB less at the peak, the same time.
          enableMemPattern: false,
          executionProviders: p === 'cpu' ? ['cpu'] : [p, 'cpu'],
        });
        return made;
      });
      s = { session, input: session.inputMetadata[0].name, outputs };
      this.sessions.set(key, s);
    }
    return s;
  }

  /** Runs the graph as GraphModel.execute does: one input; the outputs named, else the default ones; one tensor, or an array of several. */
  execute(model: GraphModelLike, tf: TfLike, inputs: unknown, outputs?: string | string[]): unknown {
    const { Tensor } = require('onnxruntime-node') as typeof import('onnxruntime-node');
    const x = (Array.isArray(inputs) ? inputs[0] : (inputs as { shape?: unknown }).shape ? inputs : Object.values(inputs as object)[0]) as TfTensorLike;
    const wanted = outputs === undefined ? model.outputNodes : Array.isArray(outputs) ? outputs : [outputs];
    const s = this.sessionFor(wanted);
    const data = x.dataSync();
    const feeds = { [s.input]: new Tensor('float32', data instanceof Float32Array ? data : Float32Array.from(data), x.shape) };
    const got = s.session.run(feeds, Object.fromEntries(s.outputs.map((o) => [o, null])), {});
    const tensors = wanted.map((w) => {
      const t = got[outputName(w)];
      return tf.tensor(t.data as Float32Array | Int32Array, t.dims as number[], t.type === 'int32' ? 'int32' : 'float32');
    });
    return tensors.length > 1 ? tensors : tensors[0];
  }

  /** Makes `model`'s execute run here. */
  answer(model: GraphModelLike, tf: TfLike): void {
    model.execute = (inputs: unknown, outputs?: string | string[]) => this.execute(model, tf, inputs, outputs);
  }
}

/** An OrtGraph of `file` (see its constructor), or null (and a line in the log) where it cannot be made. */
export function ortGraph(name: string, file: string, outputs?: string[]): OrtGraph | null {
  try {
    return new OrtGraph(name, file, outputs);
  } catch (err) {
    process.stderr.write(`${name} stays on TensorFlow.js: ${(err as Error).message.split('\n')[0]}\n`);
    return null;
  }
}
