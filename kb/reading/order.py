"""Reading the order a sentence tells, and the order a question asks about.

A rule text tells an order by the words opening its steps ("Primeiro …, de seguida …, e por fim
…", "first …, then …, finally …") and may place all of it before or after something ("Antes da
damage calculation ocorrem X, depois disso Y"). A question asks whether one thing comes before or
after another ("X vem antes de Y?", "does X come before Y?") or is the first or last of an order
("X vem por último?"). A step, like each side of what is asked, is a `Part`: the entities and
content stems of a stretch of the sentence. The words come from the language data
(`sequence`, `relative_time`, `ordinals`), nothing else.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from kb.reading.language import Language
from kb.reading.proposition import Token
from kb.reading.reader import (
    _CUTS,
    _ENDS,
    Mentioned,
    _content,
    _language_of,
    _match,
    _opens,
    _predicate_starts,
    _words,
    tokens,
)

Relation = Literal["before", "after"]
Asked = Literal["before", "after", "first", "last"]
_ANCHOR_WORDS = 6  # an order's frame names what it is placed against in a few words


@dataclass(frozen=True)
class Part:
    """A stretch of a sentence: its character range and the entities and content stems in it."""

    start: int
    end: int
    entities: frozenset[str]
    stems: frozenset[str]

    def to_props(self) -> dict[str, object]:
        return {
            "span": [self.start, self.end],
            "entities": sorted(self.entities),
            "stems": sorted(self.stems),
        }

    @classmethod
    def from_props(cls, p: Mapping[str, Any]) -> Part:
        start, end = p["span"]
        return cls(int(start), int(end), frozenset(p["entities"]), frozenset(p["stems"]))


@dataclass(frozen=True)
class Order:
    """The steps a sentence tells, first to last, and what all of them come before or after."""

    steps: tuple[Part, ...]
    frame: Relation | None = None
    anchor: Part | None = None

    def placed_like(self, other: Order) -> Order:
        """These steps, placed where `other`'s are (its frame and anchor)."""
        return Order(self.steps, other.frame, other.anchor)

    def to_props(self) -> dict[str, object]:
        return {
            "steps": [s.to_props() for s in self.steps],
            "frame": self.frame,
            "anchor": self.anchor.to_props() if self.anchor is not None else None,
        }

    @classmethod
    def from_props(cls, p: Mapping[str, Any]) -> Order:
        anchor = p.get("anchor")
        return cls(
            tuple(Part.from_props(s) for s in p["steps"]),
            p.get("frame"),
            Part.from_props(anchor) if anchor else None,
        )


@dataclass(frozen=True)
class OrderAsked:
    """What a question asks of an order: whether `subject` comes before or after `other`, or
    is the first or last."""

    subject: Part
    relation: Asked
    other: Part | None = None


def _part(toks: Sequence[Token], lang: Language) -> Part | None:
    """The part the tokens make; None when they hold no entity and no content word."""
    entities = frozenset(t.entity for t in toks if t.entity)
    stems = frozenset(_content(toks, lang))
    if not toks or not (entities or stems):
        return None
    return Part(min(t.start for t in toks), max(t.end for t in toks), entities, stems)


def _relative(words: Sequence[str], i: int, lang: Language) -> tuple[Relation, int] | None:
    """A "before"/"after" word at i that places a thing (not one opening an order's next step:
    "depois disso" is "then")."""
    if _match(words, i, lang.sequence.get("next", frozenset())) > 1:
        return None
    for rel in ("before", "after"):
        n = _match(words, i, lang.relative_time.get(rel, frozenset()))
        if n:
            return rel, n
    return None


def _frame(toks: Sequence[Token], lang: Language) -> tuple[Relation, Part, int] | None:
    """A sentence opening with "before/after X": the relation, X (up to its predicate or the
    first comma, a few words at most) and where the rest starts."""
    words = _words(toks)
    found = _relative(words, 0, lang)
    if found is None:
        return None
    rel, n = found
    end = n
    while end < len(toks) and end - n < _ANCHOR_WORDS:
        if words[end] in _CUTS or words[end] in _ENDS or _predicate_starts(words, end, lang):
            break
        if end > n and toks[end - 1].entity and not toks[end].entity:
            break  # the anchor names its thing; the verb follows
        end += 1
    anchor = _part(toks[n:end], lang)
    if anchor is None:
        return None
    return rel, anchor, end


def _opens_step(words: Sequence[str], i: int, start: int, lang: Language) -> bool:
    """A step's opening word stands first, or after a comma or a conjunction ("e", "and")."""
    return i == start or words[i - 1] in _CUTS or bool(_match(words, i - 1, lang.conjunctions))


def read_order(
    text: str, mentions: Iterable[Mentioned] = (), lang: str | None = None
) -> Order | None:
    """The order a rule sentence tells, or None. Two steps or more, each opened by a word of
    `sequence` (the first may go without); or one step placed by an opening "before/after X"."""
    data = _language_of(text, lang)
    toks = tokens(text, mentions, data)
    if not toks:
        return None
    framed = _frame(toks, data)
    start = framed[2] if framed is not None else 0
    words = _words(toks)
    cuts: list[tuple[int, int]] = []  # (where a step's opening word stands, its length)
    follows = False  # a word opening a step after the first ("then", "finally") was found
    i = start
    while i < len(toks):
        found = 0
        if _opens_step(words, i, start, data):
            first_of_all = i == start or words[i - 1] in _CUTS
            for kind, phrases in data.sequence.items():
                n = _match(words, i, phrases)
                if n and (kind != "first" or first_of_all):
                    found, follows = n, follows or kind != "first"
                    break
        if found:
            cuts.append((i, found))
            i += found
        else:
            i += 1
    bounds = [start, *(c for at, n in cuts for c in (at, at + n)), len(toks)]
    steps = tuple(
        p
        for a, b in zip(bounds[::2], bounds[1::2], strict=True)
        if (p := _part([t for t in toks[a:b] if t.word not in _CUTS], data)) is not None
    )
    if not ((len(steps) >= 2 and follows) or (framed is not None and steps)):
        return None
    if framed is not None:
        return Order(steps, framed[0], framed[1])
    return Order(steps)


def _without_conditions(toks: Sequence[Token], lang: Language) -> list[Token]:
    """The tokens outside the stretches a condition or time word opens (up to the next comma):
    "If I attack a face-down monster, does …" keeps "does …"."""
    words = _words(toks)
    out: list[Token] = []
    skipping = False
    for i, t in enumerate(toks):
        if words[i] in _CUTS:
            skipping = False
            continue
        opened = _opens(words, i, lang)
        if (i == 0 or words[i - 1] in _CUTS) and opened is not None and opened[0] == "condition":
            skipping = True
        if not skipping:
            out.append(t)
    return out


def read_order_question(toks: Sequence[Token], lang: Language) -> OrderAsked | None:
    """What the asking sentence asks of an order: "X before/after Y?" or "X first/last?"."""
    words = _words(toks)
    framed = _frame(toks, lang)
    start = framed[2] if framed is not None else 0
    if framed is not None:  # "After damage calculation, does X come before Y?": X is after it
        while start < len(toks) and words[start] not in _CUTS:
            start += 1
    body = list(toks[start:])
    body_words = _words(body)
    for j in range(1, len(body)):
        found = _relative(body_words, j, lang)
        if found is None:
            continue
        rel, n = found
        end = j + n
        while end < len(body) and body_words[end] not in _CUTS and body_words[end] not in _ENDS:
            end += 1
        subject = _part(_without_conditions(body[:j], lang), lang)
        other = _part(body[j + n : end], lang)
        if subject is not None and other is not None:
            return OrderAsked(subject, rel, other)
        return None
    for j in range(len(body)):
        for end_kind in ("first", "last"):
            n = _match(body_words, j, lang.sequence.get(end_kind, frozenset())) or (
                _match(body_words, j, lang.ordinals.get(end_kind, frozenset()))
            )
            if not n:
                continue
            after = body[j + n : j + n + 1]
            if after and (after[0].entity or _content(after, lang)):
                continue  # "the first card activated": an ordinal of a thing, not of an order
            if _in_relative(body, body_words, j, n, lang):
                continue  # "does the player who goes first conduct …?": not what is asked
            subject = _part(_without_conditions(body[:j], lang), lang)
            if subject is not None:
                return OrderAsked(subject, end_kind)
    return None


def _in_relative(
    body: Sequence[Token], words: Sequence[str], j: int, n: int, lang: Language
) -> bool:
    """The ordinal at `j` closes a relative clause ("the player who goes first") and the asking
    clause goes on after it with words of its own."""
    relatives = lang.subordinators.get("relative", frozenset())
    if not any(_match(words, k, relatives) for k in range(1, j)):
        return False
    tail = []
    for t in body[j + n :]:
        if t.word in _CUTS or t.word in _ENDS:
            break
        tail.append(t)
    if tail and tail[0].entity is None and _match([tail[0].word], 0, lang.target_prepositions):
        return False  # "… vêm por último na Damage Step": where, not another predicate
    return any(t.entity for t in tail) or bool(_content(tail, lang))
