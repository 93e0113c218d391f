"""Rank fusion: weighted reciprocal rank fusion of several rankings."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np


def ranks(scores: np.ndarray, depth: int) -> dict[int, int]:
    """Rank (1-based) of the top `depth` documents with a positive score."""
    order = np.argsort(-scores, kind="stable")[:depth]
    positive = (scores[order] > 0).tolist()
    return {
        i: r + 1 for r, (i, keep) in enumerate(zip(order.tolist(), positive, strict=True)) if keep
    }


def fuse_rrf(
    rankings: Mapping[str, dict[int, int]], weights: Mapping[str, float], k: int
) -> dict[int, float]:
    """Σ weight / (k + rank) over the rankings a document appears in (order-invariant)."""
    fused: dict[int, float] = {}
    for name in sorted(rankings):
        w = weights.get(name, 1.0)
        for doc, rank in rankings[name].items():
            fused[doc] = fused.get(doc, 0.0) + w / (k + rank)
    return fused
