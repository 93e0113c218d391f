"""Text analysis for lexical search: folding, tokenising, stop words and Portuguese stemming."""

from __future__ import annotations

import re
from functools import lru_cache

import Stemmer

from kb.ids import fold

_TOKEN = re.compile(r"[a-z0-9]+")
STOP_WORDS = frozenset(
    fold(w)
    for w in [
        "a",
        "o",
        "as",
        "os",
        "um",
        "uma",
        "uns",
        "umas",
        "de",
        "do",
        "da",
        "dos",
        "das",
        "em",
        "no",
        "na",
        "nos",
        "nas",
        "por",
        "pelo",
        "pela",
        "pelos",
        "pelas",
        "para",
        "com",
        "sem",
        "que",
        "se",
        "e",
        "ou",
        "mas",
        "como",
        "ao",
        "aos",
        "à",
        "às",
        "é",
        "ser",
        "são",
        "foi",
        "era",
        "esta",
        "este",
        "isto",
        "isso",
        "esse",
        "essa",
        "ele",
        "ela",
        "eles",
        "elas",
        "seu",
        "sua",
        "seus",
        "suas",
        "meu",
        "minha",
        "você",
        "voce",
        "nao",
        "não",
        "sim",
        "ja",
        "já",
        "mais",
        "muito",
        "muita",
        "quando",
        "onde",
        "qual",
        "quais",
        "quem",
        "the",
        "an",
        "of",
        "to",
        "in",
        "on",
        "at",
        "for",
        "by",
        "with",
        "and",
        "or",
        "is",
        "are",
        "be",
        "can",
        "could",
        "does",
        "do",
        "did",
        "it",
        "its",
        "this",
        "that",
        "these",
        "those",
        "my",
        "your",
        "if",
        "then",
        "than",
        "from",
        "as",
        "was",
        "were",
        "will",
        "would",
        "should",
    ]
)


@lru_cache(maxsize=1)
def _stemmer() -> Stemmer.Stemmer:
    return Stemmer.Stemmer("portuguese")


def tokens(text: str) -> list[str]:
    """Folded word tokens of a text (no stop words, no stemming)."""
    return [t for t in _TOKEN.findall(fold(text)) if t not in STOP_WORDS]


def analyse(text: str) -> list[str]:
    """Folded, stop-worded, Portuguese-stemmed tokens: the lexical index's terms."""
    return _stemmer().stemWords(tokens(text))
