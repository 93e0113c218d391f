"""The embedding interface the knowledge base depends on; implementations live in kb.adapters."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np


class Embedder(Protocol):
    name: str  # model identifier, used as a cache key
    dim: int

    def embed_passages(
        self, texts: Sequence[str]
    ) -> np.ndarray: ...  # (n, dim) float32, L2-normalised

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray: ...


class HashEmbedder:
    """A deterministic, dependency-free stand-in for tests: hashed folded words and trigrams.

    It captures word overlap only (no semantics); the real model is exercised by model tests.
    """

    def __init__(self, dim: int = 256) -> None:
        self.dim = dim
        self.name = f"hash:{dim}"

    def _vector(self, text: str) -> np.ndarray:
        import hashlib

        from kb.search.analysis import tokens

        vec = np.zeros(self.dim, dtype=np.float32)
        for tok in tokens(text):
            grams = [tok] + [tok[i : i + 3] for i in range(max(len(tok) - 2, 0))]
            for g in grams:
                h = int.from_bytes(hashlib.blake2b(g.encode(), digest_size=4).digest(), "little")
                vec[h % self.dim] += 1.0
        norm = float(np.linalg.norm(vec))
        return vec / norm if norm else vec

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        return (
            np.stack([self._vector(t) for t in texts])
            if texts
            else np.zeros((0, self.dim), np.float32)
        )

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self.embed_passages(texts)
