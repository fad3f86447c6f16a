// Tiny ONNX models the tests generate, with the input and output names of the real models, so the
// optional-model code paths (loading, tokenizing, inference, pooling) run for real without weights.
import onnxProto, { type onnx as OnnxTypes } from 'onnx-proto';

const { onnx } = onnxProto;

/** Deterministic pseudo-random floats in -1..1. */
export function seededTable(rows: number, cols: number, seed = 7): Float32Array {
  const out = new Float32Array(rows * cols);
  let s = seed >>> 0;
  for (let i = 0; i < out.length; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = (s / 2 ** 32) * 2 - 1;
  }
  return out;
}

function valueInfo(name: string, elemType: number, dims: Array<string | number>): OnnxTypes.IValueInfoProto {
  return {
    name,
    type: {
      tensorType: {
        elemType,
        shape: { dim: dims.map((d) => (typeof d === 'number' ? { dimValue: d } : { dimParam: d })) },
      },
    },
  };
}

/**
 * A BERT-shaped sentence encoder (as all-MiniLM-L6-v2 in transformers.js): inputs input_ids,
 * attention_mask, token_type_ids (int64 [batch, sequence]); output last_hidden_state, here just
 * the row of `table` for each token.
 */
export function tinyEncoder(table: Float32Array, vocab: number, hidden: number): Uint8Array {
  const INT64 = onnx.TensorProto.DataType.INT64;
  const FLOAT = onnx.TensorProto.DataType.FLOAT;
  const model = onnx.ModelProto.create({
    irVersion: 8,
    opsetImport: [{ domain: '', version: 14 }],
    producerName: 'media-index-tests',
    graph: {
      name: 'tiny-encoder',
      initializer: [
        { name: 'embeddings', dims: [vocab, hidden], dataType: FLOAT, rawData: new Uint8Array(table.buffer, table.byteOffset, table.byteLength) },
      ],
      node: [{ opType: 'Gather', input: ['embeddings', 'input_ids'], output: ['last_hidden_state'], attribute: [{ name: 'axis', i: 0, type: onnx.AttributeProto.AttributeType.INT }] }],
      input: [
        valueInfo('input_ids', INT64, ['batch', 'sequence']),
        valueInfo('attention_mask', INT64, ['batch', 'sequence']),
        valueInfo('token_type_ids', INT64, ['batch', 'sequence']),
      ],
      output: [valueInfo('last_hidden_state', FLOAT, ['batch', 'sequence', hidden])],
    },
  });
  return onnx.ModelProto.encode(model).finish();
}
