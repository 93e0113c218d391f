"""The card half of the service: search, one card's legality, a format's list, deck checks.

`RulingsService` composes one `CardService` (built on first use from the graph's Card nodes);
each method here backs one HTTP route and one CLI command and returns a typed model, which the
facade turns into the plain JSON both edges print. Parameters are checked here, once: an unknown
format, a format without the card rules a request needs, a bad filter, an oversized deck or an
unknown card raise InvalidQuery / NotFound naming the value.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from functools import partial
from typing import Literal

from kb.cards.banlist import (
    Banlist,
    Legality,
    RuleSources,
    banlist,
    check_card_fields,
    has_card_rules,
    in_pool,
    legality,
    lflist,
    status_of,
)
from kb.cards.deck import DeckReport, check_decks
from kb.cards.nodes import card_records
from kb.cards.search import CardIndex, CardSearchResult, type_choices
from kb.cards.table import CardRecord
from kb.errors import InvalidQuery, NotFound, empty, out_of_range, too_long, unknown_value
from kb.formats import Formats, FormatSpec
from kb.graph import KnowledgeGraph

Need = Literal["rules", "list", "deck"]
_NEEDS: dict[Need, tuple[str, Callable[[FormatSpec], bool]]] = {
    "rules": ("card pool or Forbidden & Limited list", has_card_rules),
    "list": ("Forbidden & Limited list", lambda s: s.banlist is not None),
    "deck": ("deck rules", lambda s: s.deck is not None),
}
MAX_DUELIST_DECKS = 2
# A search hit names a card beyond doubt (`CardService.searched`) from this score, this far ahead.
SURE_HIT = 0.85
SURE_LEAD = 0.05


class CardService:
    """Read-only card queries over a fixed set of records."""

    def __init__(
        self,
        records: Iterable[CardRecord],
        formats: Formats,
        kg: KnowledgeGraph,
        *,
        max_k: int = 100,
        max_query_chars: int = 1000,
        max_deck_chars: int = 20000,
        max_deck_copies: int = 200,
    ) -> None:
        self.index = CardIndex(records)
        self.formats = formats
        self.kg = kg
        self.max_k = max_k
        self.max_query_chars = max_query_chars
        self.max_deck_chars = max_deck_chars
        self.max_deck_copies = max_deck_copies
        self._sources: dict[str, RuleSources] = {}
        self._pools: dict[str, Callable[[CardRecord], bool]] = {}
        self._checked: set[str] = set()
        self._lists: dict[str, Banlist] = {}  # the records never change: one list per format
        self._lflists: dict[str, str] = {}

    @classmethod
    def of_graph(cls, kg: KnowledgeGraph, formats: Formats, **limits: int) -> CardService:
        return cls(card_records(kg), formats, kg, **limits)

    # --- parameters --------------------------------------------------------------------------
    def spec(self, format: str | None, need: Need) -> FormatSpec:
        """The format asked for (default: the first declaring what the request needs), which
        must declare it; InvalidQuery names the format and what it lacks."""
        what, has = _NEEDS[need]
        able = [s for s in self.formats.specs if has(s)]
        if format is None or format == "":
            if not able:
                raise InvalidQuery("format", f"no format declares {what}")
            spec = able[0]
        else:
            found = self.formats.get(format)
            if found is None:
                raise unknown_value(
                    "format",
                    format,
                    f"unknown format {format!r}; use one of {', '.join(self.formats.ids)}",
                )
            if not has(found):
                ids = ", ".join(s.id for s in able) or "none"
                raise InvalidQuery("format", f"format {format!r} declares no {what}; use {ids}")
            spec = found
        if spec.id not in self._checked:
            check_card_fields(spec, self.index.records)
            self._checked.add(spec.id)
        return spec

    def accepted_formats(self, need: Need | None = None) -> tuple[str, ...]:
        """The format ids `spec(format, need)` accepts (need None: the `search` filter, which
        checks the card fields of a format with a card pool only), in manifest order."""
        accepted = []
        for spec in self.formats.specs:
            if need is not None and not _NEEDS[need][1](spec):
                continue
            if need is not None or spec.card_pool:
                try:
                    check_card_fields(spec, self.index.records)
                except InvalidQuery:
                    continue
            accepted.append(spec.id)
        return tuple(accepted)

    def sources(self, spec: FormatSpec) -> RuleSources:
        if spec.id not in self._sources:
            self._sources[spec.id] = RuleSources(self.kg, spec)
        return self._sources[spec.id]

    def _pool(self, spec: FormatSpec) -> Callable[[CardRecord], bool] | None:
        if not spec.card_pool:
            return None
        if spec.id not in self._pools:  # one callable per format: the index caches by it
            self._pools[spec.id] = partial(in_pool, spec=spec)
        return self._pools[spec.id]

    def card(self, key: str) -> CardRecord:
        """A card by id (`card/<slug>`), slug, password or exact name; NotFound suggests ids."""
        text = (key or "").strip()
        if not text:
            raise empty("id")
        ix = self.index
        found = ix.by_id.get(text, ix.by_slug.get(text.removeprefix("card/")))
        if found is None and text.isdigit():
            found = ix.by_password.get(int(text))
        if found is not None:
            return ix.records[found]
        record, score = ix.resolve(text.removeprefix("card/").replace("-", " "))
        if record is not None and score == 1.0:
            return record
        close = [ix.records[m.record].id for m in ix.matches(text.removeprefix("card/"), 5)]
        raise NotFound("card", text, close)

    def lookup(self, key: str) -> tuple[CardRecord, bool]:
        """The card a key means and whether it names it exactly: an id, slug, password or exact
        pt/en name (True), else the card search's clear answer (False): one clearly best typo
        match, or a best hit far enough ahead of the next. NotFound suggests the closest ids."""
        try:
            return self.card(key), True
        except NotFound:
            found = self.searched(key.strip().removeprefix("card/"))
            if found is None:
                raise
            return found, False

    def searched(self, text: str) -> CardRecord | None:
        """The card the search finds for a name beyond doubt (see `lookup`), else None."""
        record, _ = self.index.resolve(text)
        if record is not None:
            return record
        best = self.index.matches(text, 2)
        if (
            best
            and best[0].score >= SURE_HIT
            and (len(best) == 1 or best[0].score - best[1].score >= SURE_LEAD)
        ):
            return self.index.records[best[0].record]
        return None

    # --- queries -----------------------------------------------------------------------------
    def search(
        self,
        q: str,
        type: str | None = None,
        attribute: str | None = None,
        format: str | None = None,
        k: int = 10,
    ) -> CardSearchResult:
        """Cards by pt/en name or alias (typos, missing accents, prefixes), optionally filtered."""
        if q is None or not q.strip():
            raise empty("q")
        if len(q) > self.max_query_chars:
            raise too_long("q", len(q), self.max_query_chars)
        if not 1 <= k <= self.max_k:
            raise out_of_range("k", 1, self.max_k, k)
        card_type, attr, fmt, pool = self.filters(type, attribute, format)
        hits = self.index.search(q, k, card_type, attr, pool)
        return CardSearchResult(query=q, type=card_type, attribute=attr, format=fmt, hits=hits)

    def filters(
        self, type: str | None = None, attribute: str | None = None, format: str | None = None
    ) -> tuple[str | None, str | None, str | None, Callable[[CardRecord], bool] | None]:
        """The checked search filters: (card type, attribute, format id, card-pool test)."""
        card_type = None
        if type:
            card_type = type.strip().lower()
            if card_type not in type_choices():
                raise unknown_value(
                    "type",
                    type,
                    f"unknown card type {type!r}; use one of {', '.join(type_choices())}",
                )
        attr = None
        if attribute:
            attr = attribute.strip().upper()
            if attr not in self.index.attributes:
                known = ", ".join(sorted(self.index.attributes)) or "none loaded"
                raise unknown_value(
                    "attribute", attribute, f"unknown attribute {attribute!r}; use {known}"
                )
        pool = None
        fmt = None
        if format:
            if format not in self.formats:
                raise unknown_value(
                    "format",
                    format,
                    f"unknown format {format!r}; use one of {', '.join(self.formats.ids)}",
                )
            spec = self.formats.get(format)
            assert spec is not None
            fmt = spec.id
            if spec.card_pool:
                check_card_fields(spec, self.index.records)
                pool = self._pool(spec)
        return card_type, attr, fmt, pool

    def legality(self, card_id: str, format: str | None = None) -> Legality:
        """Whether, and how many copies of, one card may be used in a format."""
        spec = self.spec(format, "rules")
        record = self.card(card_id)
        kind = status_of(record, spec)
        source_kind = {"unlimited": "copies"}.get(kind, kind)
        return legality(record, spec, self.sources(spec).source(source_kind))

    def banlist(self, format: str | None = None) -> Banlist:
        """A format's Forbidden & Limited list with its date and provenance."""
        spec = self.spec(format, "list")
        if spec.id not in self._lists:
            self._lists[spec.id] = banlist(self.index.records, spec)
        return self._lists[spec.id]

    def lflist(self, format: str | None = None) -> str:
        """A format's pool and list as an EDOPro `lflist.conf`."""
        spec = self.spec(format, "rules")
        if spec.id not in self._lflists:
            self._lflists[spec.id] = lflist(self.index.records, spec)
        return self._lflists[spec.id]

    def validate(
        self,
        format: str | None = None,
        deck: str | None = None,
        decks: Sequence[str] | None = None,
    ) -> DeckReport:
        """Check one deck, or each duelist's own deck, against a format's card rules."""
        if (deck is None) == (decks is None):
            raise InvalidQuery("deck", "send either `deck` (one deck) or `decks` (one per duelist)")
        texts = [deck] if deck is not None else list(decks or [])
        field = "deck" if deck is not None else "decks"
        if not texts:
            raise InvalidQuery(field, "must hold at least one deck")
        if len(texts) > MAX_DUELIST_DECKS:
            raise InvalidQuery(
                field, f"holds {len(texts)} decks; at most {MAX_DUELIST_DECKS} (one per duelist)"
            )
        for i, text in enumerate(texts):
            where = field if deck is not None else f"decks.{i}"
            if not isinstance(text, str) or not text.strip():
                raise InvalidQuery(where, "must not be empty")
            if len(text) > self.max_deck_chars:
                raise InvalidQuery(
                    where, f"is {len(text)} characters long; the limit is {self.max_deck_chars}"
                )
            if "\x00" in text:
                raise InvalidQuery(where, "is binary, not a .ydk file or a card list")
        spec = self.spec(format, "deck")
        return check_decks(texts, self.index, spec, self.sources(spec), self.max_deck_copies)
