"""Card search: every card's pt/en names and aliases, accent- and typo-tolerant, prefix-aware.

Names are folded (lowercase, no accents) and reduced to their words ("Maxx "C"" → "maxx c").
A query is scored against them through four channels, each card keeping its best score:

- exact name: 1.0;
- prefix of the whole name (search-as-you-type): 0.9 and up, shorter names first;
- prefix of a later word run of the name ("kalut" finds "Blackwing - Kalut the Moon Shadow"):
  0.75 and up;
- the whole name with typos (normalised Levenshtein ratio ≥ 0.6, rapidfuzz): 0.95 × ratio;
- every query word matched by a name word, exactly, as a prefix or with a typo ("emisary
  darkness"): up to 0.85;
- the initials of an English name ("mst", "bls"): 0.88.

Built once over the records (~14,000 cards, ~28,000 names: well under a second); queries take a
few milliseconds (bench/cards.py). Filters (card type or monster class, attribute, a format's card
pool) restrict the candidates before ranking.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from pydantic import AliasChoices, BaseModel, ConfigDict, Field
from rapidfuzz import fuzz, process

from kb.cards.table import CARD_TYPES, MONSTER_CLASSES, CardRecord
from kb.ids import fold

_WORD = re.compile(r"[a-z0-9]+")
_PREFIX_SCAN = 4000  # most index keys one prefix query looks at
_FUZZY_MIN = 60.0  # whole-name ratio below which a name is no match
_WORD_FUZZY_MIN = 80.0  # word ratio below which a word is no match
_RERANK = 200  # names sharing the query's words that are also scored as whole names
_COMMON = 1500  # a query word in more names than this only checks candidates
_GOOD_ENOUGH = 0.8  # below this best score, the whole query is matched against every name
_REMEMBERED = 2048  # unfiltered queries of a few results whose matches are kept (suggestions)
_REMEMBERED_K = 10


def normalize(text: str) -> str:
    """The matching form of a name or query: folded words joined by single spaces."""
    return " ".join(_WORD.findall(fold(text)))


class CardHit(BaseModel):
    """One card found (GET /cards, `ygo-rulings cards search --json`)."""

    model_config = ConfigDict(extra="forbid")

    id: str
    name_en: str
    name_pt: str | None = None
    card_type: str
    property: str | None = None
    attribute: str | None = None
    level: int | None = None
    rank: int | None = None
    link_rating: int | None = None
    atk: int | None = None
    defense: int | None = Field(
        default=None,
        serialization_alias="def",
        validation_alias=AliasChoices("def", "defense"),
        description="DEF (JSON key `def`).",
    )
    score: float = Field(description="1.0 for an exact name; lower for prefixes and typos.")
    matched: str = Field(description="The name (en, pt or alias) the query matched.")


class CardSearchResult(BaseModel):
    model_config = ConfigDict(extra="forbid")

    query: str
    type: str | None = None
    attribute: str | None = None
    format: str | None = None
    hits: list[CardHit]


@dataclass(frozen=True)
class Match:
    """A record index, its score and the name index that scored it."""

    record: int
    score: float
    name: int


def hit_of(record: CardRecord, score: float, matched: str) -> CardHit:
    return CardHit(
        id=record.id,
        name_en=record.name_en,
        name_pt=record.name_pt,
        card_type=record.card_type,
        property=record.property,
        attribute=record.attribute,
        level=record.level,
        rank=record.rank,
        link_rating=record.link_rating,
        atk=record.atk,
        defense=record.defense,
        score=round(score, 4),
        matched=matched,
    )


class CardIndex:
    """A read-only name index over card records."""

    def __init__(self, records: Iterable[CardRecord]) -> None:
        self.records: list[CardRecord] = list(records)
        self.names: list[str] = []  # normalised names
        self.surfaces: list[str] = []  # the names as written
        self.owner: list[int] = []  # name index -> record index
        self.exact: dict[str, list[int]] = {}
        self._name_words: list[frozenset[str]] = []
        self._initials: dict[str, list[int]] = {}  # "mst" -> Mystical Space Typhoon
        keys: list[tuple[str, int, int]] = []  # (word run, name index, word offset)
        words: dict[str, set[int]] = {}
        for ri, r in enumerate(self.records):
            seen: set[str] = set()
            for surface in (r.name_en, r.name_pt, *r.aliases):
                if not surface:
                    continue
                name = normalize(surface)
                if not name or name in seen:
                    continue
                seen.add(name)
                ni = len(self.names)
                self.names.append(name)
                self.surfaces.append(surface)
                self.owner.append(ri)
                self.exact.setdefault(name, []).append(ni)
                parts = name.split(" ")
                for w, _ in enumerate(parts):
                    keys.append((" ".join(parts[w:]), ni, w))
                for part in parts:
                    words.setdefault(part, set()).add(ni)
                self._name_words.append(frozenset(parts))
                if surface == r.name_en and len(parts) >= 2:
                    self._initials.setdefault("".join(p[0] for p in parts), []).append(ni)
        keys.sort()
        self._keys = keys
        self._key_text = [k[0] for k in keys]
        self._words = words
        self._vocab = sorted(words)
        self._vocab_by_initial: dict[str, list[str]] = {}
        for word in self._vocab:
            self._vocab_by_initial.setdefault(word[0], []).append(word)
        self.by_id = {r.id: i for i, r in enumerate(self.records)}
        self.by_slug = {r.slug: i for i, r in enumerate(self.records)}
        self.by_password = {r.password: i for i, r in enumerate(self.records) if r.password}
        self.attributes = frozenset(r.attribute for r in self.records if r.attribute)
        self._subsets = lru_cache(maxsize=64)(self._subset)
        # name indices by name length, each list ascending: the typo pass skips the lengths
        # that cannot reach its cutoff
        self._by_length: dict[int, list[int]] = {}
        for ni, name in enumerate(self.names):
            self._by_length.setdefault(len(name), []).append(ni)
        self._windows = lru_cache(maxsize=32)(self._window)
        # the index never changes: the matches of a recent unfiltered query are kept
        self._remembered = lru_cache(maxsize=_REMEMBERED)(self._unfiltered)

    # --- filters ---------------------------------------------------------------------------
    def _subset(
        self,
        card_type: str | None,
        attribute: str | None,
        pool: Callable[[CardRecord], bool] | None,
    ) -> tuple[frozenset[int], list[str], list[int]]:
        """(allowed record indices, their names, those names' indices) under the filters."""
        allowed = frozenset(
            i
            for i, r in enumerate(self.records)
            if (card_type is None or r.card_type == card_type or card_type in r.monster_classes)
            and (attribute is None or r.attribute == attribute)
            and (pool is None or pool(r))
        )
        picked = [ni for ni, ri in enumerate(self.owner) if ri in allowed]
        return allowed, [self.names[ni] for ni in picked], picked

    def _window(self, low: int, high: int) -> tuple[list[str], list[int]]:
        """(names, their indices, ascending) of the names `low` to `high` characters long."""
        picked = sorted(ni for n in range(low, high + 1) for ni in self._by_length.get(n, ()))
        return [self.names[ni] for ni in picked], picked

    # --- search ----------------------------------------------------------------------------
    def matches(
        self,
        query: str,
        k: int = 10,
        card_type: str | None = None,
        attribute: str | None = None,
        pool: Callable[[CardRecord], bool] | None = None,
        min_score: float = 0.0,
    ) -> list[Match]:
        """The `k` best cards for a query, best first (ties: English name); with `min_score`,
        only those scoring at least that (the same as filtering the `k` best: a caller that
        drops weaker matches lets the whole-name typo pass skip names that cannot reach it)."""
        if card_type is None and attribute is None and pool is None and k <= _REMEMBERED_K:
            return list(self._remembered(query, k, min_score))
        return self._matches(query, k, card_type, attribute, pool, min_score)

    def _unfiltered(self, query: str, k: int, min_score: float) -> tuple[Match, ...]:
        return tuple(self._matches(query, k, None, None, None, min_score))

    def _matches(
        self,
        query: str,
        k: int,
        card_type: str | None,
        attribute: str | None,
        pool: Callable[[CardRecord], bool] | None,
        min_score: float,
    ) -> list[Match]:
        q = normalize(query)
        if not q:
            return []
        filtered = card_type is not None or attribute is not None or pool is not None
        allowed, names, name_ids = (
            self._subsets(card_type, attribute, pool) if filtered else (None, self.names, None)
        )
        best: dict[int, Match] = {}

        def offer(ni: int, score: float) -> None:
            ri = self.owner[ni]
            if allowed is not None and ri not in allowed:
                return
            old = best.get(ri)
            if old is None or score > old.score:
                best[ri] = Match(ri, score, ni)

        for ni in self.exact.get(q, ()):
            offer(ni, 1.0)
        if " " not in q and 2 <= len(q) <= 6:
            for ni in self._initials.get(q, ()):
                offer(ni, 0.88)
        self._prefixes(q, offer)
        if len(q) >= 3:
            self._word_channel(q, allowed, offer)
            # Names scoring 0.95 × ratio ≥ min_score: a higher cutoff, which rapidfuzz prunes
            # names by (a point lower: it rounds the cutoff to a whole number of edits).
            cutoff = max(_FUZZY_MIN, min_score * 100 / 0.95 - 1)
            if max((m.score for m in best.values()), default=0.0) < _GOOD_ENOUGH and cutoff <= 100:
                # Nothing close through the words (a typo in a first letter, words run
                # together …): score the whole query against every name.
                if not filtered:
                    # ratio ≤ 200·min(len)/(len q + len name): only names of these lengths
                    # (a character wider each way) can reach the cutoff
                    low = int(len(q) * cutoff / (200 - cutoff)) - 1
                    high = int(len(q) * (200 - cutoff) / cutoff) + 1
                    names, name_ids = self._windows(max(low, 1), high)
                for _, ratio, pos in process.extract(
                    q, names, scorer=fuzz.ratio, limit=max(k * 3, 20), score_cutoff=cutoff
                ):
                    offer(name_ids[pos] if name_ids is not None else pos, 0.95 * ratio / 100)
        ranked = sorted(
            (m for m in best.values() if m.score >= min_score),
            key=lambda m: (-m.score, self.records[m.record].name_en),
        )
        return ranked[:k]

    def search(
        self,
        query: str,
        k: int = 10,
        card_type: str | None = None,
        attribute: str | None = None,
        pool: Callable[[CardRecord], bool] | None = None,
    ) -> list[CardHit]:
        return [
            hit_of(self.records[m.record], m.score, self.surfaces[m.name])
            for m in self.matches(query, k, card_type, attribute, pool)
        ]

    def _prefixes(self, q: str, offer: Callable[[int, float], None]) -> None:
        start = bisect_left(self._key_text, q)
        for key, ni, offset in self._keys[start : start + _PREFIX_SCAN]:
            if not key.startswith(q):
                break
            share = len(q) / len(self.names[ni])
            offer(ni, (0.9 if offset == 0 else 0.75) + 0.0999 * share)

    def _word_channel(
        self, q: str, allowed: frozenset[int] | None, offer: Callable[[int, float], None]
    ) -> None:
        """Names sharing the query's words (exact, as a prefix or with a typo): those holding
        every word score by word quality and coverage; the best of those holding every word but
        one are also scored as whole names with typos."""
        parts = q.split(" ")
        if len(parts) < 2 and len(q) < 4:
            return
        # Only the last word may be unfinished (search-as-you-type): it alone matches prefixes.
        # (A single word's prefixes are the prefix channel's: every word run is indexed.)
        similar = [
            dict(self._similar_words(part, prefix=0 < i == len(parts) - 1))
            for i, part in enumerate(parts)
        ]
        sizes = [sum(len(self._words[w]) for w in words) for words in similar]
        order = sorted(range(len(parts)), key=sizes.__getitem__)
        # Rare words find the candidates through their postings; common ones ("de", "the")
        # are only checked on those candidates.
        finders = [i for i in order if sizes[i] <= _COMMON] or order[:1]
        totals: dict[int, float] = {}
        counts: dict[int, int] = {}
        for i in finders:
            found: dict[int, float] = {}
            for word, score in similar[i].items():
                for ni in self._words[word]:
                    if score > found.get(ni, 0.0):
                        found[ni] = score
            for ni, score in found.items():
                totals[ni] = totals.get(ni, 0.0) + score
                counts[ni] = counts.get(ni, 0) + 1
        for i in order:
            if i in finders:
                continue
            words = similar[i]
            for ni in totals:
                got = max((words.get(w, 0.0) for w in self._name_words[ni]), default=0.0)
                if got:
                    totals[ni] += got
                    counts[ni] += 1
        need = max(1, len(parts) - 1)  # every word but one (a typo the words missed)
        ranked = sorted(
            (
                (n, totals[ni], ni)
                for ni, n in counts.items()
                if n >= need and (allowed is None or self.owner[ni] in allowed)
            ),
            reverse=True,
        )[:_RERANK]
        for n, total, ni in ranked:
            ratio = fuzz.ratio(q, self.names[ni], score_cutoff=_FUZZY_MIN)
            if ratio:
                offer(ni, 0.95 * ratio / 100)
            if n == len(parts):
                covered = len(parts) / max(len(parts), len(self._name_words[ni]))
                offer(ni, 0.85 * (total / len(parts)) * (0.7 + 0.3 * covered))

    def _similar_words(self, part: str, prefix: bool = True) -> list[tuple[str, float]]:
        """Vocabulary words like `part`: itself (1.0), words it begins (0.95, when `prefix`),
        words one or two typos away (their ratio; same first letter)."""
        out: list[tuple[str, float]] = []
        if part in self._words:
            out.append((part, 1.0))
        start = bisect_left(self._vocab, part)
        for word in self._vocab[start : start + 200] if prefix else ():
            if not word.startswith(part):
                break
            if word != part:
                out.append((word, 0.95))
        if len(part) >= 4:
            for word, ratio, _ in process.extract(
                part,
                self._vocab_by_initial.get(part[0], ()),
                scorer=fuzz.ratio,
                limit=8,
                score_cutoff=_WORD_FUZZY_MIN,
            ):
                if word != part:
                    out.append((word, ratio / 100))
        return out

    # --- resolving one name (deck lists) ---------------------------------------------------
    def resolve(self, name: str, min_ratio: float = 88.0) -> tuple[CardRecord | None, float]:
        """The card a written name means: an exact name, else one clearly best typo match
        (ratio ≥ `min_ratio` and at least 3 points above any other card); else (None, 0)."""
        q = normalize(name)
        if not q:
            return None, 0.0
        exact = self.exact.get(q)
        if exact:
            return self.records[self.owner[self._preferred(exact)]], 1.0
        found = process.extract(q, self.names, scorer=fuzz.ratio, limit=10, score_cutoff=60)
        if not found:
            return None, 0.0
        _, top, pos = found[0]
        others = [s for _, s, p in found[1:] if self.owner[p] != self.owner[pos]]
        if top >= min_ratio and (not others or top - others[0] >= 3):
            return self.records[self.owner[pos]], top / 100
        return None, 0.0

    def _preferred(self, name_ids: Sequence[int]) -> int:
        """Of names written alike, the English name of the lowest password."""
        return min(
            name_ids,
            key=lambda ni: (
                self.surfaces[ni] != self.records[self.owner[ni]].name_en,
                self.records[self.owner[ni]].password or 0,
            ),
        )

    def suggestions(self, name: str, n: int = 3) -> list[str]:
        """The English names of the closest cards (for an unknown entry)."""
        return [self.records[m.record].name_en for m in self.matches(name, n)]


def type_choices() -> tuple[str, ...]:
    """The values the `type` filter accepts: a card type or a monster class."""
    return (*CARD_TYPES, *MONSTER_CLASSES)
