"""A format's card rules read from its spec: pool membership, F&L status, the list, one card's
legality, and the list as an EDOPro `lflist.conf`.

Pure functions of card records and a `FormatSpec`: which record flag decides pool membership and
which record field holds the list's statuses are the spec's declarations (`card_pool`,
`banlist.field`), never names in code. Statuses follow the card-facts table: 0 forbidden,
1 limited, 2 semi-limited, unset (or 3) unlisted.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from kb.cards.table import CardRecord
from kb.errors import InvalidQuery
from kb.formats import FormatSpec
from kb.graph import KnowledgeGraph
from kb.model import Node

Status = Literal["forbidden", "limited", "semi-limited", "unlimited", "not-in-pool"]
STATUS_NAMES: dict[int, Status] = {0: "forbidden", 1: "limited", 2: "semi-limited"}
MAX_COPIES = 3  # a card the list does not name: at most three copies
_RECORD_FIELDS = frozenset(f.name for f in fields(CardRecord))


class Closed(BaseModel):
    """A result whose keys are all declared (an unknown key is a contract error)."""

    model_config = ConfigDict(extra="forbid")


class CardRef(Closed):
    """A card as lists and deck reports name it."""

    id: str = Field(description="The card's id, `card/<english-slug>`.")
    name_en: str
    name_pt: str | None = None
    password: int | None = Field(default=None, description="The card's passcode, if it has one.")


class BanlistEntry(CardRef):
    in_pool: bool | None = Field(
        default=None,
        description="Whether the card is in the format's card pool (null: the format has no pool).",
    )


class PoolInfo(Closed):
    field: str = Field(description="The card-record flag that decides membership.")
    size: int = Field(description="Cards in the pool.")


class Banlist(Closed):
    """A format's Forbidden & Limited list (GET /banlist, `ygo-rulings banlist --json`)."""

    format: str
    label: str
    effective: str = Field(description="The date the list took effect (ISO), or 'current'.")
    provenance: str
    pool: PoolInfo | None = None
    counts: dict[str, int] = Field(
        description="Cards per status: forbidden, limited, semi_limited."
    )
    forbidden: list[BanlistEntry]
    limited: list[BanlistEntry]
    semi_limited: list[BanlistEntry]


class Source(Closed):
    """What a legality verdict or a deck violation rests on: a rule passage of the format's
    document (authority `document`), or the manifest's declaration / a glossary definition
    (authority `curated`)."""

    id: str = Field(description="A passage id, or the format (concept) node the declaration is on.")
    authority: Literal["document", "curated"]
    text: str
    document: str | None = None
    start: int | None = None
    end: int | None = None


class Legality(Closed):
    """One card in one format (GET /cards/{id}/legality)."""

    card: CardRef
    format: str
    legal: bool = Field(description="At least one copy may be used.")
    limit: int = Field(description="Copies allowed across Main+Extra+Side (0..3).")
    status: Status
    reason: str
    first_tcg_date: str | None = None
    source: Source | None = None


def card_ref(record: CardRecord) -> CardRef:
    return CardRef(
        id=record.id, name_en=record.name_en, name_pt=record.name_pt, password=record.password
    )


def has_card_rules(spec: FormatSpec) -> bool:
    """The format declares a card pool or a Forbidden & Limited list."""
    return bool(spec.card_pool) or spec.banlist is not None


def check_card_fields(spec: FormatSpec, records: Sequence[CardRecord]) -> None:
    """InvalidQuery when the spec names a card-record field the loaded card data does not carry
    (not a field at all, or set on no card: a pool nobody is in, a list naming no card)."""
    for name in (spec.card_pool, spec.banlist.field if spec.banlist else None):
        if name is None:
            continue
        if name not in _RECORD_FIELDS and not any(name in r.extra for r in records):
            missing = "which the loaded card data does not carry"
        elif not any(_value(r, name) not in (None, False) for r in records):
            missing = "which no loaded card has set (the card data lacks it)"
        else:
            continue
        raise InvalidQuery(
            "format",
            f"format {spec.id!r} reads its card rules from the card field {name!r}, {missing}",
        )


def _value(record: CardRecord, name: str) -> object:
    return getattr(record, name) if name in _RECORD_FIELDS else record.extra.get(name)


def in_pool(record: CardRecord, spec: FormatSpec) -> bool:
    """Whether the card is in the format's pool (every card is, when the format declares none)."""
    return True if not spec.card_pool else bool(_value(record, spec.card_pool))


def list_status(record: CardRecord, spec: FormatSpec) -> int | None:
    """0 forbidden, 1 limited, 2 semi-limited, None unlisted (or the format has no list)."""
    if spec.banlist is None:
        return None
    value = _value(record, spec.banlist.field)
    return value if isinstance(value, int) and value in STATUS_NAMES else None


def limit_of(record: CardRecord, spec: FormatSpec) -> int:
    """Copies allowed across Main+Extra+Side: 0 outside the pool, else the list's, else 3."""
    if not in_pool(record, spec):
        return 0
    status = list_status(record, spec)
    return MAX_COPIES if status is None else status


def status_of(record: CardRecord, spec: FormatSpec) -> Status:
    if not in_pool(record, spec):
        return "not-in-pool"
    status = list_status(record, spec)
    return "unlimited" if status is None else STATUS_NAMES[status]


def banlist(records: Iterable[CardRecord], spec: FormatSpec) -> Banlist:
    """The format's list: every card the list names, by status, sorted by English name."""
    if spec.banlist is None:
        raise InvalidQuery("format", f"format {spec.id!r} declares no Forbidden & Limited list")
    items = list(records)
    check_card_fields(spec, items)
    groups: dict[int, list[BanlistEntry]] = {0: [], 1: [], 2: []}
    for r in sorted(items, key=lambda r: (r.name_en.casefold(), r.slug)):
        status = list_status(r, spec)
        if status is not None:
            groups[status].append(
                BanlistEntry(
                    **card_ref(r).model_dump(), in_pool=in_pool(r, spec) if spec.card_pool else None
                )
            )
    pool = None
    if spec.card_pool:
        pool = PoolInfo(field=spec.card_pool, size=sum(1 for r in items if in_pool(r, spec)))
    return Banlist(
        format=spec.id,
        label=spec.label_en,
        effective=spec.banlist.effective,
        provenance=spec.banlist.provenance,
        pool=pool,
        counts={
            "forbidden": len(groups[0]),
            "limited": len(groups[1]),
            "semi_limited": len(groups[2]),
        },
        forbidden=groups[0],
        limited=groups[1],
        semi_limited=groups[2],
    )


def lflist(records: Iterable[CardRecord], spec: FormatSpec) -> str:
    """The format as an EDOPro `lflist.conf`: `!name`, `$whitelist` when the format has a pool,
    then `password count --name` lines. With a pool every pool card is listed (EDOPro allows only
    listed cards) and cards outside it are left out; without one, only the list's cards."""
    if not has_card_rules(spec):
        raise InvalidQuery(
            "format", f"format {spec.id!r} declares no card pool or Forbidden & Limited list"
        )
    items = list(records)
    check_card_fields(spec, items)
    name = spec.label_en + (f" {spec.banlist.effective}" if spec.banlist else "")
    lines = [f"#[{name}]", f"!{name}"]
    if spec.banlist is not None:
        lines.append(f"# {spec.banlist.provenance}")
    if spec.card_pool:
        lines.append("$whitelist")
    sections: dict[int, list[CardRecord]] = {0: [], 1: [], 2: [], MAX_COPIES: []}
    skipped = 0
    for r in sorted(items, key=lambda r: (r.name_en.casefold(), r.slug)):
        if not in_pool(r, spec):
            continue
        status = list_status(r, spec)
        if status is None and not spec.card_pool:
            continue
        if r.password is None:
            skipped += 1
            continue
        sections[MAX_COPIES if status is None else status].append(r)
    titles = {0: "#forbidden", 1: "#limited", 2: "#semi-limited", MAX_COPIES: "#unlimited"}
    for count, title in titles.items():
        if sections[count]:
            lines.append(title)
            lines.extend(f"{r.password} {count} --{r.name_en}" for r in sections[count])
    if skipped:
        lines.append(f"# {skipped} card(s) without a password left out")
    return "\n".join(lines) + "\n"


def reason_of(record: CardRecord, spec: FormatSpec) -> str:
    """One sentence on what the format allows of this card."""
    label = spec.label_en
    status = status_of(record, spec)
    if status == "not-in-pool":
        released = (
            f" (first TCG release {record.first_tcg_date})"
            if record.first_tcg_date
            else " (no TCG release recorded)"
        )
        return f"{record.name_en} is not in the {label} card pool{released}."
    where = f"the {label} list" + (f" effective {spec.banlist.effective}" if spec.banlist else "")
    if status == "forbidden":
        return f"{record.name_en} is Forbidden on {where}: no copy in the Main, Extra or Side Deck."
    if status == "limited":
        return f"{record.name_en} is Limited on {where}: at most 1 copy across Main, Extra and Side Deck."
    if status == "semi-limited":
        return f"{record.name_en} is Semi-Limited on {where}: at most 2 copies across Main, Extra and Side Deck."
    if spec.banlist is None:
        return f"{record.name_en} is in the {label} card pool: up to 3 copies."
    return f"{record.name_en} is not on {where}: up to 3 copies."


def legality(record: CardRecord, spec: FormatSpec, source: Source | None = None) -> Legality:
    """Whether, and how many copies of, a card may be used in a format."""
    if not has_card_rules(spec):
        raise InvalidQuery(
            "format", f"format {spec.id!r} declares no card pool or Forbidden & Limited list"
        )
    limit = limit_of(record, spec)
    return Legality(
        card=card_ref(record),
        format=spec.id,
        legal=limit > 0,
        limit=limit,
        status=status_of(record, spec),
        reason=reason_of(record, spec),
        first_tcg_date=record.first_tcg_date,
        source=source,
    )


# --- the rule passage behind each card rule -------------------------------------------------


@dataclass(frozen=True)
class Lookup:
    """How to find the passage stating one card rule: it mentions every concept of one of
    `tiers` (tried in order) and, when `numbers` is set, states those numbers."""

    tiers: tuple[tuple[str, ...], ...]
    numbers: tuple[str, ...] = ()


# Concepts that make a passage about card limits more specific (ranked first among equals).
_DECK_PARTS = ("concept/copy", "concept/main-deck", "concept/extra-deck", "concept/side-deck")
_TYPE_RANK = {"Passage": 0, "Example": 1, "Rule": 2, "Section": 2}
KINDS = (
    "forbidden",
    "limited",
    "semi-limited",
    "copies",
    "not-in-pool",
    "main-size",
    "extra-size",
    "side-size",
    "misplaced",
)


def lookups(spec: FormatSpec) -> dict[str, Lookup]:
    """For each kind of card rule, how to find its passage in the format's documents."""
    listed = ("concept/forbidden-limited-list",)
    out = {
        "forbidden": Lookup((("concept/forbidden",), listed)),
        "limited": Lookup((("concept/limited",),)),
        "semi-limited": Lookup((("concept/semi-limited",),)),
        "copies": Lookup((listed,), (str(MAX_COPIES),)),
        "not-in-pool": Lookup((("concept/card-pool",),)),
    }
    if spec.deck is not None:
        d = spec.deck
        out["main-size"] = Lookup((("concept/main-deck",),), (str(d.main_min), str(d.main_max)))
        out["extra-size"] = Lookup((("concept/extra-deck",),), (str(d.extra_max),))
        out["side-size"] = Lookup((("concept/side-deck",),), (str(d.side_max),))
    return out


class RuleSources:
    """The source of each card rule of one format: the passage of a document of that format
    which states it (found through the graph's `mentions`/`about` facts, never by id), else the
    manifest's declaration (authority `curated`)."""

    def __init__(self, kg: KnowledgeGraph, spec: FormatSpec) -> None:
        self.kg = kg
        self.spec = spec
        self._found: dict[str, Source | None] = {}
        self._lookups = lookups(spec)

    def source(self, kind: str) -> Source | None:
        if kind not in self._found:
            self._found[kind] = self._passage(kind) or self._declaration(kind)
        return self._found[kind]

    def _mentioned(self, node_id: str) -> set[str]:
        return {f.object for f in self.kg.out(node_id) if f.predicate in ("mentions", "about")}

    def _passage(self, kind: str) -> Source | None:
        lookup = self._lookups.get(kind)
        if lookup is None:
            return None
        for concepts in lookup.tiers:
            subjects = {
                f.subject for f in self.kg.into(concepts[0]) if f.predicate in ("mentions", "about")
            }
            found = []
            for sid in subjects:
                node = self.kg.get(sid)
                if node is None or node.type not in _TYPE_RANK or node.span is None:
                    continue
                if self.kg.format_of(sid) != self.spec.id:
                    continue
                said = self._mentioned(sid)
                if not all(c in said for c in concepts):
                    continue
                if not all(
                    re.search(rf"(?<!\d){n}(?!\d)", node.text or "") for n in lookup.numbers
                ):
                    continue
                extra = sum(c in said for c in _DECK_PARTS)
                found.append(
                    (_TYPE_RANK[node.type], -extra, node.span.document, node.span.start, node)
                )
            if found:
                best = min(found, key=lambda t: t[:4])[-1]
                return self._cite(self._first_passage(best))
        return None

    def _first_passage(self, node: Node) -> Node:
        """A Section or Rule is cited by its first passage (its own text is only a heading)."""
        if node.type not in ("Section", "Rule"):
            return node
        for cid in self.kg.children(node.id):
            child = self.kg.get(cid)
            if child is not None and child.type == "Passage" and child.span and child.text:
                return child
        return node

    def _cite(self, node: Node) -> Source:
        span = node.span
        assert span is not None
        return Source(
            id=node.id,
            authority="document",
            text=node.text or "",
            document=span.document,
            start=span.start,
            end=span.end,
        )

    def _declaration(self, kind: str) -> Source | None:
        spec = self.spec
        text: str | None = None
        if kind in ("forbidden", "limited", "semi-limited") and spec.banlist is not None:
            text = f"Forbidden & Limited list: {spec.banlist.provenance}"
        elif kind == "copies":
            text = (
                f"At most {MAX_COPIES} copies of a card across Main, Extra and Side Deck "
                "unless the list limits it further."
            )
        elif kind == "not-in-pool" and spec.card_pool:
            text = f"Card pool: the cards whose card-data flag {spec.card_pool!r} is set."
        elif kind.endswith("-size") and spec.deck is not None:
            d = spec.deck
            text = (
                f"Main Deck {d.main_min} to {d.main_max} cards, Extra Deck at most "
                f"{d.extra_max}, Side Deck at most {d.side_max}."
            )
        elif kind == "misplaced":
            concept = self.kg.get("concept/extra-deck")
            if concept is not None and concept.props.get("definition_en"):
                return Source(
                    id=concept.id, authority="curated", text=str(concept.props["definition_en"])
                )
            text = "Fusion, Synchro, Xyz and Link Monsters start the Duel in the Extra Deck."
        if text is None:
            return None
        return Source(id=spec.node_id, authority="curated", text=f"{spec.label_en}: {text}")
