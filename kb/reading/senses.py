"""Senses: which of the language data's word groups a text uses, and where.

A sense is a named group of words and phrases in `kb/reading/senses/<code>.yaml`: the
words a player uses for a Chain, for negating, for a mandatory effect. A text's word matches a
sense word when their stems agree (the Snowball stemmer of that language, as everywhere in the
reader), so inflections need no listing; a phrase matches as a run of such words. Players mix
languages ("dá pra dar chain no Pot?"), so a text is matched against the senses of every language.

A word written with a leading "=" in the data matches only as written (folded), not by stem:
for a word whose stem is another word's ("limitado", a list status, and "limite", a limit).

Reasoners ask `Senses.has("chain")` of a question read once, instead of matching its text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache, lru_cache
from pathlib import Path

import yaml

from kb.ids import fold
from kb.reading.language import LANGUAGES, Language, language

SENSES_DIR = Path(__file__).resolve().parent / "senses"

_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")

CharSpan = tuple[int, int]


@dataclass(frozen=True)
class Senses:
    """Sense name → the character spans of the text where a word or phrase of it stands."""

    spans: Mapping[str, tuple[CharSpan, ...]] = field(default_factory=dict)

    def has(self, *names: str, start: int = 0, end: int | None = None) -> bool:
        """Whether the text uses any of the senses `names` between `start` and `end`."""
        return any(self.where(n, start, end) for n in names)

    def where(self, name: str, start: int = 0, end: int | None = None) -> tuple[CharSpan, ...]:
        """The spans of sense `name` that lie between `start` and `end` (characters)."""
        stop = end if end is not None else 1 << 62
        return tuple(s for s in self.spans.get(name, ()) if s[0] >= start and s[1] <= stop)

    def first(self, *names: str, start: int = 0) -> CharSpan | None:
        """The earliest span of any of `names` from `start` on."""
        found = [s for n in names for s in self.where(n, start)]
        return min(found) if found else None

    def before(self, at: int, *names: str, gap: int = 1) -> bool:
        """Whether a span of `names` ends at most `gap` characters before character `at` (one
        space: the word just before)."""
        return any(0 <= at - e <= gap for n in names for _, e in self.where(n))

    def after(self, at: int, *names: str, gap: int = 1) -> CharSpan | None:
        """The first span of `names` that starts at most `gap` characters after character `at`."""
        found = [s for n in names for s in self.where(n) if 0 <= s[0] - at <= gap]
        return min(found) if found else None

    def led_by(
        self,
        at: int,
        lead: Iterable[str],
        fillers: Iterable[str] = (),
        words: int = 2,
        least: int = 0,
        gap: int = 1,
    ) -> bool:
        """Whether the words just before character `at` are a span of `lead` followed by
        `least` to `words` spans of `fillers` ("sem um X": "sem" leads, "um" fills), one space
        apart (or `gap` characters: a quote)."""
        fill: list[CharSpan] | None = None  # the fillers' spans before `at`, read when needed
        cursor = at
        for used in range(words + 1):
            if used >= least and self.before(cursor, *lead, gap=gap):
                return True
            if fill is None:
                fill = sorted({s for n in fillers for s in self.where(n, end=at)}, reverse=True)
            nxt = next((s for s in fill if 0 <= cursor - s[1] <= gap), None)
            if nxt is None:
                return False
            cursor = nxt[0]
        return False

    def outside(self, ranges: Iterable[CharSpan]) -> Senses:
        """These senses without the spans that overlap `ranges` (e.g. the card names' mentions)."""
        cut = list(ranges)
        return Senses(
            {
                n: kept
                for n, spans in self.spans.items()
                if (kept := tuple(s for s in spans if not any(_overlap(s, r) for r in cut)))
            }
        )


def _overlap(a: CharSpan, b: CharSpan) -> bool:
    return a[0] < b[1] and b[0] < a[1]


# A word of a sense, as matched: (accents kept, its stem). Accents are kept only on a word that
# without them is a grammatical word of the language ("é" is not "e"); elsewhere players' missing
# accents do not matter.
Key = tuple[bool, str]
_AS_WRITTEN = "="  # a key matched against the folded word itself, not its stem


def _key(word: str, lang: Language) -> Key:
    lower, folded = word.lower().replace("’", "'"), fold(word).replace("’", "'")
    if folded.startswith("=") and len(folded) > 1:
        return False, _AS_WRITTEN + folded[1:]
    if lower != folded and folded in lang.function_words:
        return True, lang.stem(lower)
    return False, lang.stem(folded)


@cache
def _stemmed_senses(code: str) -> dict[str, tuple[tuple[Key, ...], ...]]:
    """Sense name → its phrases as keys, from the language's senses file."""
    lang = language(code)
    # every scalar a string: "no" and "on" are words here, not booleans
    raw = yaml.load(
        (SENSES_DIR / f"{code}.yaml").read_text("utf-8"),
        Loader=getattr(yaml, "CBaseLoader", yaml.BaseLoader),
    )
    return {
        str(name): tuple(
            dict.fromkeys(tuple(_key(w, lang) for w in str(p).split()) for p in phrases)
        )
        for name, phrases in (raw or {}).items()
    }


@cache
def _by_first(code: str) -> dict[Key, tuple[tuple[str, tuple[Key, ...]], ...]]:
    """The language's sense phrases by their first word's key: (sense name, phrase)."""
    out: dict[Key, list[tuple[str, tuple[Key, ...]]]] = {}
    for name, phrases in _stemmed_senses(code).items():
        for phrase in phrases:
            out.setdefault(phrase[0], []).append((name, phrase))
    return {k: tuple(v) for k, v in out.items()}


def _spans_in(
    words: list[tuple[str, int, int]], lang: Language, out: dict[str, set[CharSpan]]
) -> None:
    keys = [
        (
            (False, lang.stem(fold(w))),
            (True, lang.stem(w)),
            (False, _AS_WRITTEN + fold(w)),
        )
        for w, _, _ in words
    ]
    first = _by_first(lang.code)
    for i, own in enumerate(keys):
        for key in own:
            for name, phrase in first.get(key, ()):
                n = len(phrase)
                if i + n <= len(words) and all(phrase[j] in keys[i + j] for j in range(1, n)):
                    out.setdefault(name, set()).add((words[i][1], words[i + n - 1][2]))


def sense_stems(name: str) -> frozenset[str]:
    """The stems of the single words of sense `name` in every language (what a statement's
    `stems` are compared with)."""
    return frozenset(
        phrase[0][1]
        for code in LANGUAGES
        for phrase in _stemmed_senses(code).get(name, ())
        if len(phrase) == 1 and not phrase[0][1].startswith(_AS_WRITTEN)
    )


@lru_cache(maxsize=4096)
def read_senses(text: str) -> Senses:
    """The senses `text` uses, in every language the reader has data for."""
    words = [
        (m.group().lower().replace("’", "'"), m.start(), m.end()) for m in _WORD.finditer(text)
    ]
    out: dict[str, set[CharSpan]] = {}
    for code in LANGUAGES:
        lang = language(code)
        _spans_in(words, lang, out)
    return Senses({name: tuple(sorted(spans)) for name, spans in out.items()})
