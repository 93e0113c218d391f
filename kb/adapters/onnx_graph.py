"""The BERT encoder of a sentence-transformers folder as an ONNX graph, built from numpy weights.

``build_graph`` lays out embeddings (from ``inputs_embeds``: the word rows are looked up outside
the graph), the post-norm transformer layers and mean pooling with standard ONNX operators plus
ONNX Runtime's ``DynamicQuantizeMatMul``; the matmul of every Linear layer is whatever the given
``Linear`` builds: ``float_linear``, ``int8_linear``, ``smooth_int8_linear``,
``per_token_int8_linear``, or the mix ``mixed_int8_linear`` that the export uses.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import numpy.typing as npt

from kb.adapters.bert_encoder import EncoderSpec

OPSET = 17
FLOAT = 1  # onnx.TensorProto.FLOAT
UINT8 = 2  # onnx.TensorProto.UINT8
SMOOTHING = 0.5
INPUT = "inputs_embeds"
OUTPUT = "embedding"

Floats = npt.NDArray[np.float32]
Weights = Mapping[str, Floats]


class GraphBuilder:
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


Linear = Callable[[GraphBuilder, str, str, Floats, Floats], str]


def int8_weights(weight: Floats) -> tuple[npt.NDArray[np.int8], Floats]:
    """``weight`` (``[out, in]``) as symmetric int8 rows and one float32 scale per row."""
    eps = np.finfo(np.float32).eps
    scales = np.maximum(np.abs(weight).max(axis=1) / 127.5, eps).astype(np.float32)
    quantised = np.clip(np.rint(weight / scales[:, None]), -128, 127).astype(np.int8)
    return quantised, scales


def weight_codes(
    graph: GraphBuilder, quantised: npt.NDArray[np.int8], unsigned: bool
) -> tuple[str, str]:
    """The transposed weight codes and their zero point (one per output column), as constants.

    ``unsigned`` stores each code plus 128 as uint8 with zero point 128: the same products, but
    ONNX Runtime then multiplies uint8 by uint8, which x86 CPUs without VNNI add up in 32 bits;
    their uint8 × int8 kernel adds pairs of products in 16 bits, which saturate.
    """
    columns = quantised.shape[0]
    if unsigned:
        codes = (quantised.T.astype(np.int16) + 128).astype(np.uint8)
        return graph.const("w_uint8", codes), graph.const(
            "w_zero", np.full(columns, 128, dtype=np.uint8)
        )
    return graph.const("w_int8", quantised.T), graph.const(
        "w_zero", np.zeros(columns, dtype=np.int8)
    )


def int8_linear(
    graph: GraphBuilder,
    x: str,
    name: str,
    weight: Floats,
    bias: Floats,
    *,
    unsigned: bool = False,
) -> str:
    """``x Wᵀ + b`` as one ``DynamicQuantizeMatMul`` (8-bit weights, input quantised per call)."""
    quantised, scales = int8_weights(weight)
    codes, zero = weight_codes(graph, quantised, unsigned)
    return graph.op(
        "DynamicQuantizeMatMul",
        x,
        codes,
        graph.const("w_scale", scales),
        zero,
        graph.const("bias", bias.astype(np.float32)),
        domain="com.microsoft",
    )


def float_linear(graph: GraphBuilder, x: str, name: str, weight: Floats, bias: Floats) -> str:
    """``x Wᵀ + b`` in float32; the input is tapped as ``name`` for calibration."""
    graph.taps[name] = x
    product = graph.op("MatMul", x, graph.const("w", weight.T.astype(np.float32)))
    return graph.op("Add", product, graph.const("bias", bias.astype(np.float32)))


def smooth_int8_linear(
    maxima: Mapping[str, Floats], alpha: float = SMOOTHING, *, unsigned: bool = False
) -> Linear:
    """``int8_linear`` after moving the input's outlier channels into the weights (SmoothQuant).

    Input channel ``j`` is divided by ``s_j = a_j^alpha / w_j^(1 - alpha)`` (``a_j`` its largest
    magnitude on the calibration texts, ``w_j`` the weights' on that channel) and the weights'
    column ``j`` multiplied by it: the product is unchanged, but one activation scale per call
    no longer has to span a few channels hundreds of times larger than the rest.
    """

    def linear(graph: GraphBuilder, x: str, name: str, weight: Floats, bias: Floats) -> str:
        active = np.maximum(maxima[name], 1e-5)
        spread = np.maximum(np.abs(weight).max(axis=0), 1e-5)
        factors = (active**alpha / spread ** (1.0 - alpha)).astype(np.float32)
        scaled = graph.op("Mul", x, graph.const("smooth", (1.0 / factors).astype(np.float32)))
        return int8_linear(graph, scaled, name, weight * factors[None, :], bias, unsigned=unsigned)

    return linear


def _layer_norm(graph: GraphBuilder, x: str, weights: Weights, name: str, eps: float) -> str:
    return graph.op(
        "LayerNormalization",
        x,
        graph.const("ln_w", weights[f"{name}.weight"]),
        graph.const("ln_b", weights[f"{name}.bias"]),
        axis=-1,
        epsilon=eps,
    )


def _gelu(graph: GraphBuilder, x: str) -> str:
    """The exact (erf) GELU, ``x · (1 + erf(x / √2)) / 2``."""
    half = graph.const("half", np.array(0.5, dtype=np.float32))
    one = graph.const("one", np.array(1.0, dtype=np.float32))
    root2 = graph.const("sqrt2", np.array(np.sqrt(2.0), dtype=np.float32))
    erf = graph.op("Erf", graph.op("Div", x, root2))
    return graph.op("Mul", graph.op("Mul", x, half), graph.op("Add", erf, one))


def _attention(
    graph: GraphBuilder, x: str, weights: Weights, prefix: str, spec: EncoderSpec, linear: Linear
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
    graph: GraphBuilder, x: str, weights: Weights, index: int, spec: EncoderSpec, linear: Linear
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

    graph = GraphBuilder()
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


def per_token_int8_linear(
    graph: GraphBuilder,
    x: str,
    name: str,
    weight: Floats,
    bias: Floats,
    *,
    unsigned: bool = False,
) -> str:
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
    weights, weights_zero = weight_codes(graph, quantised, unsigned)
    matmul = (
        graph.op(
            "MatMulInteger",
            codes,
            weights,
            graph.const("a_zero", np.array(0, dtype=np.uint8)),
            weights_zero,
        )
        if unsigned
        else graph.op("MatMulInteger", codes, weights)
    )
    product = graph.op("Cast", matmul, to=FLOAT)
    column_sums = graph.const("w_sums", quantised.astype(np.float32).sum(axis=1))
    centred = graph.op("Sub", product, graph.op("Mul", offset, column_sums))
    scaled = graph.op("Mul", graph.op("Mul", centred, step), graph.const("w_scale", scales))
    return graph.op("Add", scaled, graph.const("bias", bias.astype(np.float32)))


def mixed_int8_linear(maxima: Mapping[str, Floats], *, unsigned: bool = False) -> Linear:
    """Smoothed int8 for every Linear layer but the feed-forward output, quantised per token.

    Minimum cosine to float32 over 296 retrieval and real questions while choosing (smoothing
    0.7): all plain int8 0.9942, all smoothed int8 0.9989, the feed-forward output in float32
    0.9997 (7.1 ms a question), in per-token int8 0.9996 (5.3 ms). That layer's input (after
    GELU) is the one a single scale per call cannot span. ``SMOOTHING`` is 0.5: over 540
    questions 0.99945 (0.7: 0.99955), and fused retrieval R@5 0.953 (0.7: 0.946).
    """
    smooth = smooth_int8_linear(maxima, unsigned=unsigned)

    def linear(graph: GraphBuilder, x: str, name: str, weight: Floats, bias: Floats) -> str:
        if name.endswith(".output.dense") and ".attention." not in name:
            return per_token_int8_linear(graph, x, name, weight, bias, unsigned=unsigned)
        return smooth(graph, x, name, weight, bias)

    return linear
