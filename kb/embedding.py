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
