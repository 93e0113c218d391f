"""Reasoners: graph traversals over typed facts that decide a question, each step citing a source."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Step:
    """One reasoning step: what was applied, and the passage (or None for curated data) stating it."""

    text_en: str
    text_pt: str
    source: str | None


@dataclass
class Decision:
    """A reasoner's verdict with its steps; `sources` are the passages to cite first."""

    verdict: str | None
    steps: list[Step]
    summary_en: str
    summary_pt: str
    confidence: float
    sources: list[str] = field(default_factory=list)
    reasoner: str = ""
