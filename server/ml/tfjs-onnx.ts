// TensorFlow.js graph models (model.json and its weight files) written as ONNX graphs, so that ONNX
// Runtime runs Human's face and object networks (its CPU kernels, or a GPU's) in place of
// TensorFlow.js's WebAssembly backend. The graph keeps TensorFlow's NHWC layout: each convolution
// and pooling is wrapped in the two transposes to and from ONNX's NCHW, which ONNX Runtime's
// optimizer removes between layers. Only the operators of the packaged models are written; a graph
// with any other is refused, and the caller keeps TensorFlow.js for it.
import fs from 'node:fs';
import path from 'node:path';
import onnxProto, { type onnx as OnnxTypes } from 'onnx-proto';

const { onnx } = onnxProto;
const T = onnx.TensorProto.DataType;
const A = onnx.AttributeProto.AttributeType;

interface TfNode {
  name: string;
  op: string;
  input?: string[];
  attr?: Record<string, TfAttr>;
}
interface TfAttr {
  i?: string | number;
  f?: number;
  b?: boolean;
  s?: string;
  type?: string;
  list?: { i?: Array<string | number>; s?: string[]; f?: number[] };
  shape?: { dim?: Array<{ size: string | number }> };
}
interface TfWeight {
  name: string;
  shape: number[];
  dtype: 'float32' | 'int32' | 'bool';
  quantization?: { dtype: 'float16' | 'uint8' | 'uint16'; min?: number; scale?: number };
}
export interface TfModelJson {
  modelTopology: { node: TfNode[] };
  signature?: { outputs?: Record<string, { name: string }> };
  weightsManifest: Array<{ paths: string[]; weights: TfWeight[] }>;
}

type Values = Float32Array | Int32Array | Uint8Array;
interface Constant {
  dtype: TfWeight['dtype'];
  shape: number[];
  values: Values;
}

/** Every half-precision float as a float, made on first use. */
let halves: Float32Array | null = null;
function halfTable(): Float32Array {
  if (halves) return halves;
  halves = new Float32Array(65536);
  for (let h = 0; h < 65536; h++) {
    const sign = h & 0x8000 ? -1 : 1;
    const exp = (h >> 10) & 0x1f;
    const frac = h & 0x3ff;
    halves[h] = exp === 0 ? sign * 2 ** -14 * (frac / 1024) : exp === 31 ? (frac ? NaN : sign * Infinity) : sign * 2 ** (exp - 15) * (1 + frac / 1024);
  }
  return halves;
}

/** `n` little-endian half-precision floats from `buf` at byte `at`, as floats. */
function halfFloats(buf: Buffer, at: number, n: number): Float32Array {
  const half = halfTable();
  const f = new Float32Array(n);
  for (let k = 0, b = at; k < n; k++, b += 2) f[k] = half[buf[b] | (buf[b + 1] << 8)];
  return f;
}

/** `n` little-endian unsigned integers of `bytes` bytes from `buf` at byte `at`, as `min + raw · scale`. */
function dequantized(buf: Buffer, at: number, n: number, bytes: 1 | 2, min: number, scale: number): Float32Array {
  const f = new Float32Array(n);
  if (bytes === 1) for (let k = 0; k < n; k++) f[k] = min + buf[at + k] * scale;
  else for (let k = 0, b = at; k < n; k++, b += 2) f[k] = min + (buf[b] | (buf[b + 1] << 8)) * scale;
  return f;
}

/** The weights of a model.json, by name, as their own types (quantized ones expanded to float32). */
export function readTfWeights(modelJson: string, json: TfModelJson): Map<string, Constant> {
  const dir = path.dirname(modelJson);
  const out = new Map<string, Constant>();
  for (const group of json.weightsManifest) {
    const buf = Buffer.concat(group.paths.map((p) => fs.readFileSync(path.join(dir, p))));
    let at = 0;
    for (const w of group.weights) {
      const n = w.shape.reduce((a, b) => a * b, 1);
      const q = w.quantization;
      let values: Values;
      if (q) {
        const bytes = q.dtype === 'uint8' ? 1 : 2;
        const f = q.dtype === 'float16' ? halfFloats(buf, at, n) : dequantized(buf, at, n, bytes, q.min ?? 0, q.scale ?? 1);
        values = w.dtype === 'int32' ? Int32Array.from(f, Math.round) : f;
        at += n * bytes;
      } else {
        const bytes = w.dtype === 'bool' ? 1 : 4;
        const copy = new Uint8Array(buf.subarray(at, at + n * bytes)); // aligned
        values = w.dtype === 'float32' ? new Float32Array(copy.buffer) : w.dtype === 'int32' ? new Int32Array(copy.buffer) : copy;
        at += n * bytes;
      }
      out.set(w.name, { dtype: w.dtype, shape: w.shape, values });
    }
  }
  return out;
}

/**
 * A convolution's weights in ONNX's layout: TensorFlow's HWIO as OIHW, or a depthwise [kh, kw, C, M]
 * as [C·M, 1, kh, kw]. Read in their own order, each written where it goes.
 */
function convWeights(src: Float32Array, kh: number, kw: number, cin: number, m: number, depthwise: boolean): Float32Array {
  const dst = new Float32Array(src.length);
  const area = kh * kw;
  let i = 0;
  for (let at = 0; at < area; at++)
    for (let c = 0; c < cin; c++)
      if (depthwise) for (let k = 0; k < m; k++) dst[(c * m + k) * area + at] = src[i++];
      else for (let o = 0; o < m; o++) dst[(o * cin + c) * area + at] = src[i++];
  return dst;
}

const ONNX_TYPE: Record<string, number> = { DT_FLOAT: T.FLOAT, DT_INT32: T.INT32, DT_BOOL: T.BOOL, DT_INT64: T.INT64 };
const decode = (s: string) => Buffer.from(s, 'base64').toString();

/** A TensorFlow tensor reference ("node", "node:1", "^node" for a control edge) as an ONNX value name. */
function valueName(ref: string): string {
  const m = /^(.*?)(?::(\d+))?$/.exec(ref)!;
  return m[2] && m[2] !== '0' ? `${m[1]}:${m[2]}` : m[1];
}
const nodeOf = (ref: string) => ref.replace(/^\^/, '').replace(/:\d+$/, '');

/**
 * The ONNX model of a TensorFlow.js graph model, with the graph outputs `outputs` (TensorFlow names,
 * as GraphModel.execute takes them). Throws on an operator it does not write.
 */
export function tfjsToOnnx(modelJson: string, outputs: string[]): Uint8Array {
  const json = JSON.parse(fs.readFileSync(modelJson, 'utf8')) as TfModelJson;
  const weights = readTfWeights(modelJson, json);
  const byName = new Map(json.modelTopology.node.map((n) => [n.name, n]));
  const nodes: OnnxTypes.INodeProto[] = [];
  const initializers = new Map<string, OnnxTypes.ITensorProto>();
  const inputs: OnnxTypes.IValueInfoProto[] = [];
  let serial = 0;
  const fresh = (base: string) => `${base}/__onnx${serial++}`;

  const constant = (ref: string): Constant => {
    const c = weights.get(nodeOf(ref));
    if (!c) throw new Error(`${ref} is not a constant`);
    return c;
  };
  const ints = (ref: string) => Array.from(constant(ref).values as Int32Array);
  const addInit = (name: string, dataType: number, dims: number[], values: ArrayLike<number>) => {
    const t: OnnxTypes.ITensorProto = { name, dims, dataType };
    if (dataType === T.FLOAT) {
      const f = values instanceof Float32Array ? values : Float32Array.from(values); // weights go in as they are
      t.rawData = new Uint8Array(f.buffer, f.byteOffset, f.byteLength);
    } else if (dataType === T.INT32) t.rawData = new Uint8Array(Int32Array.from(values).buffer);
    else if (dataType === T.INT64) t.rawData = new Uint8Array(BigInt64Array.from(Array.from(values), (v) => BigInt(v)).buffer);
    else t.rawData = new Uint8Array(Uint8Array.from(values).buffer);
    initializers.set(name, t);
    return name;
  };
  const i64 = (base: string, values: number[]) => addInit(fresh(base), T.INT64, [values.length], values);
  const f32 = (base: string, dims: number[], values: ArrayLike<number>) => addInit(fresh(base), T.FLOAT, dims, values);
  const add = (opType: string, input: string[], output: string[], attribute: OnnxTypes.IAttributeProto[] = []) => {
    nodes.push({ opType, input, output, attribute, name: fresh(output[0]) });
    return output[0];
  };
  const ia = (name: string, v: number) => ({ name, type: A.INT, i: v });
  const iList = (name: string, v: number[]) => ({ name, type: A.INTS, ints: v });
  const sa = (name: string, v: string) => ({ name, type: A.STRING, s: new TextEncoder().encode(v) });
  const nchw = (x: string) => add('Transpose', [x], [fresh(x)], [iList('perm', [0, 3, 1, 2])]);
  const nhwc = (x: string, out: string) => add('Transpose', [x], [out], [iList('perm', [0, 2, 3, 1])]);
  const listI = (a: TfAttr | undefined) => (a?.list?.i ?? []).map(Number);
  const padding = (n: TfNode, kernel: number[]): OnnxTypes.IAttributeProto[] => {
    const p = decode(n.attr?.padding?.s ?? '');
    if (p === 'SAME') return [sa('auto_pad', 'SAME_UPPER')];
    if (p === 'VALID') return [iList('pads', kernel.map(() => 0).concat(kernel.map(() => 0)))];
    if (p === 'EXPLICIT') {
      const e = listI(n.attr?.explicit_paddings); // NHWC pairs
      return [iList('pads', [e[2], e[4], e[3], e[5]])];
    }
    throw new Error(`${n.name}: padding ${p}`);
  };
  /** A fused activation on an NCHW value. */
  const activation = (n: TfNode, fused: string[], x: string, args: string[]): string => {
    let y = x;
    for (const f of fused) {
      if (f === 'BiasAdd') continue;
      if (f === 'Relu') y = add('Relu', [y], [fresh(n.name)]);
      else if (f === 'Relu6') y = add('Clip', [y, f32(n.name, [], [0]), f32(n.name, [], [6])], [fresh(n.name)]);
      else if (f === 'Sigmoid') y = add('Sigmoid', [y], [fresh(n.name)]);
      else if (f === 'Prelu') {
        const alpha = constant(args[1]);
        y = add('PRelu', [y, f32(n.name, [alpha.values.length, 1, 1], alpha.values)], [fresh(n.name)]);
      } else if (f === 'LeakyRelu') y = add('LeakyRelu', [y], [fresh(n.name)], [{ name: 'alpha', type: A.FLOAT, f: n.attr?.leakyrelu_alpha?.f ?? 0.2 }]);
      else throw new Error(`${n.name}: fused ${f}`);
    }
    return y;
  };

  const convert = (n: TfNode) => {
    const ins = (n.input ?? []).filter((r) => !r.startsWith('^'));
    const x = ins.length ? valueName(ins[0]) : '';
    const out = n.name;
    const fused = (n.attr?.fused_ops?.list?.s ?? []).map(decode);
    switch (n.op) {
      case 'Placeholder': {
        const dims = (n.attr?.shape?.shape?.dim ?? []).map((d) => Number(d.size));
        inputs.push({
          name: out,
          type: {
            tensorType: {
              elemType: ONNX_TYPE[n.attr?.dtype?.type ?? 'DT_FLOAT'],
              shape: { dim: dims.map((d) => (d < 0 ? { dimParam: 'batch' } : { dimValue: d })) },
            },
          },
        });
        return;
      }
      case 'Const':
        return;
      case 'Identity':
        add('Identity', [x], [out]);
        return;
      case 'Conv2D':
      case '_FusedConv2D':
      case 'DepthwiseConv2dNative':
      case 'FusedDepthwiseConv2dNative': {
        if (fused.some((f) => f === 'FusedBatchNorm')) throw new Error(`${n.name}: fused batch norm`);
        const w = constant(ins[1]);
        const [kh, kw, cin, m] = w.shape;
        const depthwise = n.op.includes('Depthwise');
        const dims = depthwise ? [cin * m, 1, kh, kw] : [m, cin, kh, kw];
        const dst = convWeights(w.values as Float32Array, kh, kw, cin, m, depthwise);
        const convIns = [nchw(x), f32(`${n.name}/W`, dims, dst)];
        if (fused.includes('BiasAdd')) {
          const b = constant(ins[2]);
          convIns.push(f32(`${n.name}/B`, [b.values.length], b.values));
        }
        const strides = listI(n.attr?.strides);
        const dil = listI(n.attr?.dilations);
        const conv = add(
          'Conv',
          convIns,
          [fresh(n.name)],
          [
            iList('kernel_shape', [kh, kw]),
            iList('strides', [strides[1] ?? 1, strides[2] ?? 1]),
            iList('dilations', [dil[1] ?? 1, dil[2] ?? 1]),
            ia('group', depthwise ? cin : 1),
            ...padding(n, [kh, kw]),
          ],
        );
        nhwc(activation(n, fused, conv, ins.slice(2)), out);
        return;
      }
      case 'MaxPool':
      case 'AvgPool': {
        const k = listI(n.attr?.ksize);
        const s = listI(n.attr?.strides);
        const attrs = [iList('kernel_shape', [k[1], k[2]]), iList('strides', [s[1], s[2]]), ...padding(n, [k[1], k[2]])];
        if (n.op === 'AvgPool') attrs.push(ia('count_include_pad', 0));
        nhwc(add(n.op === 'MaxPool' ? 'MaxPool' : 'AveragePool', [nchw(x)], [fresh(n.name)], attrs), out);
        return;
      }
      case 'Add':
      case 'AddV2':
      case 'Sub':
      case 'Mul':
      case 'RealDiv':
      case 'Minimum':
      case 'Maximum':
      case 'Equal': {
        const op = { Add: 'Add', AddV2: 'Add', Sub: 'Sub', Mul: 'Mul', RealDiv: 'Div', Minimum: 'Min', Maximum: 'Max', Equal: 'Equal' }[n.op]!;
        add(op, ins.map(valueName), [out]);
        return;
      }
      case 'FloorMod':
        // ONNX's Mod takes the divisor's sign (a floor modulo) for integers only.
        if (n.attr?.T?.type !== 'DT_INT32') throw new Error(`${n.name}: FloorMod of ${n.attr?.T?.type}`);
        add('Mod', ins.map(valueName), [out]);
        return;
      case 'FloorDiv': {
        // Integer division truncates in ONNX: the same as flooring for the non-negative indices these graphs divide.
        if (n.attr?.T?.type !== 'DT_INT32') throw new Error(`${n.name}: FloorDiv of ${n.attr?.T?.type}`);
        add('Div', ins.map(valueName), [out]);
        return;
      }
      case 'Relu':
      case 'Sigmoid':
      case 'Tanh':
      case 'Neg':
      case 'Exp':
      case 'Sqrt':
        add(n.op, [x], [out]);
        return;
      case 'Relu6':
        add('Clip', [x, f32(n.name, [], [0]), f32(n.name, [], [6])], [out]);
        return;
      case 'Prelu':
        add('PRelu', [x, valueName(ins[1])], [out]);
        return;
      case 'Softmax':
        add('Softmax', [x], [out], [ia('axis', -1)]);
        return;
      case 'Mean':
        add('ReduceMean', [x], [out], [iList('axes', ints(ins[1])), ia('keepdims', n.attr?.keep_dims?.b ? 1 : 0)]);
        return;
      case 'MatMul':
      case '_FusedMatMul': {
        const ta = n.attr?.transpose_a?.b ? 1 : 0;
        const tb = n.attr?.transpose_b?.b ? 1 : 0;
        const gemmIns = [x, valueName(ins[1])];
        if (fused.includes('BiasAdd')) gemmIns.push(valueName(ins[2]));
        const g = add('Gemm', gemmIns, [fresh(n.name)], [ia('transA', ta), ia('transB', tb)]);
        // The optimizer removes the Identity.
        add('Identity', [activation(n, fused, g, ins.slice(2))], [out]);
        return;
      }
      case 'Reshape':
        add('Reshape', [x, i64(n.name, ints(ins[1]))], [out]);
        return;
      case 'Pad': {
        const p = ints(ins[1]);
        const before = p.filter((_, k) => k % 2 === 0);
        const after = p.filter((_, k) => k % 2 === 1);
        add('Pad', [x, i64(n.name, [...before, ...after])], [out], [sa('mode', 'constant')]);
        return;
      }
      case 'ConcatV2':
        add('Concat', ins.slice(0, -1).map(valueName), [out], [ia('axis', ints(ins[ins.length - 1])[0])]);
        return;
      case 'ResizeBilinear': {
        const hw = ints(ins[1]);
        const mode = n.attr?.align_corners?.b ? 'align_corners' : n.attr?.half_pixel_centers?.b ? 'half_pixel' : 'asymmetric';
        const shape = add('Shape', [x], [fresh(n.name)]);
        const batch = add('Slice', [shape, i64(n.name, [0]), i64(n.name, [1])], [fresh(n.name)]);
        const channels = add('Slice', [shape, i64(n.name, [3]), i64(n.name, [4])], [fresh(n.name)]);
        const sizes = add('Concat', [batch, i64(n.name, hw), channels], [fresh(n.name)], [ia('axis', 0)]);
        const r = add(
          'Resize',
          [nchw(x), '', '', add('Gather', [sizes, i64(n.name, [0, 3, 1, 2])], [fresh(n.name)], [ia('axis', 0)])],
          [fresh(n.name)],
          [sa('mode', 'linear'), sa('coordinate_transformation_mode', mode)],
        );
        nhwc(r, out);
        return;
      }
      case 'TopKV2': {
        const k = ints(ins[1]);
        const idx = fresh(n.name);
        add('TopK', [x, i64(n.name, k)], [out, idx], [ia('axis', -1), ia('largest', 1), ia('sorted', n.attr?.sorted?.b === false ? 0 : 1)]);
        add('Cast', [idx], [`${out}:1`], [ia('to', T.INT32)]);
        return;
      }
      case 'ExpandDims':
        add('Unsqueeze', [x, i64(n.name, ints(ins[1]))], [out]);
        return;
      case 'GatherV2':
        if (Number(n.attr?.batch_dims?.i ?? 0) !== 0) throw new Error(`${n.name}: batch_dims`);
        add('Gather', [x, valueName(ins[1])], [out], [ia('axis', ints(ins[2])[0])]);
        return;
      case 'Cast':
        add('Cast', [x], [out], [ia('to', ONNX_TYPE[n.attr?.DstT?.type ?? ''] ?? T.FLOAT)]);
        return;
      case 'StridedSlice': {
        const mask = (k: string) => Number(n.attr?.[k]?.i ?? 0);
        if (mask('ellipsis_mask') || mask('new_axis_mask')) throw new Error(`${n.name}: ellipsis or new axis`);
        const begin = ints(ins[1]);
        const end = ints(ins[2]);
        const step = ints(ins[3]);
        const big = 2 ** 31 - 1;
        const starts: number[] = [];
        const ends: number[] = [];
        const shrink: number[] = [];
        for (let a = 0; a < begin.length; a++) {
          const bit = 1 << a;
          starts.push(mask('begin_mask') & bit ? (step[a] > 0 ? 0 : -1) : begin[a]);
          if (mask('shrink_axis_mask') & bit) {
            ends.push(begin[a] === -1 ? big : begin[a] + 1);
            shrink.push(a);
          } else ends.push(mask('end_mask') & bit ? (step[a] > 0 ? big : -big) : end[a]);
        }
        const axes = begin.map((_, a) => a);
        const sliced = add('Slice', [x, i64(n.name, starts), i64(n.name, ends), i64(n.name, axes), i64(n.name, step)], [shrink.length ? fresh(n.name) : out]);
        if (shrink.length) add('Squeeze', [sliced, i64(n.name, shrink)], [out]);
        return;
      }
      default:
        throw new Error(`${n.name}: operator ${n.op} is not written as ONNX`);
    }
  };

  // The nodes the outputs need, in an order where each comes after its inputs.
  const order: TfNode[] = [];
  const state = new Map<string, 1 | 2>();
  const visit = (name: string) => {
    const s = state.get(name);
    if (s === 2) return;
    if (s === 1) throw new Error(`the graph has a cycle at ${name}`);
    const n = byName.get(name);
    if (!n) throw new Error(`no node ${name}`);
    state.set(name, 1);
    for (const r of n.input ?? []) if (!r.startsWith('^')) visit(nodeOf(r));
    state.set(name, 2);
    order.push(n);
  };
  // An output may be named by the model's signature rather than by its node.
  const signed = json.signature?.outputs ?? {};
  const source = (o: string) => signed[o]?.name ?? o;
  for (const o of outputs) visit(nodeOf(source(o)));
  // Constants used as values (not read as attributes) become initializers.
  const usedAsValue = new Set<string>();
  for (const n of order) convert(n);
  for (const o of outputs) if (valueName(source(o)) !== valueName(o)) add('Identity', [valueName(source(o))], [valueName(o)]);
  for (const node of nodes) for (const i of node.input ?? []) if (i && weights.has(i) && !initializers.has(i)) usedAsValue.add(i);
  for (const name of usedAsValue) {
    const c = weights.get(name)!;
    addInit(name, c.dtype === 'float32' ? T.FLOAT : c.dtype === 'int32' ? T.INT32 : T.BOOL, c.shape, c.values);
  }

  const model = onnx.ModelProto.create({
    irVersion: 8,
    opsetImport: [{ domain: '', version: 13 }],
    producerName: 'media-index',
    graph: {
      name: path.basename(modelJson, '.json'),
      node: nodes,
      initializer: [...initializers.values()],
      input: inputs,
      output: outputs.map((o) => ({ name: valueName(o), type: { tensorType: { elemType: T.FLOAT } } })),
    },
  });
  return onnx.ModelProto.encode(model).finish();
}
