"""BM25 ranking (bm25s) over analysed passage texts."""

from __future__ import annotations

import logging
from collections.abc import Sequence

import bm25s
import numpy as np

from kb.search.analysis import analyse


class BM25Index:
    """A BM25 index over documents given as analysed token lists."""

    def __init__(self, texts: Sequence[str]) -> None:
        self.size = len(texts)
        corpus = [analyse(t) or ["_empty_"] for t in texts]
        logging.getLogger("bm25s").setLevel(logging.WARNING)  # it sets itself to DEBUG on import
        self._retriever = bm25s.BM25()
        self._retriever.index(corpus, show_progress=False)
        self._vocab = set(self._retriever.vocab_dict)

    def scores(self, query_terms: Sequence[str]) -> np.ndarray:
        """BM25 score of every document for the query's terms (unknown terms are ignored)."""
        known = [t for t in query_terms if t in self._vocab]
        if not known:
            return np.zeros(self.size, dtype=np.float32)
        return np.asarray(self._retriever.get_scores(known), dtype=np.float32)
