"""The passage-vector matrix: memory-mapped read-only when whole, recomputed when damaged."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from kb.adapters.embedding_cache import cached_embeddings


class _Counting:
    """An embedder whose vector is each text's length (and that counts the texts it embeds)."""

    name = "counting"
    dim = 2

    def __init__(self) -> None:
        self.embedded = 0

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        self.embedded += len(texts)
        return np.array([[len(t), 1.0] for t in texts], dtype=np.float32)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self.embed_passages(texts)


def test_a_second_load_maps_the_matrix_without_embedding(tmp_path: Path) -> None:
    emb, texts = _Counting(), ["a", "bb", "ccc"]
    first, fresh = cached_embeddings(emb, texts, tmp_path)  # type: ignore[arg-type]
    assert fresh == 3 and first.tolist() == [[1, 1], [2, 1], [3, 1]]
    again, fresh = cached_embeddings(emb, texts, tmp_path)  # type: ignore[arg-type]
    assert fresh == 0 and emb.embedded == 3
    assert isinstance(again, np.memmap) and not again.flags.writeable
    assert again.tolist() == first.tolist()


def test_a_damaged_matrix_is_rebuilt_from_the_per_text_store(tmp_path: Path) -> None:
    emb, texts = _Counting(), ["a", "bb"]
    cached_embeddings(emb, texts, tmp_path)  # type: ignore[arg-type]
    (matrix,) = tmp_path.glob("mat-*.npy")
    matrix.write_bytes(matrix.read_bytes()[:40])
    vectors, fresh = cached_embeddings(emb, texts, tmp_path)  # type: ignore[arg-type]
    assert fresh == 0 and vectors.tolist() == [[1, 1], [2, 1]]  # rows from emb-*.npz
    cached_embeddings(emb, ["a", "bb", "new"], tmp_path)  # type: ignore[arg-type]
    assert len(list(tmp_path.glob("mat-*.npy"))) == 1  # the old list's matrix is dropped
