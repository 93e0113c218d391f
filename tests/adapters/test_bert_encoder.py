"""What the plain-torch encoder accepts, and how quantisation reaches the names and the cache.

None of these tests load a model: the folders hold configuration files only.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from kb.adapters.bert_encoder import (
    UnsupportedModel,
    check_quantize,
    full_range_activations,
    read_spec,
    resolve_quantize,
)
from kb.adapters.embedder import model_identifier
from kb.adapters.embedding_cache import cached_embeddings
from kb.config import Settings

TRANSFORMER = "sentence_transformers.models.Transformer"
POOLING = "sentence_transformers.models.Pooling"
NORMALIZE = "sentence_transformers.models.Normalize"


def _write(folder: Path, name: str, content: Any) -> None:
    (folder / name).parent.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(json.dumps(content), encoding="utf-8")


def _bert_folder(folder: Path, **changes: Any) -> Path:
    """Configuration files of a small BERT + mean-pooling model; ``changes`` edit them."""
    config = {
        "model_type": "bert",
        "hidden_size": 16,
        "num_attention_heads": 2,
        "num_hidden_layers": 1,
        "intermediate_size": 32,
        "max_position_embeddings": 64,
        "layer_norm_eps": 1e-12,
        "hidden_act": "gelu",
        **changes.get("config", {}),
    }
    modules = changes.get(
        "modules",
        [
            {"idx": 0, "name": "0", "path": "", "type": TRANSFORMER},
            {"idx": 1, "name": "1", "path": "1_Pooling", "type": POOLING},
            {"idx": 2, "name": "2", "path": "2_Normalize", "type": NORMALIZE},
        ],
    )
    pooling = {"word_embedding_dimension": 16, "pooling_mode_mean_tokens": True}
    pooling.update(changes.get("pooling", {}))
    _write(folder, "config.json", config)
    _write(folder, "modules.json", modules)
    _write(folder, "1_Pooling/config.json", pooling)
    _write(folder, "sentence_bert_config.json", {"max_seq_length": 32, "do_lower_case": False})
    for name in ("model.safetensors", "tokenizer.json"):
        (folder / name).write_bytes(b"")
    return folder


def test_a_bert_mean_pooling_folder_is_supported(tmp_path: Path) -> None:
    spec = read_spec(_bert_folder(tmp_path / "m"))
    assert (spec.hidden, spec.heads, spec.layers) == (16, 2, 1)
    assert spec.max_length == 32  # the smaller of max_seq_length and the position table
    assert spec.lower_case is False


@pytest.mark.parametrize(
    ("changes", "reason"),
    [
        ({"config": {"model_type": "xlm-roberta"}}, "model_type 'xlm-roberta'"),
        ({"config": {"hidden_act": "relu"}}, "activation 'relu'"),
        ({"config": {"position_embedding_type": "relative_key"}}, "not absolute"),
        ({"pooling": {"pooling_mode_mean_tokens": False, "pooling_mode_cls_token": True}}, "mean"),
        ({"pooling": {"pooling_mode_max_tokens": True}}, "mean pooling alone"),
        ({"modules": [{"path": "", "type": TRANSFORMER}]}, "are not Transformer, Pooling"),
        (
            {
                "modules": [
                    {"path": "", "type": TRANSFORMER},
                    {"path": "1_Pooling", "type": POOLING},
                    {"path": "2_Dense", "type": "sentence_transformers.models.Dense"},
                ]
            },
            "are not Transformer, Pooling",
        ),
    ],
)
def test_other_models_are_refused_with_the_reason(
    tmp_path: Path, changes: dict[str, Any], reason: str
) -> None:
    with pytest.raises(UnsupportedModel, match=reason):
        read_spec(_bert_folder(tmp_path / "m", **changes))


def test_a_hub_name_or_an_incomplete_folder_is_refused(tmp_path: Path) -> None:
    with pytest.raises(UnsupportedModel, match="not a local model folder"):
        read_spec(Path("intfloat/multilingual-e5-small"))
    folder = _bert_folder(tmp_path / "m")
    (folder / "model.safetensors").unlink()
    with pytest.raises(UnsupportedModel, match=r"needs model\.safetensors"):
        read_spec(folder)


def test_quantize_is_a_setting_with_known_values() -> None:
    assert Settings().quantize == "auto"
    assert resolve_quantize("auto") == ("int8" if full_range_activations() else "none")
    assert resolve_quantize("none") == "none"
    assert Settings.from_env({"YGO_QUANTIZE": "none"}).quantize == "none"
    assert check_quantize("int8") == "int8"
    with pytest.raises(ValueError, match="quantize='fp16': use one of none, int8 or auto"):
        check_quantize("fp16")


def test_names_carry_the_runner_and_the_quantisation(tmp_path: Path) -> None:
    folder = tmp_path / "multilingual-e5-small"
    folder.mkdir()
    record = {"model_name": "multilingual-e5-small", "source": {"sha256": "ab" * 32}}
    _write(folder, "ygo_prepare.json", {**record, "converter_version": 1})
    plain = model_identifier(folder)
    assert plain == f"st:multilingual-e5-small@{'ab' * 6}-c1"
    assert model_identifier(folder, "torch") == "torch" + plain.removeprefix("st")
    int8 = model_identifier(folder, "torch", "int8")
    assert int8.startswith("torch:multilingual-e5-small@") and "+int8-a" in int8
    assert len({plain, int8, model_identifier(folder, "st", "int8")}) == 3


class _Constant:
    """An embedder whose every vector is ``value`` (to see which one the cache returns)."""

    def __init__(self, name: str, value: float) -> None:
        self.name, self.dim, self.value, self.calls = name, 2, value, 0

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        self.calls += 1
        return np.full((len(texts), 2), self.value, dtype=np.float32)

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        return self.embed_passages(texts)


def test_float_and_int8_vectors_are_cached_apart(tmp_path: Path) -> None:
    folder = tmp_path / "tiny"
    folder.mkdir()
    fp32 = _Constant(model_identifier(folder, "torch", "none"), 1.0)
    int8 = _Constant(model_identifier(folder, "torch", "int8"), 2.0)
    cache = tmp_path / "cache"
    texts = ["a passage", "another passage"]
    assert cached_embeddings(fp32, texts, cache)[1] == 2
    vectors, fresh = cached_embeddings(int8, texts, cache)
    assert fresh == 2 and vectors.tolist() == [[2.0, 2.0], [2.0, 2.0]]
    assert len(list(cache.glob("emb-*.npz"))) == 2
    vectors, fresh = cached_embeddings(fp32, texts, cache)
    assert fresh == 0 and vectors.tolist() == [[1.0, 1.0], [1.0, 1.0]]
