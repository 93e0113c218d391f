"""Formats as data: the rule formats the manifest declares, read once and passed everywhere.

`corpus/manifest.yaml` declares every format (id, pt/en labels and badges, the names players use
for it, the words that imply it, and which one is the base: today's rules, which every other
format builds on). The documents say which format they define. A format no document defines is
still known by name, so a question about it is answered "not covered" rather than guessed.

At build time the specs become `Format` nodes (their props carry the spec); at run time
`Formats.of_graph` reads them back, so the served KB and the web page agree with the manifest.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from kb.ids import fold, format_id
from kb.link import Entry, Mention
from kb.model import Node

_FORMAT_ID = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
_FIELD_NAME = re.compile(r"^[a-z_][a-z0-9_]*$")


@dataclass(frozen=True)
class DeckSizes:
    """A format's deck-size rules: Main Deck min..max cards, Extra and Side Deck maxima."""

    main_min: int
    main_max: int
    extra_max: int
    side_max: int

    def props(self) -> dict[str, int]:
        return {
            "main_min": self.main_min,
            "main_max": self.main_max,
            "extra_max": self.extra_max,
            "side_max": self.side_max,
        }


@dataclass(frozen=True)
class BanlistSpec:
    """A format's Forbidden & Limited list: which card-record field holds each card's status
    (0 forbidden, 1 limited, 2 semi-limited; unset: unlisted), the date it took effect and
    where the list comes from."""

    field: str
    effective: str
    provenance: str

    def props(self) -> dict[str, str]:
        return {"field": self.field, "effective": self.effective, "provenance": self.provenance}


@dataclass(frozen=True)
class FormatSpec:
    """One declared format."""

    id: str
    label_pt: str
    label_en: str
    badge_pt: str = ""
    badge_en: str = ""
    aliases: tuple[str, ...] = ()
    cues: tuple[str, ...] = ()  # words that imply the format without naming it ("teammate")
    base: bool = False  # today's rules: they hold inside every other format unless it differs
    documents: tuple[str, ...] = ()  # the documents that define it
    # Card rules (all optional): the card-record flag deciding pool membership, the F&L list,
    # the deck sizes, and whether each duelist of a team brings their own deck.
    card_pool: str | None = None
    banlist: BanlistSpec | None = None
    deck: DeckSizes | None = None
    per_duelist_decks: bool = False
    # The date of the game its rules describe (ISO): mechanics introduced after it are no part
    # of the format. None: today's game.
    as_of: str | None = None

    @property
    def node_id(self) -> str:
        return format_id(self.id)

    @property
    def covered(self) -> bool:
        """Some document of the KB states this format's rules."""
        return bool(self.documents)

    def label(self, lang: str) -> str:
        return self.label_pt if lang == "pt" else self.label_en

    def badge(self, lang: str) -> str:
        return (
            (self.badge_pt or self.label_pt) if lang == "pt" else (self.badge_en or self.label_en)
        )

    def props(self) -> dict[str, Any]:
        return {
            "name": self.id,
            "badge_pt": self.badge_pt,
            "badge_en": self.badge_en,
            "aliases": list(self.aliases),
            "cues": list(self.cues),
            "base": self.base,
            "documents": list(self.documents),
            **self._card_rule_props(),
        }

    def _card_rule_props(self) -> dict[str, Any]:
        """The card rules the format declares (only those it declares)."""
        out: dict[str, Any] = {}
        if self.card_pool:
            out["card_pool"] = self.card_pool
        if self.banlist is not None:
            out["banlist"] = self.banlist.props()
        if self.deck is not None:
            out["deck"] = self.deck.props()
        if self.per_duelist_decks:
            out["per_duelist_decks"] = True
        if self.as_of:
            out["as_of"] = self.as_of
        return out


def spec_from_node(node: Node) -> FormatSpec:
    p = node.props
    banlist = p.get("banlist")
    deck = p.get("deck")
    return FormatSpec(
        id=str(p.get("name") or node.id.removeprefix("format/")),
        label_pt=node.label_pt or "",
        label_en=node.label_en or "",
        badge_pt=str(p.get("badge_pt") or ""),
        badge_en=str(p.get("badge_en") or ""),
        aliases=tuple(p.get("aliases") or ()),
        cues=tuple(p.get("cues") or ()),
        base=bool(p.get("base")),
        documents=tuple(p.get("documents") or ()),
        card_pool=p.get("card_pool") or None,
        banlist=BanlistSpec(**banlist) if isinstance(banlist, Mapping) else None,
        deck=DeckSizes(**deck) if isinstance(deck, Mapping) else None,
        per_duelist_decks=bool(p.get("per_duelist_decks")),
        as_of=str(p["as_of"]) if p.get("as_of") else None,
    )


@dataclass(frozen=True)
class Formats:
    """The declared formats, in manifest order."""

    specs: tuple[FormatSpec, ...] = ()
    _cue_patterns: tuple[tuple[str, re.Pattern[str]], ...] = field(
        default=(), compare=False, repr=False
    )

    def __post_init__(self) -> None:
        patterns = []
        for spec in self.specs:
            words = sorted({fold(w) for w in spec.cues if w.strip()}, key=len, reverse=True)
            if words:
                body = "|".join(re.escape(w).replace(r"\ ", r"\s+") for w in words)
                patterns.append((spec.id, re.compile(rf"(?<![\w-])(?:{body})(?![\w-])")))
        object.__setattr__(self, "_cue_patterns", tuple(patterns))

    @classmethod
    def of_nodes(cls, nodes: Iterable[Node]) -> Formats:
        return cls(tuple(spec_from_node(n) for n in nodes if n.type == "Format"))

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(s.id for s in self.specs)

    @property
    def covered_ids(self) -> tuple[str, ...]:
        return tuple(s.id for s in self.specs if s.covered)

    @property
    def base(self) -> str | None:
        """The id of the base format (today's rules), if one is declared."""
        return next((s.id for s in self.specs if s.base), None)

    def get(self, format_id_: str | None) -> FormatSpec | None:
        return next((s for s in self.specs if s.id == format_id_), None)

    def __contains__(self, format_id_: object) -> bool:
        return any(s.id == format_id_ for s in self.specs)

    def label(self, format_id_: str | None, lang: str) -> str:
        spec = self.get(format_id_)
        return spec.label(lang) if spec else str(format_id_ or "")

    def badge(self, format_id_: str | None, lang: str) -> str:
        spec = self.get(format_id_)
        return spec.badge(lang) if spec else str(format_id_ or "")

    def known_words(self) -> frozenset[str]:
        """Every folded word of every format's names (for telling a known format from an unknown)."""
        words: set[str] = set()
        for s in self.specs:
            for name in (s.id, s.label_pt, s.label_en, s.badge_pt, s.badge_en, *s.aliases):
                words.update(re.findall(r"[a-z0-9]+", fold(name)))
        return frozenset(words)

    def nodes(self) -> list[Node]:
        return [
            Node(
                id=s.node_id,
                type="Format",
                label_pt=s.label_pt,
                label_en=s.label_en,
                props=s.props(),
            )
            for s in self.specs
        ]

    def entries(self) -> list[Entry]:
        """Linker entries: a format is mentioned by its id, labels, badges and aliases."""
        return [
            Entry(
                s.node_id,
                "Format",
                s.label_en,
                tuple(
                    dict.fromkeys(
                        x for x in (s.label_pt, s.label_en, s.badge_pt, s.badge_en, *s.aliases) if x
                    )
                ),
            )
            for s in self.specs
        ]

    def detect(self, text: str, mentions: Iterable[Mention]) -> str | None:
        """The format a question is about: one it names, else one its words imply, else None.

        A named format wins over cues; among cues, a non-base format's wins over the base's
        ("the current Tag Duel rules" is about Tag Duel)."""
        named = [
            m.entity.removeprefix("format/") for m in mentions if m.entity.startswith("format/")
        ]
        named = [n for n in named if n in self]
        if named:
            non_base = [n for n in named if n != self.base]
            return (non_base or named)[0]
        q = fold(text)
        cued = [fid for fid, pattern in self._cue_patterns if pattern.search(q)]
        non_base = [c for c in cued if c != self.base]
        chosen = non_base or cued
        return chosen[0] if chosen else None


def parse_specs(items: object, where: str) -> list[FormatSpec]:
    """Format specs from the manifest's `formats` list; ValueError names the entry and field."""
    if not isinstance(items, list) or not items:
        raise ValueError(f"{where}: expected a non-empty 'formats' list")
    specs: list[FormatSpec] = []
    seen: set[str] = set()
    for i, item in enumerate(items, start=1):
        if not isinstance(item, Mapping):
            raise ValueError(f"{where}: format #{i} must be a mapping")
        missing = [k for k in ("id", "label_pt", "label_en") if not item.get(k)]
        if missing:
            raise ValueError(f"{where}: format #{i} lacks {', '.join(missing)}")
        fid = str(item["id"])
        if not _FORMAT_ID.match(fid):
            raise ValueError(f"{where}: format #{i}: id {fid!r} must be kebab-case (a-z, 0-9, -)")
        if fid in seen:
            raise ValueError(f"{where}: duplicate format id {fid!r}")
        seen.add(fid)
        for key in ("aliases", "cues"):
            value = item.get(key) or []
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise ValueError(f"{where}: format {fid!r}: {key} must be a list of strings")
        specs.append(
            FormatSpec(
                id=fid,
                label_pt=str(item["label_pt"]),
                label_en=str(item["label_en"]),
                badge_pt=str(item.get("badge_pt") or ""),
                badge_en=str(item.get("badge_en") or ""),
                aliases=tuple(item.get("aliases") or ()),
                cues=tuple(item.get("cues") or ()),
                base=bool(item.get("base", False)),
                **_card_rules(item, f"{where}: format {fid!r}"),
            )
        )
    if sum(s.base for s in specs) > 1:
        raise ValueError(f"{where}: more than one format has base: true")
    return specs


def _card_rules(item: Mapping[str, Any], where: str) -> dict[str, Any]:
    """The optional card rules of one manifest format entry; ValueError names the field."""
    out: dict[str, Any] = {}
    pool = item.get("card_pool")
    if pool is not None:
        if not isinstance(pool, str) or not _FIELD_NAME.match(pool):
            raise ValueError(f"{where}: card_pool must name a card-record field, got {pool!r}")
        out["card_pool"] = pool
    banlist = item.get("banlist")
    if banlist is not None:
        if not isinstance(banlist, Mapping):
            raise ValueError(f"{where}: banlist must be a mapping (field, effective, provenance)")
        missing = [k for k in ("field", "effective", "provenance") if not banlist.get(k)]
        unknown = sorted(set(banlist) - {"field", "effective", "provenance"})
        if missing or unknown:
            raise ValueError(
                f"{where}: banlist lacks {', '.join(missing) or '-'}; unknown keys {unknown or '-'}"
            )
        name = banlist["field"]
        if not isinstance(name, str) or not _FIELD_NAME.match(name):
            raise ValueError(f"{where}: banlist.field must name a card-record field, got {name!r}")
        # YAML reads 2010-03-01 as a date: keep its ISO text.
        out["banlist"] = BanlistSpec(name, str(banlist["effective"]), str(banlist["provenance"]))
    deck = item.get("deck")
    if deck is not None:
        keys = ("main_min", "main_max", "extra_max", "side_max")
        if not isinstance(deck, Mapping) or set(deck) != set(keys):
            raise ValueError(f"{where}: deck must be a mapping of exactly {', '.join(keys)}")
        bad = [k for k in keys if not isinstance(deck[k], int) or isinstance(deck[k], bool)]
        if bad or any(deck[k] < 0 for k in keys if k not in bad):
            raise ValueError(f"{where}: deck sizes must be non-negative integers ({bad or keys})")
        if deck["main_min"] > deck["main_max"]:
            raise ValueError(f"{where}: deck.main_min exceeds deck.main_max")
        out["deck"] = DeckSizes(*(int(deck[k]) for k in keys))
    if "per_duelist_decks" in item:
        if not isinstance(item["per_duelist_decks"], bool):
            raise ValueError(f"{where}: per_duelist_decks must be true or false")
        out["per_duelist_decks"] = item["per_duelist_decks"]
    as_of = item.get("as_of")
    if as_of is not None:
        # YAML reads 2010-03-01 as a date: keep its ISO text.
        if not re.fullmatch(r"\d{4}(?:-\d{2}(?:-\d{2})?)?", str(as_of)):
            raise ValueError(f"{where}: as_of must be an ISO date (2010-03-01), got {as_of!r}")
        out["as_of"] = str(as_of)
    return out


def with_documents(specs: Iterable[FormatSpec], documents: Mapping[str, str]) -> Formats:
    """The specs with the documents defining each (documents: document id → format id)."""
    return Formats(
        tuple(
            replace(s, documents=tuple(d for d, f in documents.items() if f == s.id)) for s in specs
        )
    )
