"""Embed with the ONNX export of a prepared model, run by ONNX Runtime: no torch at all.

``OnnxEncoder`` runs ``<folder>/onnx/model-int8.onnx`` (or ``model-float.onnx``), written by
``ygo-rulings model prepare`` (``onnx_export``), one text per call as ``BertEncoder`` does in
int8, with the lean unigram tokenizer when the export has one. ``OnnxEmbedder`` is the
``Embedder`` over it; ``onnx_or_fallback`` builds it, or, for a folder it cannot read, the
runner it is given, which then carries the reason as its ``warning`` (shown by ``/health``).
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from kb.adapters.bert_encoder import UnsupportedModel, check_quantize, read_spec
from kb.adapters.embedder import (
    available_cores,
    e5_prefixes,
    model_identifier,
    text_list,
    unit_rows,
)
from kb.adapters.onnx_export import (
    EXPORT_DIR,
    EXPORT_RECORD,
    EXPORT_VERSION,
    FLOAT_MODEL,
    INT8_MODEL,
    NORMALIZER_FILE,
    PIECES_FILE,
    VOCAB_FILE,
    WORD_TABLE,
)
from kb.adapters.onnx_graph import INPUT
from kb.search.embedding import Embedder

log = logging.getLogger(__name__)


class OnnxUnavailable(ValueError):
    """The folder has no ONNX export this runner can read; the message says why."""


def read_export_record(export_dir: Path) -> dict[str, Any]:
    """``export.json`` of a finished export of this version, else OnnxUnavailable saying why."""
    path = export_dir / EXPORT_RECORD
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise OnnxUnavailable(f"{export_dir}: no ONNX export") from exc
    except (OSError, ValueError) as exc:
        raise OnnxUnavailable(f"{path}: unreadable: {exc}") from exc
    version = record.get("export_version") if isinstance(record, dict) else None
    if version != EXPORT_VERSION:
        raise OnnxUnavailable(f"{path}: export version {version!r}, expected {EXPORT_VERSION}")
    return dict(record)


def open_session(path: Path) -> Any:
    """An ONNX Runtime CPU session on one thread that does not spin while idle."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.add_session_config_entry("session.inter_op.allow_spinning", "0")
    options.log_severity_level = 3
    options.enable_cpu_mem_arena = False
    options.enable_mem_pattern = False
    return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


class _FullTokenizer:
    """``tokenizers``' own tokenizer of the folder, for exports without the lean one."""

    def __init__(self, path: Path, max_length: int) -> None:
        from tokenizers import Tokenizer

        self._tokenizer = Tokenizer.from_file(str(path))
        self._tokenizer.no_padding()
        self._tokenizer.enable_truncation(max_length=max_length)

    def encode_batch(self, texts: Sequence[str]) -> list[list[int]]:
        return [list(e.ids) for e in self._tokenizer.encode_batch(list(texts))]


def tokenizer_ids(path: Path, texts: Sequence[str], max_length: int) -> list[list[int]]:
    """``texts`` through the ``tokenizers`` tokenizer file at ``path`` (truncated, unpadded)."""
    return _FullTokenizer(path, max_length).encode_batch(texts)


class WordTable:
    """The export's float32 word table, read a row at a time (``pread``), never mapped.

    A mapping of the 384 MB file became mostly resident after 148 questions, read-ahead and
    fault-around mapping neighbouring pages in whatever the advice; reading the ~25 rows of a
    question costs microseconds from the page cache and leaves nothing in the process.
    """

    def __init__(self, path: Path, hidden: int) -> None:
        self._fd = os.open(path, os.O_RDONLY)
        self._row = 4 * hidden
        self.hidden = hidden
        size = os.fstat(self._fd).st_size
        if size % self._row:
            os.close(self._fd)
            raise ValueError(f"{path}: {size} bytes are not rows of {hidden} floats")
        self.rows = size // self._row

    def lookup(self, ids: Sequence[int]) -> np.ndarray:
        """``[1, len(ids), hidden]`` float32: the rows of ``ids``, in order."""
        data = b"".join(os.pread(self._fd, self._row, self._row * self._check(i)) for i in ids)
        return np.frombuffer(data, dtype="<f4").reshape(1, len(ids), self.hidden)

    def _check(self, index: int) -> int:
        if not 0 <= index < self.rows:
            raise IndexError(f"token id {index} outside the word table's {self.rows} rows")
        return index

    def __del__(self) -> None:
        fd = getattr(self, "_fd", None)
        if fd is not None:
            os.close(fd)


class OnnxEncoder:
    """Mean-pooled, unit-length sentence embeddings from a folder's ONNX export."""

    def __init__(
        self, folder: Path, *, export_dir: Path | None = None, quantize: str = "int8"
    ) -> None:
        """Open the export (``<folder>/onnx`` unless given); OnnxUnavailable if it cannot."""
        self.quantize = check_quantize(quantize)
        folder = Path(folder)
        export = Path(export_dir) if export_dir is not None else folder / EXPORT_DIR
        try:
            self.spec = read_spec(folder)
        except UnsupportedModel as exc:
            raise OnnxUnavailable(str(exc)) from exc
        self.dim = self.spec.hidden
        graph = export / (INT8_MODEL if quantize == "int8" else FLOAT_MODEL)
        try:
            self._session = open_session(graph)
            self._table = WordTable(export / WORD_TABLE, self.dim)
            self._tokenizer = self._open_tokenizer(folder, export)
        except Exception as exc:  # ONNX Runtime's errors share no base class of their own
            raise OnnxUnavailable(f"{graph}: ONNX Runtime cannot run it: {exc}") from exc

    def _open_tokenizer(self, folder: Path, export: Path) -> Any:
        if (export / VOCAB_FILE).is_file() and (export / PIECES_FILE).is_file():
            from kb.adapters.unigram_tokenizer import UnigramTokenizer

            return UnigramTokenizer(
                export / VOCAB_FILE,
                export / PIECES_FILE,
                export / NORMALIZER_FILE,
                self.spec.max_length,
            )
        return _FullTokenizer(folder / "tokenizer.json", self.spec.max_length)

    def token_ids(self, texts: Sequence[str]) -> list[list[int]]:
        if self.spec.lower_case:
            texts = [t.lower() for t in texts]
        ids: list[list[int]] = self._tokenizer.encode_batch(list(texts))
        return ids

    def encode(self, texts: Sequence[str], workers: int = 1) -> np.ndarray:
        """``(len(texts), dim)`` float32 unit rows, one text per call on ``workers`` threads."""
        rows = self.token_ids(texts)
        out = np.zeros((len(rows), self.dim), dtype=np.float32)
        if workers > 1 and len(rows) > 1:
            with ThreadPoolExecutor(workers) as pool:
                for index, vector in enumerate(pool.map(self._embed, rows)):
                    out[index] = vector
        else:
            for index, ids in enumerate(rows):
                out[index] = self._embed(ids)
        return unit_rows(out, self.dim)

    def _embed(self, ids: list[int]) -> np.ndarray:
        feed = {INPUT: self._table.lookup(ids)}
        vector: np.ndarray = self._session.run(None, feed)[0][0]
        return vector


class OnnxEmbedder:
    """The ``Embedder`` over ``OnnxEncoder``: e5 prefixes, passages on every core."""

    warning: str | None = None

    def __init__(self, model: str | Path, *, quantize: str = "int8") -> None:
        """Open ``model``'s finished ONNX export; ``quantize`` is ``int8`` or ``none`` (float32)."""
        record = read_export_record(Path(model) / EXPORT_DIR)
        self._encoder = OnnxEncoder(Path(model), quantize=quantize)
        self.dim: int = self._encoder.dim
        graph = INT8_MODEL if quantize == "int8" else FLOAT_MODEL
        digest = str(record.get("sha256", {}).get(graph, ""))[:8]
        base = model_identifier(model, "onnx", "none")
        self.name: str = base + ("+int8" if quantize == "int8" else "+f32") + f"-x{digest}"
        self.query_prefix, self.passage_prefix = e5_prefixes(model) or ("", "")

    def _encode(self, texts: Sequence[str], prefix: str, workers: int = 1) -> np.ndarray:
        items = text_list(texts)
        if not items:
            return np.zeros((0, self.dim), dtype=np.float32)
        return self._encoder.encode([prefix + t for t in items], workers=workers)

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        """Embed documents (with ``passage: `` for e5 models), one thread per core."""
        return self._encode(texts, self.passage_prefix, workers=available_cores())

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """Embed search queries (with ``query: `` for e5 models) on the calling thread."""
        return self._encode(texts, self.query_prefix)


class FallbackEmbedder:
    """Another runner standing in for the ONNX one, with the reason as its ``warning``."""

    def __init__(self, embedder: Embedder, warning: str) -> None:
        self.embedder = embedder
        self.warning = warning
        self.name = embedder.name
        self.dim = embedder.dim

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        return self.embedder.embed_passages(texts)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self.embedder.embed_queries(texts)


def onnx_or_fallback(
    model: str | Path, quantize: str, fallback: Callable[[], Embedder]
) -> Embedder:
    """``OnnxEmbedder`` for ``model``, or ``fallback()`` with a warning if it cannot be read."""
    try:
        return OnnxEmbedder(model, quantize=quantize)
    except OnnxUnavailable as exc:
        warning = (
            f"ONNX runner unavailable ({exc}); serving with the torch runner instead "
            "(`ygo-rulings model prepare` writes the export)"
        )
        log.warning("%s", warning)
        return FallbackEmbedder(fallback(), warning)
