"""Text segmentation with exact character offsets: lines, sentences, clauses and trimmed spans."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from dataclasses import dataclass


@dataclass(frozen=True)
class Segment:
    """A piece of a text: `text == source[start:end]`, never empty, never padded with spaces."""

    start: int
    end: int
    text: str


def trimmed(source: str, start: int, end: int) -> Segment | None:
    """The segment [start, end) with surrounding whitespace removed; None when nothing is left."""
    while start < end and source[start].isspace():
        start += 1
    while end > start and source[end - 1].isspace():
        end -= 1
    if start >= end:
        return None
    return Segment(start, end, source[start:end])


def lines(source: str) -> Iterator[Segment]:
    """Every non-blank line of `source`, trimmed, with its offsets."""
    pos = 0
    for raw in source.splitlines(keepends=True):
        seg = trimmed(source, pos, pos + len(raw))
        pos += len(raw)
        if seg is not None:
            yield seg


# A sentence ends at . ! ? (optionally followed by closing quotes/brackets) before whitespace and an
# opening character; single-letter abbreviations ("D.D. Survivor") and "ex." do not end sentences.
_BOUNDARY = re.compile(
    r"(?<=[.!?])([\"”')\]]*)\s+(?=[\"“(\-*A-ZÀ-Ý0-9])"  # ". Next" (closing quotes stay)
    r"|(?<=[a-zà-ÿ)]\.)(?=[A-ZÀ-Ý][a-zà-ÿ])"  # "Efeito.Efeito": a missing space
)
_ABBREVIATION = re.compile(r"(?:\b[A-Za-z]|\bex|\bpág|\bVer|\bvs)\.$")


def sentences(source: str, start: int, end: int) -> list[Segment]:
    """Split source[start:end] into sentences with offsets into `source`."""
    out: list[Segment] = []
    cursor = start
    for match in _BOUNDARY.finditer(source, start, end):
        head = source[cursor : match.start()]
        if _ABBREVIATION.search(head):
            continue
        seg = trimmed(source, cursor, match.end(1) if match.group(1) is not None else match.start())
        if seg is not None:
            out.append(seg)
        cursor = match.end()
    seg = trimmed(source, cursor, end)
    if seg is not None:
        out.append(seg)
    return out


def split_at(source: str, start: int, end: int, cuts: list[int]) -> list[Segment]:
    """Split source[start:end] at the given absolute offsets, trimming each piece."""
    bounds = [start, *sorted(c for c in cuts if start < c < end), end]
    pieces = (trimmed(source, a, b) for a, b in itertools.pairwise(bounds))
    return [p for p in pieces if p is not None]


# Contrast and alternative clauses inside a sentence: "X pode …, mas Y não pode", "… OU …".
_CLAUSE_CUT = re.compile(r",\s+(?=mas\b|porém\b|no entanto\b|enquanto\b)|;\s+|\s+(?=OU\s)")


def clauses(source: str, start: int, end: int) -> list[Segment]:
    """Sentences of source[start:end], each further cut at contrast clauses ('…, mas …')."""
    out: list[Segment] = []
    for sent in sentences(source, start, end):
        cuts = [m.start() for m in _CLAUSE_CUT.finditer(source, sent.start, sent.end)]
        out += split_at(source, sent.start, sent.end, cuts) if cuts else [sent]
    return out
