"""Stable, readable ids: slugs of names and the id scheme of the graph."""

from __future__ import annotations

import re
import unicodedata

_NON_ALNUM = re.compile(r"[^a-z0-9]+")


class _CombiningMarks(dict[int, int | None]):
    """A `str.translate` table that drops combining marks, filled one code point at a time."""

    def __missing__(self, point: int) -> int | None:
        kept = None if unicodedata.combining(chr(point)) else point
        self[point] = kept
        return kept


_DROP_MARKS = _CombiningMarks()


def fold(text: str) -> str:
    """Lowercase and strip accents (NFKD, drop combining marks): the form used for matching."""
    if text.isascii():
        return text.lower()  # NFKD leaves ASCII as it is; casefold is lower for ASCII
    return unicodedata.normalize("NFKD", text).translate(_DROP_MARKS).casefold()


def slugify(text: str) -> str:
    """Turn a name into an id segment: folded ascii, runs of other characters become '-'."""
    slug = _NON_ALNUM.sub("-", fold(text)).strip("-")
    if not slug:
        raise ValueError(f"cannot make an id from {text!r}")
    return slug


def card_id(slug: str) -> str:
    return f"card/{slug}"


def concept_id(slug: str) -> str:
    return f"concept/{slug}"


def format_id(name: str) -> str:
    return f"format/{name}"


def numbered(prefix: str, n: int, width: int = 2) -> str:
    """`numbered("rule", 5)` -> "rule-05": zero-padded so ids sort in document order."""
    return f"{prefix}-{n:0{width}d}"
