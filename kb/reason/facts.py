"""Fact look-ups shared by reasoners: best-authority facts about an entity."""

from __future__ import annotations

from kb.graph import KnowledgeGraph
from kb.model import AUTHORITY_RANK, Fact


def best(facts: list[Fact]) -> Fact | None:
    """The fact with the highest authority (document > curated > inferred), stable by source id."""
    if not facts:
        return None
    return sorted(facts, key=lambda f: (-AUTHORITY_RANK[f.authority], f.source or ""))[0]


def label(kg: KnowledgeGraph, node_id: str, lang: str) -> str:
    n = kg.get(node_id)
    if n is None:
        return node_id
    if lang == "pt":
        return n.label_pt or n.label_en or node_id
    return n.label_en or n.label_pt or node_id


def spell_speed(kg: KnowledgeGraph, entity: str) -> tuple[int, Fact | None] | None:
    """Spell speed of a card or class: its own fact, else its class's; (speed, deciding fact)."""
    if entity.startswith("concept/spell-speed-"):
        return int(entity[-1]), None
    own = best(kg.out(entity, "has_spell_speed"))
    if own is not None:
        return int(own.object[-1]), own
    for f in kg.out(entity, "instance_of"):
        cls = best(kg.out(f.object, "has_spell_speed"))
        if cls is not None:
            return int(cls.object[-1]), cls
    return None
