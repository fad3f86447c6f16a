"""Whisper weights in CTranslate2's format to the ONNX files transformers.js loads.

    python whisper_onnx.py MODEL.BIN CONFIG_DIR OUT_DIR

MODEL.BIN is a CTranslate2 `model.bin` of a Whisper model (format version 6, `WhisperSpec`);
CONFIG_DIR holds the Hugging Face configs written beside the ONNX files (config.json,
generation_config.json, preprocessor_config.json, tokenizer files). OUT_DIR receives the configs
and `onnx/encoder_model.onnx`, `onnx/decoder_model_merged.onnx` and their int8 variants
(`*_quantized.onnx`), named and shaped as the hub's Whisper repositories for transformers.js name and
shape them:

- encoder_model: input_features [batch, n_mels, 3000] -> last_hidden_state [batch, 1500, d_model]
- decoder_model_merged: input_ids, encoder_hidden_states, past_key_values.{i}.{decoder,encoder}.{key,value},
  use_cache_branch -> logits, present.{i}.{decoder,encoder}.{key,value}, and the attention weights
  decoder_attentions.{i} / cross_attentions.{i} that word-level timestamps read.

The graphs are written with the `onnx` package from the tensors alone (no deep-learning framework):
CTranslate2 keeps each attention's query, key and value projections fused (self-attention: one
[3d, d] matrix; cross-attention: the query alone, then key and value fused [2d, d]) and the key
projection's bias as zeros, which is Whisper's own layout once split. Weights are fp16 in the file and
fp32 in the ONNX files; the int8 variants are dynamic quantizations of the MatMul weights.
"""

import json
import os
import shutil
import struct
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17
DTYPES = {0: np.float32, 1: np.int8, 2: np.int16, 3: np.int32, 4: np.float16}


def read_ct2(path):
    """The variables of a CTranslate2 model.bin (aliases resolved) and the spec's name."""
    with open(path, "rb") as f:
        buf = f.read()
    at = 0

    def take(fmt):
        nonlocal at
        (v,) = struct.unpack_from(fmt, buf, at)
        at += struct.calcsize(fmt)
        return v

    def text():
        nonlocal at
        n = take("<H")
        v = buf[at : at + n - 1].decode()
        at += n
        return v

    version = take("<I")
    if version != 6:
        raise SystemExit(f"{path}: CTranslate2 format version {version}, expected 6")
    spec = text()
    take("<I")  # revision
    out = {}
    for _ in range(take("<I")):
        name = text()
        dims = [take("<I") for _ in range(take("<B"))]
        dtype = DTYPES[take("<B")]
        size = take("<I")
        out[name] = np.frombuffer(buf, dtype=dtype, count=size // np.dtype(dtype).itemsize, offset=at).reshape(dims)
        at += size
    for _ in range(take("<I")):
        alias, target = text(), text()
        out[alias] = out[target]
    if spec != "WhisperSpec":
        raise SystemExit(f"{path}: a {spec}, not a WhisperSpec")
    return out


class Graph:
    """Nodes, initializers and fresh names for one ONNX graph."""

    def __init__(self, prefix=""):
        self.nodes, self.inits, self.n, self.prefix = [], [], 0, prefix

    def name(self, hint):
        self.n += 1
        return f"{self.prefix}{hint}_{self.n}"

    def const(self, hint, array):
        name = self.name(hint)
        self.inits.append(numpy_helper.from_array(np.ascontiguousarray(array), name))
        return name

    def op(self, op_type, inputs, hint=None, outputs=1, **attrs):
        outs = [self.name(hint or op_type) for _ in range(outputs)] if isinstance(outputs, int) else outputs
        self.nodes.append(helper.make_node(op_type, inputs, outs, name=self.name(op_type + "_node"), **attrs))
        return outs[0] if len(outs) == 1 else outs


def f32(a):
    return np.asarray(a, dtype=np.float32)


def i64(*v):
    return np.array(v, dtype=np.int64)


class Whisper:
    def __init__(self, w):
        self.w = w
        self.d = w["encoder/conv1/weight"].shape[0]
        self.mels = w["encoder/conv1/weight"].shape[1]
        self.heads = int(w["encoder/num_heads"])
        self.dh = self.d // self.heads
        self.enc_layers = sum(1 for k in w if k.startswith("encoder/layer_") and k.endswith("self_attention/linear_1/bias"))
        self.dec_layers = sum(1 for k in w if k.startswith("decoder/layer_") and k.endswith("self_attention/linear_1/bias"))
        self.vocab = w["decoder/embeddings/weight"].shape[0]
        self.shared = {}

    def weight(self, g, key, transpose=True, scale=1.0):
        """A Linear's weight as a MatMul operand ([in, out]), fp32."""
        a = f32(self.w[key]) * scale
        return g.const(key.replace("/", "."), a.T if transpose else a)

    def linear(self, g, x, key, scale=1.0, bias=True):
        y = g.op("MatMul", [x, self.weight(g, f"{key}/weight", scale=scale)])
        if bias:
            y = g.op("Add", [y, g.const(f"{key}.bias", f32(self.w[f"{key}/bias"]) * scale)])
        return y

    def layer_norm(self, g, x, key):
        return g.op("LayerNormalization", [x, g.const(f"{key}.gamma", f32(self.w[f"{key}/gamma"])), g.const(f"{key}.beta", f32(self.w[f"{key}/beta"]))], axis=-1, epsilon=1e-5)

    def gelu(self, g, x):
        # 0.5 x (1 + erf(x / sqrt 2)): onnxruntime fuses it into one Gelu.
        e = g.op("Erf", [g.op("Div", [x, g.const("sqrt2", f32(np.sqrt(2.0)))])])
        return g.op("Mul", [g.op("Mul", [x, g.const("half", f32(0.5))]), g.op("Add", [e, g.const("one", f32(1.0))])])

    def heads_of(self, g, x):
        """[B, T, d] -> [B, H, T, dh]"""
        return g.op("Transpose", [g.op("Reshape", [x, g.const("heads_shape", i64(0, -1, self.heads, self.dh))])], perm=[0, 2, 1, 3])

    def merge_heads(self, g, x):
        return g.op("Reshape", [g.op("Transpose", [x], perm=[0, 2, 1, 3]), g.const("merge_shape", i64(0, -1, self.d))])

    def split_fused(self, g, x, parts):
        return g.op("Split", [x, g.const("split", i64(*([self.d] * parts)))], axis=-1, outputs=parts)

    def attend(self, g, q, k, v, mask=None, probs_out=None):
        """Scaled (q already scaled) dot-product attention; returns the merged output and the weights."""
        scores = g.op("MatMul", [q, g.op("Transpose", [k], perm=[0, 1, 3, 2])])
        if mask is not None:
            scores = g.op("Add", [scores, mask])
        probs = g.op("Softmax", [scores], axis=-1, outputs=[probs_out] if probs_out else 1)
        return self.merge_heads(g, g.op("MatMul", [probs, v])), probs

    def encoder(self):
        g, w = Graph(), self.w
        x = "input_features"
        x = g.op("Conv", [x, g.const("conv1.w", f32(w["encoder/conv1/weight"])), g.const("conv1.b", f32(w["encoder/conv1/bias"]))], kernel_shape=[3], pads=[1, 1])
        x = self.gelu(g, x)
        x = g.op("Conv", [x, g.const("conv2.w", f32(w["encoder/conv2/weight"])), g.const("conv2.b", f32(w["encoder/conv2/bias"]))], kernel_shape=[3], pads=[1, 1], strides=[2])
        x = self.gelu(g, x)
        x = g.op("Transpose", [x], perm=[0, 2, 1])
        x = g.op("Add", [x, g.const("enc_pos", f32(w["encoder/position_encodings/encodings"]))])
        scale = self.dh**-0.5
        for i in range(self.enc_layers):
            p = f"encoder/layer_{i}"
            h = self.layer_norm(g, x, f"{p}/self_attention/layer_norm")
            q, k, v = self.split_fused(g, self.fused_qkv(g, h, f"{p}/self_attention/linear_0", scale), 3)
            a, _ = self.attend(g, self.heads_of(g, q), self.heads_of(g, k), self.heads_of(g, v))
            x = g.op("Add", [x, self.linear(g, a, f"{p}/self_attention/linear_1")])
            x = g.op("Add", [x, self.mlp(g, x, f"{p}/ffn")])
        self.layer_norm_out(g, x, "encoder/layer_norm", "last_hidden_state")
        graph = helper.make_graph(
            g.nodes,
            "whisper_encoder",
            [helper.make_tensor_value_info("input_features", TensorProto.FLOAT, ["batch_size", self.mels, 3000])],
            [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, ["batch_size", 1500, self.d])],
            g.inits,
        )
        return graph

    def layer_norm_out(self, g, x, key, out):
        g.op("LayerNormalization", [x, g.const(f"{key}.gamma", f32(self.w[f"{key}/gamma"])), g.const(f"{key}.beta", f32(self.w[f"{key}/beta"]))], outputs=[out], axis=-1, epsilon=1e-5)

    def fused_qkv(self, g, x, key, scale):
        """x @ [Wq*s; Wk; Wv]^T + [bq*s; 0; bv]: the query scaled by dh^-0.5 as Whisper scales it."""
        wt = f32(self.w[f"{key}/weight"]).copy()
        b = f32(self.w[f"{key}/bias"]).copy()
        wt[: self.d] *= scale
        b[: self.d] *= scale
        return g.op("Add", [g.op("MatMul", [x, g.const(key.replace("/", ".") + ".w", wt.T)]), g.const(key.replace("/", ".") + ".b", b)])

    def mlp(self, g, x, key):
        h = self.layer_norm(g, x, f"{key}/layer_norm")
        return self.linear(g, self.gelu(g, self.linear(g, h, f"{key}/linear_0")), f"{key}/linear_1")

    def decoder(self):
        g, w, L = Graph(), self.w, self.dec_layers
        H, dh = self.heads, self.dh
        inputs = [
            helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch_size", "decoder_sequence_length"]),
            helper.make_tensor_value_info("encoder_hidden_states", TensorProto.FLOAT, ["batch_size", "encoder_sequence_length_out", self.d]),
        ]
        for i in range(L):
            for kind, length in (("decoder", "past_decoder_sequence_length"), ("encoder", "encoder_sequence_length_out")):
                for kv in ("key", "value"):
                    inputs.append(helper.make_tensor_value_info(f"past_key_values.{i}.{kind}.{kv}", TensorProto.FLOAT, ["batch_size", H, length, dh]))
        inputs.append(helper.make_tensor_value_info("use_cache_branch", TensorProto.BOOL, [1]))

        # Positions P .. P+S-1, P the length of the past.
        past_len = g.op("Gather", [g.op("Shape", ["past_key_values.0.decoder.key"]), g.const("two", i64(2))], axis=0)
        ids_shape = g.op("Shape", ["input_ids"])
        seq = g.op("Gather", [ids_shape, g.const("one_i", i64(1))], axis=0)
        total = g.op("Add", [past_len, seq])
        scalar = lambda t: g.op("Squeeze", [t, g.const("ax0", i64(0))])
        positions = g.op("Range", [scalar(past_len), scalar(total), g.const("step", np.array(1, dtype=np.int64))])
        x = g.op("Gather", [g.const("embed", f32(w["decoder/embeddings/weight"])), "input_ids"], axis=0)
        x = g.op("Add", [x, g.op("Gather", [g.const("dec_pos", f32(w["decoder/position_encodings/encodings"])), positions], axis=0)])

        # Causal mask [S, P+S]: query i (at P+i) sees keys 0..P+i.
        keys = g.op("Unsqueeze", [g.op("Range", [g.const("zero", np.array(0, dtype=np.int64)), scalar(total), g.const("step1", np.array(1, dtype=np.int64))]), g.const("ax0b", i64(0))])
        queries = g.op("Unsqueeze", [positions, g.const("ax1", i64(1))])
        mask = g.op("Where", [g.op("Greater", [keys, queries]), g.const("neg", f32(-1e9)), g.const("zero_f", f32(0.0))])

        # Cross-attention keys and values: from the past on a cached step, else from the encoder.
        scale = dh**-0.5
        sub = Graph(prefix="fresh_")
        fresh = []
        for i in range(L):
            key = f"decoder/layer_{i}/attention/linear_1"
            kv = sub.op("MatMul", ["encoder_hidden_states", g.const(f"cross{i}.kv_w", f32(w[f"{key}/weight"]).T)])
            kv = sub.op("Add", [kv, g.const(f"cross{i}.kv_b", f32(w[f"{key}/bias"]))])
            k, v = sub.op("Split", [kv, g.const("split2", i64(self.d, self.d))], axis=-1, outputs=2)
            for t, kind in ((k, "key"), (v, "value")):
                r = sub.op("Reshape", [t, g.const("heads_shape_x", i64(0, -1, H, dh))])
                fresh.append(sub.op("Transpose", [r], perm=[0, 2, 1, 3], outputs=[f"fresh_{i}_{kind}"]))
        cached = Graph(prefix="cached_")
        kept = []
        for i in range(L):
            for kind in ("key", "value"):
                kept.append(cached.op("Identity", [f"past_key_values.{i}.encoder.{kind}"], outputs=[f"cached_{i}_{kind}"]))
        out_info = lambda names: [helper.make_tensor_value_info(n, TensorProto.FLOAT, None) for n in names]
        cross = g.op(
            "If",
            ["use_cache_branch"],
            outputs=[f"present.{i}.encoder.{kind}" for i in range(L) for kind in ("key", "value")],
            then_branch=helper.make_graph(cached.nodes, "cached_cross", [], out_info(kept)),
            else_branch=helper.make_graph(sub.nodes, "fresh_cross", [], out_info(fresh)),
        )

        outputs = [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch_size", "decoder_sequence_length", self.vocab])]
        for i in range(L):
            p = f"decoder/layer_{i}"
            h = self.layer_norm(g, x, f"{p}/self_attention/layer_norm")
            q, k, v = self.split_fused(g, self.fused_qkv(g, h, f"{p}/self_attention/linear_0", scale), 3)
            k_all = g.op("Concat", [f"past_key_values.{i}.decoder.key", self.heads_of(g, k)], axis=2, outputs=[f"present.{i}.decoder.key"])
            v_all = g.op("Concat", [f"past_key_values.{i}.decoder.value", self.heads_of(g, v)], axis=2, outputs=[f"present.{i}.decoder.value"])
            a, _ = self.attend(g, self.heads_of(g, q), k_all, v_all, mask, probs_out=f"decoder_attentions.{i}")
            x = g.op("Add", [x, self.linear(g, a, f"{p}/self_attention/linear_1")])
            h = self.layer_norm(g, x, f"{p}/attention/layer_norm")
            q = self.linear(g, h, f"{p}/attention/linear_0", scale=scale)
            a, _ = self.attend(g, self.heads_of(g, q), f"present.{i}.encoder.key", f"present.{i}.encoder.value", probs_out=f"cross_attentions.{i}")
            x = g.op("Add", [x, self.linear(g, a, f"{p}/attention/linear_2")])
            x = g.op("Add", [x, self.mlp(g, x, f"{p}/ffn")])
            for kind, length in (("decoder", "present_decoder_sequence_length"), ("encoder", "encoder_sequence_length_out")):
                for kv in ("key", "value"):
                    outputs.append(helper.make_tensor_value_info(f"present.{i}.{kind}.{kv}", TensorProto.FLOAT, ["batch_size", H, length, dh]))
        for i in range(L):
            outputs.append(helper.make_tensor_value_info(f"decoder_attentions.{i}", TensorProto.FLOAT, ["batch_size", H, "decoder_sequence_length", "present_decoder_sequence_length"]))
        for i in range(L):
            outputs.append(helper.make_tensor_value_info(f"cross_attentions.{i}", TensorProto.FLOAT, ["batch_size", H, "decoder_sequence_length", "encoder_sequence_length_out"]))
        x = self.layer_norm(g, x, "decoder/layer_norm")
        # The output projection is the token embedding (tied), transposed.
        g.op("MatMul", [x, g.const("proj", f32(w["decoder/embeddings/weight"]).T)], outputs=["logits"])
        return helper.make_graph(g.nodes, "whisper_decoder_merged", inputs, outputs, g.inits)


def save(graph, path):
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="media-index whisper_onnx")
    model.ir_version = 8
    onnx.checker.check_model(model, full_check=False)
    onnx.save(model, path)


def quantize(src, dst):
    from onnxruntime.quantization import QuantType, quantize_dynamic

    quantize_dynamic(src, dst, weight_type=QuantType.QInt8, op_types_to_quantize=["MatMul", "Gather"], extra_options={"EnableSubgraph": True})


def main():
    model_bin, config_dir, out = sys.argv[1:4]
    w = read_ct2(model_bin)
    m = Whisper(w)
    config = json.load(open(os.path.join(config_dir, "config.json")))
    want = (config["d_model"], config["encoder_layers"], config["decoder_layers"], config["encoder_attention_heads"], config["vocab_size"], config["num_mel_bins"])
    got = (m.d, m.enc_layers, m.dec_layers, m.heads, m.vocab, m.mels)
    if want != got:
        raise SystemExit(f"config.json describes {want}, the weights are {got} (d_model, layers, heads, vocab, mels)")
    os.makedirs(os.path.join(out, "onnx"), exist_ok=True)
    for f in sorted(os.listdir(config_dir)):
        if f.endswith((".json", ".txt")):
            shutil.copyfile(os.path.join(config_dir, f), os.path.join(out, f))
    enc = os.path.join(out, "onnx", "encoder_model.onnx")
    dec = os.path.join(out, "onnx", "decoder_model_merged.onnx")
    save(m.encoder(), enc)
    save(m.decoder(), dec)
    quantize(enc, os.path.join(out, "onnx", "encoder_model_quantized.onnx"))
    quantize(dec, os.path.join(out, "onnx", "decoder_model_merged_quantized.onnx"))
    print(out)


if __name__ == "__main__":
    main()
