"""Resemblyzer's GE2E speaker encoder (`pretrained.pt`) to ONNX, and its reference embeddings.

    python ge2e_onnx.py convert PRETRAINED.PT OUT_DIR
    python ge2e_onnx.py reference PRETRAINED.PT SPANS.JSON

`convert` writes OUT_DIR/onnx/model.onnx (input `mels` [batch, frames, 40], the power mel
spectrogram resemblyzer computes; output `embedding` [batch, 256], unit length) and OUT_DIR/config.json
(what the app's front end needs). The checkpoint is read without torch: it is torch's legacy
serialization (pickles, then each storage's raw bytes), whose tensors are rebuilt here as numpy
arrays. The network is three LSTM layers of 256 (PyTorch gate order i, f, g, o; ONNX's i, o, f, c),
then a linear layer of 256, ReLU, and L2 normalisation of the last layer's final hidden state.

`reference` embeds windows of 16 kHz WAV files the way resemblyzer does (the recording's volume
brought to -30 dBFS, librosa's mel spectrogram, each window's frames through the LSTM in numpy) and
prints the embeddings as JSON: what the app's TypeScript front end and the ONNX file are checked
against. SPANS.JSON is `[{"file": ..., "windows": [[start_s, end_s], ...]}, ...]`.
"""

import json
import os
import pickle
import struct
import sys

import numpy as np

SAMPLE_RATE = 16000
N_FFT = 400  # 25 ms
HOP = 160  # 10 ms
N_MELS = 40
TARGET_DBFS = -30
HIDDEN = 256

_DTYPES = {"FloatStorage": np.float32, "DoubleStorage": np.float64, "LongStorage": np.int64, "IntStorage": np.int32, "HalfStorage": np.float16}


class _Storage:
    def __init__(self, dtype, numel):
        self.dtype, self.numel, self.data = dtype, numel, None


class _Tensor:
    """A tensor named while unpickling; its storage's bytes come after the pickle."""

    def __init__(self, storage, offset, size, stride, *_):
        self.storage, self.offset, self.size, self.stride = storage, offset, tuple(size), tuple(stride)

    def array(self):
        item = np.dtype(self.storage.dtype).itemsize
        return np.lib.stride_tricks.as_strided(self.storage.data[self.offset :], shape=self.size, strides=tuple(s * item for s in self.stride)).copy()


class _Unpickler(pickle.Unpickler):
    def __init__(self, f, storages):
        super().__init__(f, encoding="latin1")
        self.storages = storages

    def find_class(self, module, name):
        if module == "torch._utils" and name == "_rebuild_tensor_v2":
            return _Tensor
        if module == "torch" and name in _DTYPES:
            return name
        if module == "collections" and name == "OrderedDict":
            import collections

            return collections.OrderedDict
        raise pickle.UnpicklingError(f"refusing to load {module}.{name}")

    def persistent_load(self, pid):
        kind, storage_type, key, _location, numel = pid[:5]
        if kind != "storage":
            raise pickle.UnpicklingError(f"unknown persistent id {kind}")
        if key not in self.storages:
            self.storages[key] = _Storage(_DTYPES[storage_type], numel)
        return self.storages[key]


def load_checkpoint(path):
    """The state dict of a checkpoint in torch's legacy format, as numpy arrays."""
    storages = {}
    with open(path, "rb") as f:
        for _ in range(3):  # magic number, protocol version, system info
            pickle.load(f)
        obj = _Unpickler(f, storages).load()
        for key in pickle.load(f):
            s = storages[key]
            (numel,) = struct.unpack("<q", f.read(8))
            s.data = np.frombuffer(f.read(numel * np.dtype(s.dtype).itemsize), dtype=s.dtype)
    state = obj["model_state"]
    return {k: v.array().astype(np.float32) for k, v in state.items() if k.startswith(("lstm.", "linear."))}


def _onnx_gates(a):
    """PyTorch's gate blocks (i, f, g, o) in ONNX's order (i, o, f, c)."""
    i, f, g, o = np.split(a, 4, axis=0)
    return np.concatenate([i, o, f, g], axis=0)


def convert(pt, out):
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    w = load_checkpoint(pt)
    inits, nodes = [], []

    def const(name, a):
        inits.append(numpy_helper.from_array(np.ascontiguousarray(a), name))
        return name

    x = "frames_first"
    nodes.append(helper.make_node("Transpose", ["mels"], [x], perm=[1, 0, 2]))
    layers = sum(1 for k in w if k.startswith("lstm.weight_ih_l"))
    for l in range(layers):
        W = const(f"W{l}", _onnx_gates(w[f"lstm.weight_ih_l{l}"])[None])
        R = const(f"R{l}", _onnx_gates(w[f"lstm.weight_hh_l{l}"])[None])
        B = const(f"B{l}", np.concatenate([_onnx_gates(w[f"lstm.bias_ih_l{l}"]), _onnx_gates(w[f"lstm.bias_hh_l{l}"])])[None])
        y, h = f"Y{l}", f"Yh{l}"
        nodes.append(helper.make_node("LSTM", [x, W, R, B], [y, h], hidden_size=HIDDEN))
        x = f"X{l + 1}"
        nodes.append(helper.make_node("Squeeze", [y, const(f"ax1_{l}", np.array([1], dtype=np.int64))], [x]))
    nodes.append(helper.make_node("Squeeze", [h, const("ax0", np.array([0], dtype=np.int64))], ["hidden"]))
    nodes.append(helper.make_node("Gemm", ["hidden", const("linear.w", w["linear.weight"]), const("linear.b", w["linear.bias"])], ["raw"], transB=1))
    nodes.append(helper.make_node("Relu", ["raw"], ["positive"]))
    nodes.append(helper.make_node("LpNormalization", ["positive"], ["embedding"], axis=1, p=2))
    graph = helper.make_graph(
        nodes,
        "ge2e_speaker_encoder",
        [helper.make_tensor_value_info("mels", TensorProto.FLOAT, ["batch", "frames", N_MELS])],
        [helper.make_tensor_value_info("embedding", TensorProto.FLOAT, ["batch", w["linear.weight"].shape[0]])],
        inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="media-index ge2e_onnx")
    model.ir_version = 8
    onnx.checker.check_model(model)
    os.makedirs(os.path.join(out, "onnx"), exist_ok=True)
    onnx.save(model, os.path.join(out, "onnx", "model.onnx"))
    config = {
        "model_type": "ge2e",
        "architectures": ["Ge2eSpeakerEncoder"],
        "sampling_rate": SAMPLE_RATE,
        "n_fft": N_FFT,
        "hop_length": HOP,
        "n_mels": N_MELS,
        "mel_scale": "slaney",
        "power": 2.0,
        "target_dbfs": TARGET_DBFS,
        "partial_frames": 160,
        "hidden_size": HIDDEN,
        "embedding_size": int(w["linear.weight"].shape[0]),
    }
    with open(os.path.join(out, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
        f.write("\n")
    print(out)


def _sigmoid(v):
    return 1 / (1 + np.exp(-v))


def mel_frames(wav):
    """resemblyzer's front end over a whole recording: its volume brought to -30 dBFS, then librosa's
    power mel spectrogram (25 ms windows every 10 ms, 40 bands), one row per frame."""
    import librosa

    rms_db = 10 * np.log10(np.mean(wav.astype(np.float64) ** 2) + 1e-20)
    wav = (wav * (10 ** ((TARGET_DBFS - rms_db) / 20))).astype(np.float32)
    return librosa.feature.melspectrogram(y=wav, sr=SAMPLE_RATE, n_fft=N_FFT, hop_length=HOP, n_mels=N_MELS).astype(np.float32).T


def embed(w, mel):
    """The LSTM, linear layer, ReLU and L2 normalisation over frames of mel, in numpy."""
    x = mel
    layers = sum(1 for k in w if k.startswith("lstm.weight_ih_l"))
    for l in range(layers):
        Wi, Wh = w[f"lstm.weight_ih_l{l}"], w[f"lstm.weight_hh_l{l}"]
        b = w[f"lstm.bias_ih_l{l}"] + w[f"lstm.bias_hh_l{l}"]
        h, c, ys = np.zeros(HIDDEN, np.float32), np.zeros(HIDDEN, np.float32), []
        for t in range(x.shape[0]):
            i, f, g, o = np.split(Wi @ x[t] + Wh @ h + b, 4)
            c = _sigmoid(f) * c + _sigmoid(i) * np.tanh(g)
            h = _sigmoid(o) * np.tanh(c)
            ys.append(h)
        x = np.stack(ys)
    e = np.maximum(w["linear.weight"] @ h + w["linear.bias"], 0)
    return e / np.linalg.norm(e)


def reference(pt, spans_file):
    """For each {"file", "windows": [[start_s, end_s], ...]}: the embedding of each window, its frames
    taken from the recording's mel spectrogram (as resemblyzer takes its partial utterances)."""
    import soundfile

    w = load_checkpoint(pt)
    out = []
    for item in json.load(open(spans_file)):
        wav, rate = soundfile.read(item["file"], dtype="float32")
        if rate != SAMPLE_RATE:
            raise SystemExit(f"{item['file']}: {rate} Hz, expected {SAMPLE_RATE}")
        if wav.ndim > 1:
            wav = wav.mean(axis=1)
        mel = mel_frames(wav)
        out.append([[round(float(v), 6) for v in embed(w, mel[round(a * 100) : round(b * 100)])] for a, b in item["windows"]])
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    verb, *args = sys.argv[1:]
    {"convert": convert, "reference": reference}[verb](*args)
