"""The int8 Linear layers of the ONNX graph, alone: their products are the quantised arithmetic.

A layer whose inputs sit at the ends of their range and whose weights are all at ±127 is where a
uint8 × int8 kernel that adds pairs of products in 16 bits (x86 without VNNI) saturates; with the
weights stored unsigned the product must be exact on every CPU."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from kb.adapters.onnx_graph import (
    OPSET,
    GraphBuilder,
    int8_linear,
    int8_weights,
    per_token_int8_linear,
)

ort = pytest.importorskip("onnxruntime")


def run_linear(
    linear: Callable[..., str], x: np.ndarray, weight: np.ndarray, bias: np.ndarray, **kw: bool
) -> np.ndarray:
    from onnx import TensorProto, helper

    graph = GraphBuilder()
    out = linear(graph, "x", "layer", weight, bias, **kw)
    body = helper.make_graph(
        graph.nodes,
        "linear",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(x.shape))],
        [helper.make_tensor_value_info(out, TensorProto.FLOAT, None)],
        graph.initializers,
    )
    opsets = [helper.make_opsetid("", OPSET), helper.make_opsetid("com.microsoft", 1)]
    model = helper.make_model(body, opset_imports=opsets)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return np.asarray(session.run(None, {"x": x})[0])


def saturating_case() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Inputs of 0 or 2.55 (codes 0 and 255) and weights whose codes are all ±127."""
    rng = np.random.default_rng(7)
    x = (rng.integers(0, 2, size=(1, 3, 64)) * 2.55).astype(np.float32)
    x[..., 0] = 2.55  # every row spans the whole range
    weight = np.where(rng.integers(0, 2, size=(16, 64)) == 1, 1.0, -1.0).astype(np.float32)
    weight[:, :8] = 1.0  # many same-signed pairs of products
    x[..., :8] = 2.55
    return x, weight, np.zeros(16, dtype=np.float32)


def quantised_product(x: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """What the layer computes: the weights' codes times their scales, the input as given (its
    values are exact in 8 bits here)."""
    codes, scales = int8_weights(weight)
    return x.astype(np.float64) @ (codes.astype(np.float64) * scales[:, None]).T


@pytest.mark.parametrize("linear", [int8_linear, per_token_int8_linear])
def test_unsigned_weights_give_the_exact_product(linear: Callable[..., str]) -> None:
    x, weight, bias = saturating_case()
    want = quantised_product(x, weight)
    got = run_linear(linear, x, weight, bias, unsigned=True)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-3)


@pytest.mark.parametrize("linear", [int8_linear, per_token_int8_linear])
def test_unsigned_weights_stay_near_the_float_product(linear: Callable[..., str]) -> None:
    rng = np.random.default_rng(3)
    x = rng.normal(size=(1, 5, 32)).astype(np.float32)
    weight = (rng.normal(size=(24, 32)) * 0.05).astype(np.float32)
    bias = rng.normal(size=24).astype(np.float32)
    got = run_linear(linear, x, weight, bias, unsigned=True)
    exact = x.astype(np.float64) @ weight.T.astype(np.float64) + bias
    assert np.abs(got - exact).max() < 0.01
