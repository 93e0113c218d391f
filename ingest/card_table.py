"""The card database in the graph: every card of `corpus/carddb/cards.tsv` as a Card node.

A card the curated table names keeps its curated facts (authority `curated`, they win) and gains
the database's identifiers, stats, pool and limits. Every other card becomes a Card node whose
classes, effect types, Summon kind, negation capabilities and spell speed are facts of authority
`inferred`, each citing the card's password and the datasets it was read from.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any

from ingest.curated import CAPABILITY
from kb.cards.nodes import node_props
from kb.cards.table import CardRecord, parse_table
from kb.errors import IngestError
from kb.ids import concept_id
from kb.link import Entry
from kb.model import Fact, Node

TABLE = Path("carddb") / "cards.tsv"

# Database fields a curated card takes from the table when the curated entry leaves them out.
_IDENTITY = (
    "password",
    "konami_id",
    "attribute",
    "race",
    "type_line",
    "level",
    "rank",
    "link_rating",
    "atk",
    "defense",
    "first_tcg_date",
    "edison_pool",
    "edison_limit",
    "tcg_2010_03",
    "tcg_current",
    "datasets",
)


def read_card_table(corpus_dir: Path) -> tuple[dict[str, str], list[CardRecord]]:
    """The table's metadata and records; no table is an empty database (the curated cards only)."""
    path = corpus_dir / TABLE
    if not path.exists():
        return {}, []
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise IngestError(str(path), f"not valid UTF-8 at byte {exc.start}") from exc
    return parse_table(text, str(path))


def card_graph(
    records: Iterable[CardRecord], curated: list[Node], concepts: set[str]
) -> tuple[list[Node], list[Node], list[Fact], list[Entry]]:
    """(curated nodes with the database's fields added, database-only Card nodes, their inferred
    facts, their linker entries). `concepts` are the concept ids a fact may point at."""
    by_id = {n.id: n for n in curated}
    merged: dict[str, Node] = {}
    nodes: list[Node] = []
    facts: list[Fact] = []
    entries: list[Entry] = []
    for record in records:
        known = by_id.get(record.id)
        if known is not None:
            merged[record.id] = _merge(known, record)
            continue
        props = {**node_props(record), "origin": "carddb"}
        if record.lp_cost_amount is not None:
            props["lp_cost"] = {"amount": record.lp_cost_amount, "kind": record.lp_cost_kind}
        if record.effect_types:
            props["effect_types"] = list(record.effect_types)
        if record.special_summon:
            props["special_summon"] = record.special_summon
        nodes.append(
            Node(record.id, "Card", label_pt=record.name_pt, label_en=record.name_en, props=props)
        )
        facts += inferred_facts(record, concepts)
        surfaces = tuple(s for s in (record.name_en, record.name_pt, *record.aliases) if s)
        entries.append(Entry(record.id, "Card", record.name_en, surfaces))
    curated_out = [merged.get(n.id, n) for n in curated]
    return curated_out, nodes, facts, entries


def _merge(node: Node, record: CardRecord) -> Node:
    props = dict(node.props)
    from_table = node_props(record)
    for key in _IDENTITY:
        if key in from_table and props.get(key) is None:
            props[key] = from_table[key]
    props["origin"] = "curated"
    return replace(node, label_pt=node.label_pt or record.name_pt, props=props)


def inferred_facts(record: CardRecord, concepts: set[str]) -> list[Fact]:
    """The card's classes and mechanics as facts of authority `inferred`, citing its data."""
    # The card is named by its password, or its Konami id when it has none (unreleased cards).
    meta: dict[str, Any] = {"dataset": "|".join(record.datasets)}
    if record.password is not None:
        meta["password"] = record.password
    elif record.konami_id is not None:
        meta["konami_id"] = record.konami_id
    out: list[Fact] = []

    def add(pred: str, obj: str, **extra: Any) -> None:
        if obj in concepts:
            out.append(Fact(record.id, pred, obj, None, "inferred", {**meta, **extra}))

    if record.card_type == "monster":
        add("instance_of", concept_id("monster-card"))
        for cls in record.monster_classes:
            add("instance_of", concept_id(cls if cls == "trap-monster" else f"{cls}-monster"))
    else:
        add("instance_of", concept_id(f"{record.card_type}-card"))
        if record.property:
            add("instance_of", concept_id(f"{record.property}-{record.card_type}"))
        if "trap-monster" in record.monster_classes:  # a Trap that Special Summons itself
            add("instance_of", concept_id("trap-monster"))
    for eff in record.effect_types:
        add("has_effect_type", concept_id(f"{eff}-effect"))
    if record.special_summon:
        add("summoned_by", concept_id(f"{record.special_summon}-special-summon"))
    for value in record.negates:
        add("has_capability", concept_id(CAPABILITY[value]), scope=value)
    if record.modifies_atk_def:
        add("instance_of", concept_id("atk-def-modifier"))
    if record.card_type == "monster" and record.spell_speeds:
        # A monster is as fast as its fastest activation (a Quick Effect: Spell Speed 2).
        add("has_spell_speed", concept_id(f"spell-speed-{max(record.spell_speeds)}"))
    return out
