"""Entity linking: find cards, concepts and formats named in a text (pt or en).

Matching is on a folded form (lowercase, accents removed, curly quotes straightened) and whole
words, longest surface form first. For queries, a fuzzy pass (rapidfuzz) catches typos such as
"Dragao Negro Armdo" in the words no exact match covered.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise

from rapidfuzz import fuzz, process

from kb.cards.names import CardNames, everyday_words, name_words, quoted
from kb.ids import fold
from kb.model import Mention

_QUOTES = str.maketrans({"“": '"', "”": '"', "‘": "'", "’": "'", "–": "-", "—": "-"})
_WORD = re.compile(r"[a-z0-9]+(?:['\-.][a-z0-9]+)*")
_EXACT_CACHE = 8192  # texts (and fuzzy windows) whose links are remembered (cleared when full)


def fold_with_offsets(text: str) -> tuple[str, list[int]]:
    """The folded text and, for each of its characters, the offset of its source character."""
    out: list[str] = []
    offsets: list[int] = []
    for i, ch in enumerate(text):
        folded = _fold_char(ch)
        out.append(folded)
        if len(folded) == 1:
            offsets.append(i)
        else:
            offsets.extend([i] * len(folded))
    return "".join(out), offsets


@lru_cache(maxsize=4096)
def _fold_char(ch: str) -> str:
    return fold(ch.translate(_QUOTES))


def normalise(surface: str) -> str:
    """The matching key of a surface form: folded, quotes straightened, spaces collapsed."""
    return " ".join(fold(surface.translate(_QUOTES)).split())


@dataclass(frozen=True)
class Entry:
    """One linkable entity: its id, type, display label and every surface form."""

    id: str
    type: str
    label: str
    surfaces: tuple[str, ...]


class Linker:
    """Finds mentions of known entities in text; built once from the lexicon's entries."""

    def __init__(
        self,
        entries: Iterable[Entry],
        *,
        min_fuzzy_len: int = 6,
        many: Iterable[Entry] = (),
        common_words: frozenset[str] = frozenset(),
        everyday: frozenset[str] | None = None,
    ) -> None:
        """`entries` are matched by one pattern; `many` (the card database: thousands of names)
        by a word index (`kb.cards.names`), where names made of `common_words` must be quoted or
        capitalised. A surface `entries` has is never one of `many`'s. `everyday`: the everyday
        words among every surface's words (`lexicon_words`); worked out here when not given."""
        self.entries: dict[str, Entry] = {}
        self._by_surface: dict[str, str] = {}
        for entry in entries:
            self.entries[entry.id] = entry
            for surface in entry.surfaces:
                key = normalise(surface)
                if key and key not in self._by_surface:
                    self._by_surface[key] = entry.id
        keys = sorted(self._by_surface, key=lambda k: (-len(k), k))
        # "Semi-Limitado" also matches "semi limitado" and "semilimitado".
        self._joined = {_joined(k): e for k, e in reversed(list(self._by_surface.items()))}
        body = "|".join(re.escape(k).replace(r"\ ", r"\s+").replace(r"\-", r"[\s-]?") for k in keys)
        self._pattern = re.compile(rf"(?<![a-z0-9])(?:{body})(?![a-z0-9])") if keys else None
        self._fuzzy_keys = [k for k in keys if len(k) >= min_fuzzy_len]
        self._fuzzy_lengths = [-len(k) for k in self._fuzzy_keys]  # ascending, for bisect
        self.min_fuzzy_len = min_fuzzy_len
        self._surfaces: dict[str, list[str]] = {}
        for key, entity in self._by_surface.items():
            self._surfaces.setdefault(entity, []).append(key)
        many = [e for e in many if e.id not in self.entries]
        for entry in many:
            self.entries[entry.id] = entry
        if everyday is None:
            everyday = everyday_words(lexicon_words(self.entries.values()))
        self._everyday = everyday
        self._cards = CardNames(
            ((e.id, normalise(s)) for e in many for s in e.surfaces),
            common_words,
            everyday=everyday,
            taken=frozenset(self._by_surface),
        )
        self._common = common_words
        self._first_words = _first_words(
            self.entries.values(), frozenset(self._surfaces), common_words
        )
        self._leading = _leading_words(
            self.entries.values(), frozenset(self._surfaces), common_words | everyday
        )
        self._exact: dict[tuple[str, frozenset[str] | None], tuple[Mention, ...]] = {}
        self._near: dict[str, tuple[str, float] | None] = {}
        self._initials = _initialisms(
            self.entries.values(), frozenset(e.id for e in many), common_words
        )

    def surfaces_of(self, entity: str) -> list[str]:
        return self._surfaces.get(entity) or self._cards.keys_of(entity)

    def link(
        self, text: str, *, fuzzy: bool = False, types: frozenset[str] | None = None
    ) -> list[Mention]:
        """Mentions in `text` (offsets into `text`), in order; fuzzy adds typo-tolerant matches.
        Exact links are remembered per text (a claim's statement is linked for many questions)."""
        if fuzzy:
            return self._link(text, fuzzy, types)
        key = (text, types)
        found = self._exact.get(key)
        if found is None:
            if len(self._exact) >= _EXACT_CACHE:
                self._exact.clear()
            found = self._exact[key] = tuple(self._link(text, False, types))
        return list(found)

    def _link(self, text: str, fuzzy: bool, types: frozenset[str] | None) -> list[Mention]:
        folded, offsets = fold_with_offsets(text)
        mentions: list[Mention] = []
        covered: list[tuple[int, int]] = []
        if self._pattern is not None:
            for m in self._pattern.finditer(folded):
                found = " ".join(m.group(0).split())
                entity = self._by_surface.get(found) or self._joined[_joined(found)]
                if types is not None and self.entries[entity].type not in types:
                    continue
                start, end = offsets[m.start()], offsets[m.end() - 1] + 1
                if self.entries[entity].type == "Card" and self._ordinary(found, text, start, end):
                    continue  # "the storm of effects": a word, not Storm
                mentions.append(Mention(entity, start, end, text[start:end], 1.0))
                covered.append((m.start(), m.end()))
        if len(self._cards) and (types is None or "Card" in types):
            mentions = _merge(mentions, self._cards.find(text, folded, offsets), self.entries)
        if fuzzy:
            exact = [(m.start, m.end) for m in mentions]
            mentions += [
                m
                for m in self._fuzzy(text, folded, offsets, covered, types)
                if not any(a < m.end and m.start < b for a, b in exact)
            ]
            if len(self._cards) and (types is None or "Card" in types):
                spans = [(m.start, m.end) for m in mentions]
                mentions += self._cards.fuzzy(text, folded, offsets, spans)
            if types is None or "Card" in types:
                mentions += self._shorthand(text, mentions)
        return sorted(mentions, key=lambda m: (m.start, -m.end))

    def _closest(self, window: str) -> tuple[str, float] | None:
        """The fuzzy key closest to a window of words and its ratio, if within `_cutoff`;
        remembered per window (the same words recur from question to question)."""
        if window in self._near:
            return self._near[window]
        cutoff = _cutoff(window)
        best = process.extractOne(
            window, self._keys_near(len(window), cutoff), scorer=fuzz.ratio, score_cutoff=cutoff
        )
        if len(self._near) >= _EXACT_CACHE:
            self._near.clear()
        found = self._near[window] = None if best is None else (best[0], float(best[1]))
        return found

    def _keys_near(self, length: int, cutoff: float) -> list[str]:
        """The fuzzy keys whose length allows a ratio of `cutoff` with a window of `length`
        characters (the ratio is at most 2·shorter/(both lengths)), in the keys' order: the
        same best match as over every key."""
        share = cutoff / 100
        shortest = int(share * length / (2 - share)) - 1
        longest = int(length * (2 - share) / share) + 1
        start = bisect_left(self._fuzzy_lengths, -longest)
        end = bisect_right(self._fuzzy_lengths, -shortest)
        return self._fuzzy_keys[start:end]

    def _shorthand(self, text: str, mentions: list[Mention]) -> list[Mention]:
        """How players name a card again or for short, in the words no mention covers: a word of
        a card named earlier in the text ("Evolzar Laggia … o Laggia resolve?"), the first word
        of a card the documents name ("Brionac"), or a card's capitalised initials ("MST" for
        Mystical Space Typhoon), each only when one card has it."""
        spans = [(m.start, m.end) for m in mentions]
        named = [m for m in mentions if self.entries[m.entity].type == "Card"]
        found: list[Mention] = []
        for w in re.finditer(r"[^\W\d_][\w'-]*", text):
            if _overlaps(w.start(), w.end(), spans):
                continue
            word = w.group(0)
            # a possessive or plural of initials is the card ("MST's effect", "two MSTs")
            bare = re.sub(r"(?<=[A-Z])(?:'s|s)$", "", word)
            entity = self._initials.get(bare) if _INITIALS.fullmatch(bare) else None
            if entity is not None:
                found.append(Mention(entity, w.start(), w.start() + len(bare), bare, 0.9))
                continue
            if word[0].isupper() and len(word) >= 4:
                key = fold(word)
                earlier = [m.entity for m in named if m.end <= w.start()]
                owners = {e for e in earlier if key in self._name_words(e)}
                entity = owners.pop() if len(owners) == 1 and key not in self._common else None
            if entity is None and len(word) >= 4:
                key = fold(word)
                if not (word.islower() and key in self._everyday):
                    # a card's personal name, in any case (an everyday word only capitalised)
                    entity = self._first_words.get(key)
            if entity is None and word[0].isupper() and len(word) >= 5:
                # the first word of a card the documents name, capitalised ("Bottomless")
                entity = self._leading.get(fold(word))
            if entity is not None:
                found.append(Mention(entity, w.start(), w.end(), word, 0.9))
        return found

    def _ordinary(self, found: str, text: str, start: int, end: int) -> bool:
        """A one-word card name that is an everyday word, written in lower case and not quoted
        (a capital makes it a name, even opening a sentence: "Edison: Honest pode …", "DAD")."""
        return (
            " " not in found
            and found in self._everyday
            and not text[start:end][:1].isupper()
            and not quoted(text, start, end)
        )

    def _name_words(self, entity: str) -> set[str]:
        words = {w for s in self.surfaces_of(entity) for w in _WORD.findall(s)}
        return {w for w in words if len(w) >= 4}

    def _fuzzy(
        self,
        text: str,
        folded: str,
        offsets: list[int],
        covered: list[tuple[int, int]],
        types: frozenset[str] | None,
    ) -> list[Mention]:
        words = [w for w in _WORD.finditer(folded) if not _inside(w.start(), w.end(), covered)]
        # apart[k]: how many of the first k gaps between words are wider than 2 characters
        apart = [0]
        for a, b in pairwise(words):
            apart.append(apart[-1] + (b.start() - a.end() > 2))
        found: list[Mention] = []
        taken: list[tuple[int, int]] = []
        for size in (6, 5, 4, 3, 2, 1):
            for i in range(len(words) - size + 1):
                first, last = words[i], words[i + size - 1]
                if apart[i + size - 1] != apart[i]:
                    continue  # words too far apart to be one name
                if _overlaps(first.start(), last.end(), taken):
                    continue
                window = folded[first.start() : last.end()]
                if len(window) < self.min_fuzzy_len:
                    continue
                best = self._closest(window)
                if best is None:
                    continue
                entity = self._by_surface[best[0]]
                if types is not None and self.entries[entity].type not in types:
                    continue
                start, end = offsets[first.start()], offsets[last.end() - 1] + 1
                if self.entries[entity].type == "Card" and self._ordinary(
                    best[0], text, start, end
                ):
                    continue
                found.append(Mention(entity, start, end, text[start:end], round(best[1] / 100, 3)))
                taken.append((first.start(), last.end()))
        return found


def lexicon_words(entries: Iterable[Entry]) -> set[str]:
    """Every word of the entries' surfaces, folded as the linker matches them."""
    return name_words(normalise(s) for e in entries for s in e.surfaces)


# Capitalised initials as players write them: "MST", "CotH", "DDR".
_INITIALS = re.compile(r"[A-Z][A-Za-z]{1,4}[A-Z]|[A-Z]{3,6}")
_SMALL = frozenset({"of", "the", "a", "an", "and", "to", "de", "do", "da", "e", "o"})


def _first_words(
    entries: Iterable[Entry], core: frozenset[str], common: frozenset[str]
) -> dict[str, str]:
    """The personal name before the comma of a card the lexicon's own entries name ("brionac" of
    "Brionac, Dragon of the Ice Barrier", "caius" of "Caius, the Shadow Monarch") -> the card,
    for names of 4 letters or more only one of those cards has and that are no common word."""
    owners: dict[str, set[str]] = {}
    for e in entries:
        if e.type != "Card" or e.id not in core:
            continue
        for surface in e.surfaces:
            head, comma, _ = normalise(surface).partition(",")
            words = _WORD.findall(head)
            if comma and len(words) == 1 and len(words[0]) >= 4 and words[0] not in common:
                owners.setdefault(words[0], set()).add(e.id)
    return {w: next(iter(ids)) for w, ids in owners.items() if len(ids) == 1}


def _leading_words(
    entries: Iterable[Entry], core: frozenset[str], common: frozenset[str]
) -> dict[str, str]:
    """The first word of the English name of a card the lexicon's own entries name
    ("bottomless" of "Bottomless Trap Hole") -> the card, for words of 5 letters or more that
    only one of those cards starts with, that are no common or everyday word and that open no
    archetype's names (more than 3 cards of all: "Blackwing")."""
    owners: dict[str, set[str]] = {}
    opening: dict[str, int] = {}
    for e in entries:
        if e.type != "Card":
            continue
        words = _WORD.findall(normalise(e.label))
        if len(words) < 2:
            continue
        opening[words[0]] = opening.get(words[0], 0) + 1
        if e.id in core and len(words[0]) >= 5 and words[0] not in common:
            owners.setdefault(words[0], set()).add(e.id)
    return {
        w: next(iter(ids))
        for w, ids in owners.items()
        if len(ids) == 1 and opening.get(w, 0) <= _ARCHETYPE
    }


_ARCHETYPE = 3


def _initialisms(
    entries: Iterable[Entry], many: frozenset[str], common: frozenset[str]
) -> dict[str, str]:
    """The initials of each card's English label -> the card, for initials one card has (among
    the cards the documents name first, else among all) and that are no word ("SIM", "TER"):
    its content words' initials in capitals ("MST", "DAD"), or with its small words in lower
    case as players write them ("CotH", "BoM")."""
    owners: dict[str, tuple[set[str], set[str]]] = {}
    for e in entries:
        if e.type != "Card":
            continue
        words = re.findall(r"[A-Za-z0-9]+", e.label)
        content = "".join(w[0] for w in words if w.lower() not in _SMALL).upper()
        mixed = "".join(w[0].lower() if w.lower() in _SMALL else w[0].upper() for w in words)
        for key in {content, mixed}:
            if len(key) >= 3 and key.lower() not in common:
                owners.setdefault(key, (set(), set()))[e.id in many].add(e.id)
    out = {}
    for key, (core, rest) in owners.items():
        pick = core or rest
        if len(pick) == 1:
            out[key] = next(iter(pick))
    return out


def without_mentions(text: str, mentions: Iterable[Mention], prefix: str = "") -> str:
    """`text` with each mention whose entity id starts with `prefix` blanked to one space
    ("Buraco Negro" is a card's name, not the verb "negar")."""
    for m in sorted((m for m in mentions if m.entity.startswith(prefix)), key=lambda m: -m.start):
        text = text[: m.start] + " " + text[m.end :]
    return text


def _merge(core: list[Mention], cards: list[Mention], entries: dict[str, Entry]) -> list[Mention]:
    """Core mentions plus card-database mentions that overlap none of them; a longer card name
    takes the place of the concept words inside it ("Effect Veiler" over "effect")."""
    out = list(core)
    for m in cards:
        inside = [c for c in out if c.start < m.end and m.start < c.end]
        if all(
            m.start <= c.start
            and c.end <= m.end
            and (c.end - c.start) < (m.end - m.start)
            and entries[c.entity].type == "Concept"
            for c in inside
        ):
            out = [c for c in out if c not in inside]
            out.append(m)
    return out


def _joined(key: str) -> str:
    """A surface key without its spaces and hyphens."""
    return re.sub(r"[\s-]", "", key)


def _cutoff(window: str) -> float:
    """Longer windows tolerate more edits: ~1 edit per 8 characters, never below 84%."""
    return max(84.0, 100.0 - 100.0 * (1 + len(window) // 12) / max(len(window), 1))


def _inside(start: int, end: int, spans: list[tuple[int, int]]) -> bool:
    return any(a <= start and end <= b for a, b in spans)


def _overlaps(start: int, end: int, spans: list[tuple[int, int]]) -> bool:
    return any(start < b and a < end for a, b in spans)
