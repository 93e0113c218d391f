""" "Did you mean": the cards a question seems to name but the linker did not resolve.

A question that half-remembers a card ("Dragão Gaia, o Cavaleiro do Trovão") links no card, and
the answer finds no ruling. The words that look like a name are found by their shape, never by a
list of phrases: runs of capitalised words, joined by the function words, commas and hyphens that
card names hold ("Gaia, o Cavaleiro", "Blackwing - Kalut"), outside the spans the linker already
resolved to a card. Every stretch of such a run that begins and ends on a capitalised word is
looked up by card search (`kb.cards.search.CardIndex`); a card found at `min_score` or more is a
candidate. Candidates are ranked by how close the card's name (pt or en) is to the whole run, then
by how much of the run the stretch covers, then by the search score.

One capitalised word alone suggests only one-word names (a typo: "Jinzzo" → Jinzo); as a name's
first word it would match every name that begins with it. Pure: text, spans and an index in,
suggestions out.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from rapidfuzz import fuzz

from kb.cards.search import CardIndex, normalize
from kb.reading.language import LANGUAGES, language

_WORD = re.compile(r"[^\W_][\w'’]*(?:-[\w'’]+)*")
_JOINER = re.compile(r"^[\s,\-–—:]*$")  # what may stand between two words of one name
MAX_RUN = 8  # words of one run looked at (a name is rarely longer)


@dataclass(frozen=True)
class Suggestion:
    """A card the question may mean: the span of the question that reads like its name."""

    start: int
    end: int
    text: str
    card: str
    name_en: str
    name_pt: str | None
    score: float


@dataclass(frozen=True)
class _Word:
    start: int
    end: int
    text: str
    capital: bool


@cache
def _function_words() -> frozenset[str]:
    """The function words of every reader language (folded): they join a name's words."""
    return frozenset(w for code in LANGUAGES for w in language(code).function_words)


def _words(question: str, taken: Sequence[tuple[int, int]]) -> list[_Word | None]:
    """The question's words in order; None for a word inside a resolved span (it breaks runs)."""
    function = _function_words()
    out: list[_Word | None] = []
    for m in _WORD.finditer(question):
        if any(m.start() < end and start < m.end() for start, end in taken):
            out.append(None)
            continue
        text = m.group()
        capital = (text[0].isupper() or text[0].isdigit()) and normalize(text) not in function
        out.append(_Word(m.start(), m.end(), text, capital))
    return out


def name_runs(question: str, taken: Sequence[tuple[int, int]] = ()) -> list[list[_Word]]:
    """Runs of capitalised words joined by function words, commas or hyphens; each begins and
    ends on a capitalised word."""
    function = _function_words()
    runs: list[list[_Word]] = []
    current: list[_Word] = []

    def close() -> None:
        while current and not current[-1].capital:
            current.pop()
        if current:
            runs.append(list(current))
        current.clear()

    for w in _words(question, taken):
        if w is None:
            close()
            continue
        joined = bool(current) and _JOINER.match(question[current[-1].end : w.start]) is not None
        if w.capital:
            if not joined:
                close()
            current.append(w)
        elif joined and normalize(w.text) in function:
            current.append(w)
        else:
            close()
    close()
    return runs


def _stretches(run: list[_Word]) -> Iterable[tuple[int, int]]:
    """(first, last) word indices of every stretch beginning and ending on a capitalised word."""
    words = run[:MAX_RUN]
    for i, a in enumerate(words):
        if not a.capital:
            continue
        for j in range(i, len(words)):
            if words[j].capital:
                yield i, j


def suggest_cards(
    question: str,
    taken: Sequence[tuple[int, int]],
    index: CardIndex,
    min_score: float,
    limit: int = 3,
) -> list[Suggestion]:
    """The cards the question's name-like words may mean, best first (at most `limit`)."""
    found: dict[int, tuple[tuple[float, float, float], Suggestion]] = {}
    for run in name_runs(question, taken):
        whole = normalize(question[run[0].start : run[-1].end])
        span_words = len(run)
        for i, j in _stretches(run):
            start, end = run[i].start, run[j].end
            text = question[start:end]
            one_word = i == j
            for m in index.matches(text, k=limit, min_score=min_score):
                name = index.names[m.name]
                if one_word and " " in name:
                    continue
                record = index.records[m.record]
                closeness = max(
                    fuzz.ratio(whole, normalize(n)) / 100
                    for n in (record.name_en, record.name_pt)
                    if n
                )
                key = (closeness, (j - i + 1) / span_words, m.score)
                old = found.get(m.record)
                if old is None or key > old[0]:
                    found[m.record] = (
                        key,
                        Suggestion(
                            start=start,
                            end=end,
                            text=text,
                            card=record.id,
                            name_en=record.name_en,
                            name_pt=record.name_pt,
                            score=round(m.score, 4),
                        ),
                    )
    ranked = sorted(found.values(), key=lambda p: (p[0], p[1].name_en), reverse=True)
    return [s for _, s in ranked[:limit]]


def respan(suggestions: list[dict[str, Any]], text: str) -> list[dict[str, Any]]:
    """Suggestions made for a question asked in other words, with their spans in `text` (one
    whose words `text` does not hold is dropped)."""
    out = []
    for s in suggestions:
        at = text.find(s["text"])
        if at >= 0:
            out.append({**s, "span": [at, at + len(s["text"])]})
    return out
