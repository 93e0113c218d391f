"""The ONNX runner: same tokens as ``tokenizers``, vectors within 0.999 of sentence-transformers'
float32 ones, no torch, and a fallback (with a warning in /health) for folders it cannot read."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from api.runtime import load_runtime, make_embedder
from kb.adapters.embedder import SentenceTransformerEmbedder, TorchEmbedder
from kb.adapters.model_prepare import VERIFY_TEXTS, PreparedModel
from kb.adapters.onnx_embedder import (
    FallbackEmbedder,
    OnnxEmbedder,
    OnnxUnavailable,
    onnx_or_fallback,
)
from kb.adapters.onnx_export import (
    EXPORT_DIR,
    INT8_MODEL,
    NORMALIZER_FILE,
    PIECES_FILE,
    VOCAB_FILE,
)
from kb.adapters.unigram_tokenizer import UnigramTokenizer
from kb.config import Settings
from kb.evaluation import evaluate_search, read_jsonl
from kb.search.embedding import HashEmbedder
from kb.search.index import claim_texts, clause_texts, index_texts
from kb.service import RulingsService

if TYPE_CHECKING:
    from conftest import Built

pytestmark = pytest.mark.model
REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "data"

ODD_TEXTS = [
    "",
    " ",
    "   três   espaços\tantes\ne depois  ",
    "<s> texto </s> com <mask> e <unk><pad>",
    "antes   <mask>depois",
    "\ue000\ue001 privado \U0001f600 emoji 漢字 ﬁ ℡",
    "ÁÉÍÓÚ áéíóú ÇçÃãÕõ — «Reino Proibido» “Typhoon”",
    "x" * 3000,
    "palavra " * 700,
]


def sample_questions() -> list[str]:
    """A fixed pt/en sample: every 3rd question of the real sets and the blind sets."""
    items = [
        str(item["q"])
        for name in ("real_rulings", "real_formats", "qa_holdout5", "qa_holdout6")
        for item in read_jsonl(DATA / f"{name}.jsonl")
    ]
    return items[::3]


@pytest.fixture(scope="module")
def prepared(prepared_model: PreparedModel) -> PreparedModel:
    """The run's converted multilingual-e5-small folder with its ONNX export (conftest)."""
    return prepared_model


@pytest.fixture(scope="module")
def onnx_embedder(prepared: PreparedModel) -> OnnxEmbedder:
    return OnnxEmbedder(prepared.path, quantize="int8")


def test_prepare_writes_the_export(prepared: PreparedModel) -> None:
    record = json.loads((prepared.path / EXPORT_DIR / "export.json").read_text())
    assert record["float_min_cosine"] >= 0.9999 and record["int8_min_cosine"] >= 0.999
    assert record["lean_tokenizer"] is True


def test_lean_tokenizer_gives_the_same_ids(prepared: PreparedModel) -> None:
    from tokenizers import Tokenizer

    full = Tokenizer.from_file(str(prepared.path / "tokenizer.json"))
    full.enable_truncation(max_length=512)
    export = prepared.path / EXPORT_DIR
    lean = UnigramTokenizer(
        export / VOCAB_FILE, export / PIECES_FILE, export / NORMALIZER_FILE, 512
    )
    files = [*sorted((REPO / "corpus").glob("*.txt")), REPO / "corpus" / "glossary.yaml"]
    corpus = [
        line
        for path in [*files, REPO / "corpus" / "carddb" / "cards.tsv"]
        for line in path.read_text("utf-8").splitlines()
        if line.strip()
    ]
    retrieval = [str(item["q"]) for item in read_jsonl(DATA / "retrieval.jsonl")]
    texts = [*corpus, *retrieval, *sample_questions(), *VERIFY_TEXTS, *ODD_TEXTS]
    assert len(corpus) > 10_000  # the documents, the glossary, every card's names
    for text in texts:
        assert lean.encode(text) == full.encode(text).ids, text[:80]


def test_vectors_agree_with_sentence_transformers_float32(
    prepared: PreparedModel, onnx_embedder: OnnxEmbedder
) -> None:
    questions = sample_questions()
    assert len(questions) >= 60
    reference = SentenceTransformerEmbedder(prepared.path).embed_queries(questions)
    int8 = np.sum(onnx_embedder.embed_queries(questions) * reference, axis=1)
    assert int8.min() >= 0.999, questions[int(int8.argmin())]
    exact = OnnxEmbedder(prepared.path, quantize="none").embed_queries(questions)
    assert np.sum(exact * reference, axis=1).min() >= 0.9999


def test_passages_match_queries_of_the_same_text(onnx_embedder: OnnxEmbedder) -> None:
    texts = list(VERIFY_TEXTS[:6])
    passages = onnx_embedder.embed_passages(texts)  # several threads
    one_by_one = np.concatenate([onnx_embedder.embed_passages([t]) for t in texts])
    assert np.allclose(passages, one_by_one, atol=1e-6)
    assert np.allclose(np.linalg.norm(passages, axis=1), 1.0, atol=1e-5)
    assert onnx_embedder.name.startswith("onnx:multilingual-e5-small@") and "+int8-x" in (
        onnx_embedder.name
    )


def test_the_onnx_path_imports_no_torch(prepared: PreparedModel) -> None:
    code = (
        "import sys; from pathlib import Path; from api.runtime import make_embedder;"
        "from kb.config import Settings;"
        f"e = make_embedder(Settings(data_dir=Path({str(prepared.path.parent.parent)!r}),"
        " embedder='onnx', quantize='int8')); e.embed_queries(['Posso ativar?']);"
        "print(type(e).__name__, sorted(m for m in ('torch', 'sentence_transformers',"
        " 'transformers') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "OnnxEmbedder []"


def _copy_without_export(prepared: PreparedModel, target: Path) -> Path:
    shutil.copytree(prepared.path, target, ignore=shutil.ignore_patterns(EXPORT_DIR))
    return target


def test_a_folder_without_a_readable_export_falls_back_with_a_warning(
    prepared: PreparedModel, tmp_path: Path
) -> None:
    bare = _copy_without_export(prepared, tmp_path / "models" / "multilingual-e5-small")
    with pytest.raises(OnnxUnavailable, match="no ONNX export"):
        OnnxEmbedder(bare)
    fallback = make_embedder(Settings(data_dir=tmp_path, embedder="onnx", quantize="int8"))
    assert isinstance(fallback, FallbackEmbedder)
    assert isinstance(fallback.embedder, TorchEmbedder)
    assert "no ONNX export" in fallback.warning
    assert fallback.embed_queries(["x"]).shape == (1, fallback.dim)
    shutil.copytree(prepared.path / EXPORT_DIR, bare / EXPORT_DIR)
    (bare / EXPORT_DIR / INT8_MODEL).write_bytes(b"not a graph")
    broken = onnx_or_fallback(bare, "int8", HashEmbedder)
    assert isinstance(broken, FallbackEmbedder)
    assert "ONNX Runtime cannot run it" in broken.warning


def test_health_shows_the_fallback(prepared: PreparedModel, tmp_path: Path, built: Built) -> None:
    bare = _copy_without_export(prepared, tmp_path / "model")
    embedder = onnx_or_fallback(bare, "int8", HashEmbedder)
    service = RulingsService(
        built.artifact,
        Settings(data_dir=tmp_path, corpus_dir=REPO / "corpus"),
        embedder,
        embedder.embed_passages(index_texts(built.kg)),
        embedder.embed_passages(clause_texts(built.kg)),
        embedder.embed_passages(claim_texts(built.kg)),
    )
    body = TestClient(create_app(service)).get("/health").json()
    assert body["ok"] is True and body["model"].startswith("hash:")
    assert body["model_warning"].startswith("ONNX runner unavailable")
    assert str(tmp_path) not in body["model_warning"]


def test_retrieval_quality_of_the_onnx_runner(prepared: PreparedModel) -> None:
    """Measured (docs/benchmarks.md): dense MRR 0.757 (float32 0.754, torch int8 0.739), fused
    R@5 0.953 (float32 0.953, torch int8 0.959), fused MRR 0.870 (0.877, 0.876); on a CPU
    without VNNI (uint8 weights) dense MRR 0.749, fused R@5 0.953, fused MRR 0.876."""
    data = prepared.path.parent.parent
    runtime = load_runtime(Settings(data_dir=data, corpus_dir=REPO / "corpus", embedder="onnx"))
    assert isinstance(runtime.service.index.embedder, OnnxEmbedder)
    result = evaluate_search(runtime.service, read_jsonl(DATA / "retrieval.jsonl"))
    assert result["rankers"]["dense"]["mrr"] >= 0.745
    assert result["rankers"]["fused"]["recall@5"] >= 0.95
    assert result["rankers"]["fused"]["mrr"] >= 0.865
