"""Export a prepared BERT sentence-transformers folder to ONNX, for ``OnnxEmbedder``.

``export_onnx`` writes ``<folder>/onnx/``:

* ``model-int8.onnx``: the encoder with its Linear layers as ONNX Runtime's
  ``DynamicQuantizeMatMul`` (weights symmetric int8, one scale per output channel; each input
  quantised to 8 bits per call) after SmoothQuant-style rescaling calibrated on a fixed sample,
  except the feed-forward output projection, whose input is quantised per token
  (``mixed_int8_linear`` says why);
* ``model-float.onnx``: the same graph with every matmul in float32;
* ``word_embeddings.f32``: the word table as raw little-endian float32 ``[vocabulary, hidden]``.
  The graphs take the looked-up rows (``inputs_embeds``), not ids: the runner maps the file with
  random-access advice, so only the rows the queries use become resident (inside ONNX Runtime
  the mapping's read-ahead made most of the 384 MB file resident after 148 questions);
* ``vocab.json`` and ``normalizer.json``: the unigram vocabulary and the tokenizer without its
  model, for the lean tokenizer (``unigram_tokenizer``), when the folder's tokenizer is unigram;
* ``export.json``: what was exported, and how the graphs agree with the float32 torch runner.

The graphs take ``inputs_embeds`` (float32, ``[batch, tokens, hidden]``, no padding: every
text runs alone) and return the mean-pooled, not yet normalised ``embedding``
(``[batch, hidden]``). Everything is built from the folder's numpy weights with the ``onnx``
helpers; torch is used only to check the result against ``BertEncoder``.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from kb.adapters.bert_encoder import EncoderSpec, UnsupportedModel, read_spec
from kb.adapters.model_prepare import file_sha256

EXPORT_VERSION = 1
EXPORT_DIR = "onnx"
EXPORT_RECORD = "export.json"
INT8_MODEL = "model-int8.onnx"
FLOAT_MODEL = "model-float.onnx"
WORD_TABLE = "word_embeddings.f32"
VOCAB_FILE = "vocab.json"
NORMALIZER_FILE = "normalizer.json"
OPSET = 17
FLOAT = 1  # onnx.TensorProto.FLOAT
UINT8 = 2  # onnx.TensorProto.UINT8
SMOOTHING = 0.5
INPUT = "inputs_embeds"
OUTPUT = "embedding"

# Questions like the users' (pt and en), none of them calibration texts.
AGREEMENT_TEXTS: tuple[str, ...] = (
    "query: Posso ativar uma Armadilha durante a Damage Step?",
    "query: Can I chain a Quick-Play Spell to my opponent's Counter Trap?",
    "query: Um monstro Invocado por Invocação-Especial pode ser Invocado-Normal de novo?",
    "query: Does Cyber Dragon's summon start a chain?",
    "query: quantas cartas posso ter no Extra Deck no formato Edison?",
    "query: What happens if the target leaves the field before resolution?",
    "query: Efeitos de Velocidade 1 podem ser encadeados a efeitos de Velocidade 2?",
    "query: Is Mirror Force a Normal Trap or a Counter Trap?",
    "passage: Durante a Damage Step só podem ser ativadas cartas que modificam ATK/DEF.",
    "passage: A Tag Duel is played by two teams of two players who share a field.",
)
MIN_FLOAT_COSINE = 0.9999
MIN_INT8_COSINE = 0.999

Floats = npt.NDArray[np.float32]
Weights = Mapping[str, Floats]


@dataclass(frozen=True)
class OnnxExport:
    """An exported ``onnx/`` folder and its agreement with the torch runner."""

    path: Path
    float_min_cosine: float
    int8_min_cosine: float
    lean_tokenizer: bool
    reused: bool


class _Graph:
    """Nodes and initialisers of one ONNX graph, with generated unique names."""

    def __init__(self) -> None:
        self.nodes: list[Any] = []
        self.initializers: list[Any] = []
        self.taps: dict[str, str] = {}
        self._count = 0

    def name(self, hint: str) -> str:
        self._count += 1
        return f"{hint}_{self._count}"

    def const(self, hint: str, array: npt.NDArray[Any]) -> str:
        """Add ``array`` as an initialiser and return its name."""
        from onnx import numpy_helper

        name = self.name(hint)
        self.initializers.append(numpy_helper.from_array(np.ascontiguousarray(array), name))
        return name

    def op(self, op_type: str, *inputs: str, domain: str = "", **attrs: Any) -> str:
        """Add a one-output node and return the output's name."""
        return self.ops(op_type, *inputs, outputs=1, domain=domain, **attrs)[0]

    def ops(
        self, op_type: str, *inputs: str, outputs: int, domain: str = "", **attrs: Any
    ) -> list[str]:
        """Add a node with ``outputs`` outputs and return their names."""
        from onnx import helper

        names = [self.name(op_type.lower()) for _ in range(outputs)]
        self.nodes.append(helper.make_node(op_type, list(inputs), names, domain=domain, **attrs))
        return names


Linear = Callable[[_Graph, str, str, Floats, Floats], str]


def int8_weights(weight: Floats) -> tuple[npt.NDArray[np.int8], Floats]:
    """``weight`` (``[out, in]``) as symmetric int8 rows and one float32 scale per row."""
    eps = np.finfo(np.float32).eps
    scales = np.maximum(np.abs(weight).max(axis=1) / 127.5, eps).astype(np.float32)
    quantised = np.clip(np.rint(weight / scales[:, None]), -128, 127).astype(np.int8)
    return quantised, scales


def int8_linear(graph: _Graph, x: str, name: str, weight: Floats, bias: Floats) -> str:
    """``x Wᵀ + b`` as one ``DynamicQuantizeMatMul`` (int8 weights, input quantised per call)."""
    quantised, scales = int8_weights(weight)
    return graph.op(
        "DynamicQuantizeMatMul",
        x,
        graph.const("w_int8", quantised.T),
        graph.const("w_scale", scales),
        graph.const("w_zero", np.zeros(len(scales), dtype=np.int8)),
        graph.const("bias", bias.astype(np.float32)),
        domain="com.microsoft",
    )


def float_linear(graph: _Graph, x: str, name: str, weight: Floats, bias: Floats) -> str:
    """``x Wᵀ + b`` in float32; the input is tapped as ``name`` for calibration."""
    graph.taps[name] = x
    product = graph.op("MatMul", x, graph.const("w", weight.T.astype(np.float32)))
    return graph.op("Add", product, graph.const("bias", bias.astype(np.float32)))


def smooth_int8_linear(maxima: Mapping[str, Floats], alpha: float = SMOOTHING) -> Linear:
    """``int8_linear`` after moving the input's outlier channels into the weights (SmoothQuant).

    Input channel ``j`` is divided by ``s_j = a_j^alpha / w_j^(1 - alpha)`` (``a_j`` its largest
    magnitude on the calibration texts, ``w_j`` the weights' on that channel) and the weights'
    column ``j`` multiplied by it: the product is unchanged, but one activation scale per call
    no longer has to span a few channels hundreds of times larger than the rest.
    """

    def linear(graph: _Graph, x: str, name: str, weight: Floats, bias: Floats) -> str:
        active = np.maximum(maxima[name], 1e-5)
        spread = np.maximum(np.abs(weight).max(axis=0), 1e-5)
        factors = (active**alpha / spread ** (1.0 - alpha)).astype(np.float32)
        scaled = graph.op("Mul", x, graph.const("smooth", (1.0 / factors).astype(np.float32)))
        return int8_linear(graph, scaled, name, weight * factors[None, :], bias)

    return linear


def _layer_norm(graph: _Graph, x: str, weights: Weights, name: str, eps: float) -> str:
    return graph.op(
        "LayerNormalization",
        x,
        graph.const("ln_w", weights[f"{name}.weight"]),
        graph.const("ln_b", weights[f"{name}.bias"]),
        axis=-1,
        epsilon=eps,
    )


def _gelu(graph: _Graph, x: str) -> str:
    """The exact (erf) GELU, ``x · (1 + erf(x / √2)) / 2``."""
    half = graph.const("half", np.array(0.5, dtype=np.float32))
    one = graph.const("one", np.array(1.0, dtype=np.float32))
    root2 = graph.const("sqrt2", np.array(np.sqrt(2.0), dtype=np.float32))
    erf = graph.op("Erf", graph.op("Div", x, root2))
    return graph.op("Mul", graph.op("Mul", x, half), graph.op("Add", erf, one))


def _attention(
    graph: _Graph, x: str, weights: Weights, prefix: str, spec: EncoderSpec, linear: Linear
) -> str:
    """Multi-head self-attention without a mask (one unpadded text per call)."""
    hidden, heads = spec.hidden, spec.heads
    size = hidden // heads
    parts = [f"{prefix}.attention.self.{p}" for p in ("query", "key", "value")]
    qkv = linear(
        graph,
        x,
        f"{prefix}.attention.self.qkv",
        np.concatenate([weights[f"{p}.weight"] for p in parts]),
        np.concatenate([weights[f"{p}.bias"] for p in parts]),
    )
    split = graph.const("split", np.array([hidden] * 3, dtype=np.int64))
    query, key, value = graph.ops("Split", qkv, split, outputs=3, axis=-1)
    head_shape = graph.const("heads", np.array([0, 0, heads, size], dtype=np.int64))
    q = graph.op("Transpose", graph.op("Reshape", query, head_shape), perm=[0, 2, 1, 3])
    k = graph.op("Transpose", graph.op("Reshape", key, head_shape), perm=[0, 2, 3, 1])
    v = graph.op("Transpose", graph.op("Reshape", value, head_shape), perm=[0, 2, 1, 3])
    scale = graph.const("scale", np.array(1.0 / np.sqrt(size), dtype=np.float32))
    probs = graph.op("Softmax", graph.op("Mul", graph.op("MatMul", q, k), scale), axis=-1)
    context = graph.op("Transpose", graph.op("MatMul", probs, v), perm=[0, 2, 1, 3])
    merged = graph.const("merged", np.array([0, 0, hidden], dtype=np.int64))
    out = f"{prefix}.attention.output.dense"
    return linear(
        graph,
        graph.op("Reshape", context, merged),
        out,
        weights[f"{out}.weight"],
        weights[f"{out}.bias"],
    )


def _encoder_layer(
    graph: _Graph, x: str, weights: Weights, index: int, spec: EncoderSpec, linear: Linear
) -> str:
    """One post-norm transformer layer."""
    prefix = f"encoder.layer.{index}"
    attended = graph.op("Add", x, _attention(graph, x, weights, prefix, spec, linear))
    x = _layer_norm(graph, attended, weights, f"{prefix}.attention.output.LayerNorm", spec.eps)
    inner = f"{prefix}.intermediate.dense"
    outer = f"{prefix}.output.dense"
    hidden = _gelu(
        graph, linear(graph, x, inner, weights[f"{inner}.weight"], weights[f"{inner}.bias"])
    )
    ffn = linear(graph, hidden, outer, weights[f"{outer}.weight"], weights[f"{outer}.bias"])
    return _layer_norm(
        graph, graph.op("Add", x, ffn), weights, f"{prefix}.output.LayerNorm", spec.eps
    )


def build_graph(weights: Weights, spec: EncoderSpec, linear: Linear, *, taps: bool = False) -> Any:
    """The whole encoder as an ONNX ``ModelProto`` (opset 17 plus ``com.microsoft``).

    With ``taps`` (and ``float_linear``) every Linear layer's input is an output too, named
    after the layer, for calibration.
    """
    from onnx import TensorProto, helper

    graph = _Graph()
    words = INPUT
    length = graph.op("Shape", INPUT, start=1, end=2)
    positions = weights["embeddings.position_embeddings.weight"]
    first_type = weights["embeddings.token_type_embeddings.weight"][0]
    table = graph.const("positions", (positions + first_type).astype(np.float32))
    zero = graph.const("zero", np.array([0], dtype=np.int64))
    axis = graph.const("axis", np.array([0], dtype=np.int64))
    x = graph.op("Add", words, graph.op("Slice", table, zero, length, axis))
    x = _layer_norm(graph, x, weights, "embeddings.LayerNorm", spec.eps)
    for index in range(spec.layers):
        x = _encoder_layer(graph, x, weights, index, spec, linear)
    pooled = graph.op("ReduceMean", x, axes=[1], keepdims=0)
    graph.nodes.append(helper.make_node("Identity", [pooled], [OUTPUT]))
    outputs = [helper.make_tensor_value_info(OUTPUT, TensorProto.FLOAT, ["batch", spec.hidden])]
    for name, value in graph.taps.items() if taps else ():
        graph.nodes.append(helper.make_node("Identity", [value], [name]))
        outputs.append(helper.make_tensor_value_info(name, TensorProto.FLOAT, None))
    body = helper.make_graph(
        graph.nodes,
        "bert-mean-pooling",
        [helper.make_tensor_value_info(INPUT, TensorProto.FLOAT, ["batch", "tokens", spec.hidden])],
        outputs,
        initializer=graph.initializers,
    )
    opsets = [helper.make_opsetid("", OPSET), helper.make_opsetid("com.microsoft", 1)]
    return helper.make_model(body, opset_imports=opsets, producer_name="ygo-rulings")


def read_weights(folder: Path) -> dict[str, Floats]:
    """The folder's ``model.safetensors`` as float32 numpy arrays (``bert.`` prefix dropped)."""
    from safetensors.numpy import load_file

    tensors = load_file(str(folder / "model.safetensors"))
    return {
        name.removeprefix("bert."): np.asarray(value, dtype=np.float32)
        for name, value in tensors.items()
    }


# ------------------------------------------------------------------ lean tokenizer files


def lean_tokenizer_files(tokenizer_json: Mapping[str, Any]) -> dict[str, Any] | None:
    """``vocab.json`` and ``normalizer.json`` contents for a unigram tokenizer, else None.

    The vocabulary is kept whole (pieces, scores, special ids); the normaliser file is the
    tokenizer with an empty model, read only for its normaliser and pre-tokeniser.
    """
    model = tokenizer_json.get("model") or {}
    if model.get("type") != "Unigram" or model.get("byte_fallback"):
        return None
    pieces = [piece for piece, _ in model["vocab"]]
    scores = [float(score) for _, score in model["vocab"]]
    added = [
        {key: token[key] for key in ("id", "content", "lstrip", "rstrip", "special")}
        for token in tokenizer_json.get("added_tokens", [])
    ]
    if any(not token["special"] for token in added):
        return None
    special = {
        p["id"]: p["ids"][0] for p in tokenizer_json["post_processor"]["special_tokens"].values()
    }
    single = tokenizer_json["post_processor"]["single"]
    bos, eos = (special[single[i]["SpecialToken"]["id"]] for i in (0, -1))
    vocab = {
        "pieces": pieces,
        "scores": scores,
        "unk_id": int(model["unk_id"]),
        "bos_id": int(bos),
        "eos_id": int(eos),
        "added_tokens": added,
    }
    normalizer = {
        **tokenizer_json,
        "added_tokens": [],
        "post_processor": None,
        "model": {"type": "WordLevel", "vocab": {"<unk>": 0}, "unk_token": "<unk>"},
    }
    return {VOCAB_FILE: vocab, NORMALIZER_FILE: normalizer}


# ------------------------------------------------------------------------- export


def calibrate(
    weights: Weights, spec: EncoderSpec, out: Path, tokenizer: Path, texts: Sequence[str]
) -> dict[str, Floats]:
    """Each Linear layer's largest input magnitude per channel over ``texts`` (float32 graph).

    The tapped graph is written to ``out`` and removed after.
    """
    import onnx

    from kb.adapters.onnx_embedder import open_session, tokenizer_ids

    path = out / "calibration.onnx"
    onnx.save_model(build_graph(weights, spec, float_linear, taps=True), str(path))
    try:
        session = open_session(path)
        names = [o.name for o in session.get_outputs()][1:]
        maxima: dict[str, Floats] = {}
        table = weights["embeddings.word_embeddings.weight"]
        for ids in tokenizer_ids(tokenizer, texts, spec.max_length):
            outputs = session.run(names, {INPUT: table[np.asarray([ids])]})
            for name, value in zip(names, outputs, strict=True):
                peak = np.abs(value).reshape(-1, value.shape[-1]).max(axis=0)
                maxima[name] = np.maximum(maxima.get(name, peak), peak)
    finally:
        path.unlink(missing_ok=True)
    return maxima


def per_token_int8_linear(graph: _Graph, x: str, name: str, weight: Floats, bias: Floats) -> str:
    """``x Wᵀ + b`` with int8 weights and each token's input quantised with its own range.

    Every row of ``x`` (``[1, tokens, in]``: one text) gets its own uint8 scale and zero point;
    ``MatMulInteger`` takes one zero point only, so each row's is taken out after the product
    (``Σ (a - z) w = Σ a w - z Σ w``).
    """
    quantised, scales = int8_weights(weight)
    zero = graph.const("zero", np.array(0.0, dtype=np.float32))
    top = graph.op("Max", graph.op("ReduceMax", x, axes=[-1], keepdims=1), zero)
    bottom = graph.op("Min", graph.op("ReduceMin", x, axes=[-1], keepdims=1), zero)
    levels = graph.const("levels", np.array(255.0, dtype=np.float32))
    tiny = graph.const("tiny", np.array(1e-8, dtype=np.float32))
    step = graph.op("Max", graph.op("Div", graph.op("Sub", top, bottom), levels), tiny)
    low = graph.const("low", np.array(0.0, dtype=np.float32))
    offset = graph.op(
        "Clip", graph.op("Round", graph.op("Div", graph.op("Neg", bottom), step)), low, levels
    )
    flat = graph.const("flat", np.array([-1], dtype=np.int64))
    offset_u8 = graph.op("Cast", offset, to=UINT8)
    codes = graph.op(
        "QuantizeLinear",
        x,
        graph.op("Reshape", step, flat),
        graph.op("Reshape", offset_u8, flat),
        axis=1,
    )
    product = graph.op(
        "Cast", graph.op("MatMulInteger", codes, graph.const("w_int8", quantised.T)), to=FLOAT
    )
    column_sums = graph.const("w_sums", quantised.astype(np.float32).sum(axis=1))
    centred = graph.op("Sub", product, graph.op("Mul", offset, column_sums))
    scaled = graph.op("Mul", graph.op("Mul", centred, step), graph.const("w_scale", scales))
    return graph.op("Add", scaled, graph.const("bias", bias.astype(np.float32)))


def mixed_int8_linear(maxima: Mapping[str, Floats]) -> Linear:
    """Smoothed int8 for every Linear layer but the feed-forward output, quantised per token.

    Minimum cosine to float32 over 296 retrieval and real questions: all plain int8 0.9942
    (the torch runner's int8: 0.9919 over 540), all smoothed int8 0.9989, the feed-forward
    output in float32 0.9997 (7.1 ms a question), in per-token int8 0.9996 (5.3 ms). That
    layer's input (after GELU) is the one a single scale per call cannot span.
    """
    smooth = smooth_int8_linear(maxima)

    def linear(graph: _Graph, x: str, name: str, weight: Floats, bias: Floats) -> str:
        if name.endswith(".output.dense") and ".attention." not in name:
            return per_token_int8_linear(graph, x, name, weight, bias)
        return smooth(graph, x, name, weight, bias)

    return linear


def _write_graphs(folder: Path, out: Path, spec: EncoderSpec) -> None:
    """The word table, the float32 graph, then the int8 graph calibrated on the float32 one."""
    import onnx

    from kb.adapters.model_prepare import PASSAGE_PREFIX, QUERY_PREFIX, VERIFY_TEXTS

    weights = read_weights(folder)
    weights["embeddings.word_embeddings.weight"].astype("<f4").tofile(out / WORD_TABLE)
    onnx.save_model(build_graph(weights, spec, float_linear), str(out / FLOAT_MODEL))
    texts = [QUERY_PREFIX + t for t in VERIFY_TEXTS] + [PASSAGE_PREFIX + t for t in VERIFY_TEXTS]
    maxima = calibrate(weights, spec, out, folder / "tokenizer.json", texts)
    onnx.save_model(build_graph(weights, spec, mixed_int8_linear(maxima)), str(out / INT8_MODEL))


def _write_tokenizer_files(folder: Path, out: Path) -> bool:
    tokenizer = json.loads((folder / "tokenizer.json").read_text(encoding="utf-8"))
    files = lean_tokenizer_files(tokenizer)
    if files is None:
        return False
    for name, content in files.items():
        (out / name).write_text(json.dumps(content, ensure_ascii=False), encoding="utf-8")
    return True


def _agreement(folder: Path, out: Path) -> tuple[float, float]:
    """Minimum cosines of the float32 and int8 graphs to float32 ``BertEncoder``.

    Over the evaluation questions' sample (``AGREEMENT_TEXTS``), not the calibration texts.
    """
    from kb.adapters.bert_encoder import BertEncoder
    from kb.adapters.onnx_embedder import OnnxEncoder

    want = BertEncoder(folder).encode(AGREEMENT_TEXTS)
    lows = []
    for quantize in ("none", "int8"):
        got = OnnxEncoder(folder, export_dir=out, quantize=quantize).encode(AGREEMENT_TEXTS)
        lows.append(float(np.sum(got.astype(np.float64) * want, axis=1).min()))
    return lows[0], lows[1]


def _reusable(folder: Path) -> OnnxExport | None:
    try:
        record = json.loads((folder / EXPORT_DIR / EXPORT_RECORD).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(record, dict) or record.get("export_version") != EXPORT_VERSION:
        return None
    return OnnxExport(
        folder / EXPORT_DIR,
        float(record["float_min_cosine"]),
        float(record["int8_min_cosine"]),
        bool(record["lean_tokenizer"]),
        reused=True,
    )


def export_onnx(folder: Path, *, force: bool = False) -> OnnxExport:
    """Write ``<folder>/onnx/`` (see the module) and check it against the torch runner.

    Raises ``UnsupportedModel`` for a folder ``BertEncoder`` cannot run and ValueError when a
    graph disagrees with it (float32 below ``MIN_FLOAT_COSINE``, int8 below
    ``MIN_INT8_COSINE``); ``<folder>/onnx`` is then left as it was.
    """
    folder = Path(folder)
    existing = None if force else _reusable(folder)
    if existing is not None:
        return existing
    spec = read_spec(folder)
    tmp = Path(tempfile.mkdtemp(prefix=f".{EXPORT_DIR}.tmp-", dir=folder))
    try:
        _write_graphs(folder, tmp, spec)
        lean = _write_tokenizer_files(folder, tmp)
        float_cos, int8_cos = _agreement(folder, tmp)
        if float_cos < MIN_FLOAT_COSINE or int8_cos < MIN_INT8_COSINE:
            raise ValueError(
                f"{folder}: the ONNX export disagrees with the torch runner: min cosine "
                f"float32 {float_cos:.5f} (need {MIN_FLOAT_COSINE}), int8 {int8_cos:.5f} "
                f"(need {MIN_INT8_COSINE})"
            )
        record = {
            "export_version": EXPORT_VERSION,
            "opset": OPSET,
            "onnxruntime": _version("onnxruntime"),
            "onnx": _version("onnx"),
            "float_min_cosine": float_cos,
            "int8_min_cosine": int8_cos,
            "reference": "kb.adapters.bert_encoder.BertEncoder in float32",
            "lean_tokenizer": lean,
            "sha256": {
                name: file_sha256(tmp / name) for name in (INT8_MODEL, FLOAT_MODEL, WORD_TABLE)
            },
        }
        (tmp / EXPORT_RECORD).write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
        _install(tmp, folder / EXPORT_DIR)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return OnnxExport(folder / EXPORT_DIR, float_cos, int8_cos, lean, reused=False)


def _version(package: str) -> str:
    import importlib.metadata

    return importlib.metadata.version(package)


def _install(tmp: Path, target: Path) -> None:
    """Replace ``target`` by ``tmp`` (a sibling), keeping the old one until the move is done."""
    tmp.chmod(0o755)
    for path in tmp.iterdir():
        path.chmod(0o644)
    old = None
    if target.exists():
        old = Path(tempfile.mkdtemp(prefix=f".{target.name}.old-", dir=target.parent))
        os.replace(target, old)
    try:
        os.replace(tmp, target)
    except OSError:
        if old is not None:
            os.replace(old, target)
        raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


__all__ = ["OnnxExport", "UnsupportedModel", "build_graph", "export_onnx", "int8_weights"]
