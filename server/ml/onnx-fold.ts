// Scalar multiplications and additions folded into the convolutions beside them, in ONNX graphs
// exported from PaddlePaddle (the PP-OCR text detector and recognizers). Their PPLCNetV3 backbone
// follows each convolution with a learnable scale and shift (`Mul`, `Add` by one number), a
// hard-swish written as four operators (`Add` 3, `Clip` 0–6, `Mul`, `Div` 6), and a second scale
// and shift: eight passes over each feature map where the convolution is one. ONNX Runtime's
// optimizer fuses none of them, and each pass also reorders the map out of and back into its
// blocked layout. Here, before the session is made:
//   1. Conv → Mul(a) → Add(b) becomes the Conv with weights a·W and bias a·B + b;
//   2. the four-operator hard-swish becomes x · HardSigmoid(x) (α 1/6, β 1/2), which ONNX
//      Runtime fuses into the convolution before it;
//   3. Mul(c) → Add(d) → Conv, where the convolution has no padding, becomes the Conv with weights
//      c·W and bias B + d·ΣW.
// Each is the same arithmetic in another order: the outputs differ by float rounding only
// (test/onnx-fold.test.ts compares the detector's maps over real pictures).
import onnxProto, { type onnx as OnnxTypes } from 'onnx-proto';

const { onnx } = onnxProto;
const FLOAT = onnx.TensorProto.DataType.FLOAT;
type Node = OnnxTypes.INodeProto;
type Tensor = OnnxTypes.ITensorProto;

/** The graph as a model file, folded, with how many chains of each kind were folded. */
export function foldScalarChains(bytes: Uint8Array): { model: Uint8Array; folded: { convScale: number; hardSwish: number; scaleConv: number } } {
  const model = onnx.ModelProto.decode(bytes);
  const graph = model.graph;
  // Weights kept in files beside the model are left as they are.
  const external = (graph?.initializer ?? []).some((t) => t.dataLocation === onnx.TensorProto.DataLocation.EXTERNAL || t.externalData?.length);
  if (!graph?.node || external) return { model: bytes, folded: { convScale: 0, hardSwish: 0, scaleConv: 0 } };
  const f = new Folder(graph);
  const folded = { convScale: f.convScale(), hardSwish: f.hardSwish(), scaleConv: f.scaleConv() };
  f.finish();
  return { model: onnx.ModelProto.encode(model).finish(), folded };
}

class Folder {
  private readonly tensors = new Map<string, Tensor>();
  private readonly outputs: Set<string>;
  private removed = new Set<Node>();
  /** The live nodes reading each tensor, made again after each fold. */
  private readers: Map<string, Node[]> | null = null;
  private added: Tensor[] = [];
  private serial = 0;

  constructor(private readonly graph: OnnxTypes.IGraphProto) {
    for (const t of graph.initializer ?? []) if (t.name) this.tensors.set(t.name, t);
    for (const n of graph.node ?? []) if (n.opType === 'Constant' && n.output?.[0] && n.attribute?.[0]?.t) this.tensors.set(n.output[0], n.attribute[0].t);
    this.outputs = new Set((graph.output ?? []).map((o) => o.name ?? ''));
  }

  /** 1. Conv → Mul(a) [→ Add(b)]. */
  convScale(): number {
    let n = 0;
    for (const conv of this.live('Conv')) {
      const weights = this.convWeights(conv);
      if (!weights) continue;
      const mul = this.soleConsumer(conv.output![0], 'Mul');
      const a = mul && this.otherScalar(mul, conv.output![0]);
      if (!mul || a === null || a === undefined) continue;
      const { last, add, shift } = this.shiftAfter(mul);
      const { W, B } = weights;
      this.setWeights(
        conv,
        W.map((w) => w * a),
        B.map((v) => v * a + shift),
      );
      conv.output![0] = last.output![0];
      this.remove(mul, ...(add ? [add] : []));
      n++;
    }
    return n;
  }

  /** 2. Add(x, 3) → Clip(0, 6) → Mul(x, ·) → Div(6): x · HardSigmoid(x). */
  hardSwish(): number {
    let n = 0;
    for (const add of this.live('Add')) {
      const x = add.input?.[0];
      if (!x || this.scalar(add.input![1]) !== 3) continue;
      const clip = this.soleConsumer(add.output![0], 'Clip');
      if (!clip || this.scalar(clip.input?.[1]) !== 0 || this.scalar(clip.input?.[2]) !== 6) continue;
      const mul = this.soleConsumer(clip.output![0], 'Mul');
      if (!mul || !mul.input?.includes(x)) continue;
      const div = this.soleConsumer(mul.output![0], 'Div');
      if (!div || div.input?.[0] !== mul.output![0] || this.scalar(div.input?.[1]) !== 6) continue;
      const gate = `${div.output![0]}__gate`;
      // Reused in place: the Add becomes the gate, the Div the product.
      Object.assign(add, {
        opType: 'HardSigmoid',
        input: [x],
        output: [gate],
        attribute: [
          { name: 'alpha', type: onnx.AttributeProto.AttributeType.FLOAT, f: 1 / 6 },
          { name: 'beta', type: onnx.AttributeProto.AttributeType.FLOAT, f: 0.5 },
        ],
      });
      Object.assign(div, { opType: 'Mul', input: [x, gate], attribute: [] });
      this.remove(clip, mul);
      n++;
    }
    return n;
  }

  /** 3. Mul(c) [→ Add(d)] → Conv. */
  scaleConv(): number {
    let n = 0;
    for (const mul of this.live('Mul')) {
      const [x, y] = mul.input ?? [];
      const c = this.scalar(y) ?? this.scalar(x);
      const h = this.scalar(y) !== null ? x : y;
      if (c === null || c === 0 || !h) continue;
      const { last, add, shift } = this.shiftAfter(mul);
      const conv = this.soleConsumer(last.output![0], 'Conv');
      const weights = conv && conv.input![0] === last.output![0] ? this.convWeights(conv) : null;
      if (!conv || !weights) continue;
      const { W, B, perOut } = weights;
      const unpadded = (this.ints(conv, 'pads') ?? []).every((p) => p === 0) && ['', 'NOTSET', 'VALID'].includes(this.text(conv, 'auto_pad'));
      const plain = (this.ints(conv, 'group')?.[0] ?? 1) === 1;
      // A padded convolution's border must stay zero, so its shift cannot go into its bias; keeping
      // the Add (by d/c) and folding the scale alone measured no faster, and 24 MiB more of ONNX
      // Runtime's arena at 1,024 px.
      if (add && !(unpadded && plain)) continue;
      this.setWeights(
        conv,
        W.map((w) => w * c),
        B.map((v, o) => v + shift * W.subarray(o * perOut, (o + 1) * perOut).reduce((s, w) => s + w, 0)),
      );
      conv.input![0] = h;
      this.remove(mul, ...(add ? [add] : []));
      n++;
    }
    return n;
  }

  /** The graph without the nodes folded away, and without the constants nothing reads any more. */
  finish(): void {
    const nodes = this.graph.node!.filter((n) => !this.removed.has(n));
    // A graph input that is also an initializer (older exports list every weight as one) stays.
    const read = new Set<string>([...this.outputs, ...(this.graph.input ?? []).map((i) => i.name ?? '')]);
    for (const n of nodes) for (const i of n.input ?? []) read.add(i);
    this.graph.node = nodes.filter((n) => n.opType !== 'Constant' || (n.output ?? []).some((o) => read.has(o)));
    this.graph.initializer = [...(this.graph.initializer ?? []), ...this.added].filter((t) => read.has(t.name ?? ''));
  }

  /** The Add of one number that alone reads a scaling Mul, where there is one: the chain's last node, and its shift (else 0). */
  private shiftAfter(mul: Node): { last: Node; add: Node | null; shift: number } {
    const add = this.soleConsumer(mul.output![0], 'Add');
    const shift = add ? this.otherScalar(add, mul.output![0]) : null;
    return add && shift !== null ? { last: add, add, shift } : { last: mul, add: null, shift: 0 };
  }

  private live(op: string): Node[] {
    return this.graph.node!.filter((n) => n.opType === op && !this.removed.has(n));
  }

  private remove(...nodes: Node[]): void {
    for (const n of nodes) this.removed.add(n);
    this.readers = null;
  }

  /** The one live node reading `name`, where it is of type `op` and `name` is no graph output. */
  private soleConsumer(name: string, op: string): Node | null {
    if (this.outputs.has(name)) return null;
    if (!this.readers) {
      this.readers = new Map();
      for (const n of this.graph.node!) {
        if (this.removed.has(n)) continue;
        for (const i of new Set(n.input ?? [])) this.readers.set(i, [...(this.readers.get(i) ?? []), n]);
      }
    }
    const readers = this.readers.get(name) ?? [];
    return readers.length === 1 && readers[0].opType === op ? readers[0] : null;
  }

  /** The scalar a binary node takes beside `name`, or null. */
  private otherScalar(node: Node, name: string): number | null {
    const [a, b] = node.input ?? [];
    if (a === name && b !== name) return this.scalar(b);
    if (b === name && a !== name) return this.scalar(a);
    return null;
  }

  private scalar(name: string | undefined | null): number | null {
    const t = name ? this.tensors.get(name) : undefined;
    if (!t || t.dataType !== FLOAT) return null;
    const v = floats(t);
    return v.length === 1 ? v[0] : null;
  }

  /** A convolution's float weights and bias (zeros where it has none), or null. */
  private convWeights(conv: Node): { W: Float32Array; B: Float32Array; perOut: number } | null {
    const w = this.tensors.get(conv.input?.[1] ?? '');
    if (!w || w.dataType !== FLOAT || !w.dims?.length) return null;
    const outs = Number(w.dims[0]);
    const W = floats(w);
    if (W.length === 0 || W.length !== w.dims.reduce((n: number, d) => n * Number(d), 1)) return null;
    const b = conv.input?.[2] ? this.tensors.get(conv.input[2]) : undefined;
    if (conv.input?.[2] && (!b || b.dataType !== FLOAT)) return null;
    return { W, B: b ? floats(b) : new Float32Array(outs), perOut: W.length / outs };
  }

  private setWeights(conv: Node, W: Float32Array, B: Float32Array): void {
    const dims = this.tensors.get(conv.input![1])!.dims!;
    const input = conv.input!;
    input[1] = this.initializer(W, dims.map(Number));
    input[2] = this.initializer(B, [B.length]);
  }

  private constant(v: Float32Array): string {
    return this.initializer(v, []);
  }

  /** A new initializer (never one another node may share), by its new name. */
  private initializer(values: Float32Array, dims: number[]): string {
    const name = `folded__${this.serial++}`;
    const t: Tensor = { name, dataType: FLOAT, dims, rawData: new Uint8Array(values.buffer.slice(values.byteOffset, values.byteOffset + values.byteLength)) };
    this.tensors.set(name, t);
    this.added.push(t);
    return name;
  }

  private ints(node: Node, name: string): number[] | null {
    const a = node.attribute?.find((x) => x.name === name);
    if (!a) return null;
    return a.ints?.length ? a.ints.map(Number) : a.i !== undefined && a.i !== null ? [Number(a.i)] : [];
  }

  private text(node: Node, name: string): string {
    const s = node.attribute?.find((x) => x.name === name)?.s;
    return s ? new TextDecoder().decode(s) : '';
  }
}

/** A float tensor's values (a copy). */
function floats(t: Tensor): Float32Array {
  if (t.rawData && t.rawData.length) {
    const raw = t.rawData;
    return new Float32Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength));
  }
  return Float32Array.from(t.floatData ?? []);
}
