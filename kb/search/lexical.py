"""BM25 ranking over analysed passage texts.

The index is built by bm25s (Lucene's BM25, k1 1.5, b 0.75; float32), then kept as its plain
arrays: each term's column of precomputed document scores (``data``/``indices`` from
``indptr[t]`` to ``indptr[t + 1]``) and the term ids. Scoring a query adds the columns of its
terms in query order, as bm25s does, without importing bm25s (nor scipy, which it imports) in a
process that only reads a built index.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import numpy as np

from kb.search.analysis import analyse


class BM25Index:
    """A BM25 index over documents given as analysed token lists."""

    def __init__(self, texts: Sequence[str]) -> None:
        import bm25s

        self.size = len(texts)
        corpus = [analyse(t) or ["_empty_"] for t in texts]
        logging.getLogger("bm25s").setLevel(logging.WARNING)  # it sets itself to DEBUG on import
        retriever = bm25s.BM25()
        retriever.index(corpus, show_progress=False)
        if retriever.nonoccurrence_array is not None:  # not for Lucene's BM25
            raise ValueError("BM25 variant with non-occurrence scores is not supported")
        scores = retriever.scores
        self._data = np.asarray(scores["data"], dtype=np.float32)
        self._indices = np.asarray(scores["indices"])
        self._indptr = np.asarray(scores["indptr"])
        self._terms: dict[str, int] = {str(t): int(i) for t, i in retriever.vocab_dict.items()}

    def scores(self, query_terms: Sequence[str]) -> np.ndarray:
        """BM25 score of every document for the query's terms (unknown terms are ignored)."""
        out = np.zeros(self.size, dtype=np.float32)
        for term in query_terms:
            column = self._terms.get(term)
            if column is None:
                continue
            start, end = self._indptr[column], self._indptr[column + 1]
            np.add.at(out, self._indices[start:end], self._data[start:end])
        return out
