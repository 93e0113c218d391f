"""Calibrated confidence: the measured probability that a verdict is right.

A reasoner reports a raw confidence (a fixed value, or a score for claims and statements). What a
user reads is the share of right verdicts that reasoner gave, at that raw level, on the evaluation
sets: `bench.calibrate` asks every yes/no question of the sets with calibration off, counts per
(reasoner, raw band) how many verdicts were right, and writes the table this module reads: one
fitted with the curated claims, one on the documents alone (a knowledge base without claims
reads that one). A band
with few answers falls back to its reasoner's total, and that to all answers, each smoothed
towards the level above it, so a small count never claims certainty.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

TABLE = Path(__file__).with_name("calibration.json")  # fitted with the curated claims
# fitted on the documents alone (bench.calibrate --variant documents-alone): what a knowledge base
# without curated claims reads, whose reasoners are right less often at the same raw values
DOCUMENTS_TABLE = Path(__file__).with_name("calibration-documents.json")
BAND = 0.1  # width of a raw-confidence band
PRIOR = 4.0  # pseudo-answers a band borrows from the level above it
CEILING = 0.99


def band_of(raw: float) -> str:
    """The raw-confidence band a value falls in ("0.8" holds 0.80 <= raw < 0.90; raw values are
    a reasoner's own scale, claims' alignment scores run above 1)."""
    return f"{min(max(int(round(raw / BAND, 6)), 0), 19) * BAND:.1f}"


@dataclass(frozen=True)
class Count:
    n: int
    right: int


@dataclass(frozen=True)
class Calibration:
    """Right/asked counts per reasoner and raw band; `confidence` reads them, smoothed."""

    counts: dict[str, dict[str, Count]]  # reasoner -> band -> counts ("*" = the reasoner's total)
    overall: Count
    meta: dict[str, Any]

    def confidence(self, reasoner: str, raw: float | None) -> float | None:
        """The probability that `reasoner`'s verdict at `raw` is right; None for no raw value."""
        if raw is None:
            return None
        top = (self.overall.right + 1) / (self.overall.n + 2)
        by_band = self.counts.get(reasoner)
        if by_band is None:
            return round(top, 2)
        total = by_band.get("*", Count(0, 0))
        mid = (total.right + PRIOR * top) / (total.n + PRIOR)
        cell = by_band.get(band_of(raw), Count(0, 0))
        # Two decimals, never 1.0: no count of right answers makes the next one certain.
        return min(round((cell.right + PRIOR * mid) / (cell.n + PRIOR), 2), CEILING)

    def to_json(self) -> dict[str, Any]:
        return {
            **self.meta,
            "overall": [self.overall.n, self.overall.right],
            "counts": {
                r: {b: [c.n, c.right] for b, c in sorted(bands.items())}
                for r, bands in sorted(self.counts.items())
            },
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Calibration:
        counts = {
            r: {b: Count(int(v[0]), int(v[1])) for b, v in bands.items()}
            for r, bands in data.get("counts", {}).items()
        }
        n, right = data.get("overall", [0, 0])
        meta = {k: v for k, v in data.items() if k not in ("counts", "overall")}
        return cls(counts, Count(int(n), int(right)), meta)

    @classmethod
    def fit(
        cls, outcomes: Iterable[tuple[str, float, bool]], meta: dict[str, Any] | None = None
    ) -> Calibration:
        """Counts from (reasoner, raw confidence, verdict right) triples."""
        tally: dict[str, dict[str, list[int]]] = {}
        n = right = 0
        for reasoner, raw, ok in outcomes:
            for key in (band_of(raw), "*"):
                cell = tally.setdefault(reasoner, {}).setdefault(key, [0, 0])
                cell[0] += 1
                cell[1] += ok
            n += 1
            right += ok
        counts = {r: {b: Count(*c) for b, c in bands.items()} for r, bands in tally.items()}
        return cls(counts, Count(n, right), meta or {})


def table_for(curated: bool) -> Path:
    """The table of a knowledge base with curated claims, or of one read from documents alone."""
    return TABLE if curated else DOCUMENTS_TABLE


def load(path: Path = TABLE) -> Calibration | None:
    """The committed table, or None when it is missing or unreadable (raw confidences are then
    served as they are)."""
    try:
        return Calibration.from_json(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, TypeError, KeyError, IndexError):
        return None
