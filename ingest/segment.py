"""Segmentation for the parsers: the pure splitters live in kb.text (shared with answering)."""

from kb.text import Segment, lines, sentences, split_at, trimmed

__all__ = ["Segment", "lines", "sentences", "split_at", "trimmed"]
