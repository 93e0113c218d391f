"""Cards as the graph holds them: every `Card` node read back as a `CardRecord`.

A Card node comes from the card-facts table (`kb.cards.table`), from the curated table of the cards the
documents name, or both (curated wins where they disagree). Its props carry the record's fields
under the same names, except `monster_classes` (`monster_types` on the node, the curated name) and
the names (the node's labels).
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from kb.cards.table import CardRecord
from kb.graph import KnowledgeGraph
from kb.model import Node

# Record fields stored on the node under another name, or not stored as props at all.
_RENAMED = {"monster_classes": "monster_types"}
_NOT_PROPS = {"slug", "name_en", "name_pt", "extra"}
_TUPLES = {"aliases", "monster_classes", "effect_types", "spell_speeds", "negates", "datasets"}


def node_props(record: CardRecord) -> dict[str, Any]:
    """The props a Card node carries for `record` (lists as lists, unset fields left out)."""
    props: dict[str, Any] = {}
    for f in fields(CardRecord):
        if f.name in _NOT_PROPS:
            continue
        value = getattr(record, f.name)
        if value is None or value == () or (value is False and f.name != "edison_pool"):
            continue
        props[_RENAMED.get(f.name, f.name)] = list(value) if isinstance(value, tuple) else value
    return props


def record_of(node: Node) -> CardRecord:
    """The record of a Card node (the inverse of `node_props` for the fields a node has)."""
    if node.type != "Card":
        raise ValueError(f"{node.id} is a {node.type}, not a Card")
    values: dict[str, Any] = {
        "slug": node.id.removeprefix("card/"),
        "name_en": node.label_en or node.label_pt or node.id,
        "name_pt": node.label_pt,
    }
    for f in fields(CardRecord):
        if f.name in _NOT_PROPS:
            continue
        key = _RENAMED.get(f.name, f.name)
        if key not in node.props:
            continue
        value = node.props[key]
        values[f.name] = tuple(value) if f.name in _TUPLES else value
    return CardRecord(**values)


def card_records(kg: KnowledgeGraph) -> list[CardRecord]:
    """Every card of the graph as a record, in id order."""
    return [record_of(n) for n in sorted(kg.of_type("Card"), key=lambda n: n.id)]
