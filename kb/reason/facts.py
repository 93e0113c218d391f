"""Fact look-ups shared by reasoners: best-authority facts about an entity."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from kb.graph import KnowledgeGraph
from kb.model import AUTHORITY_RANK, Fact, Node

# The facts that put a card in a class, and the classes nearly every monster has (no signal).
CLASS_PREDICATES = frozenset({"instance_of", "has_effect_type", "summoned_by"})
EVERY_MONSTER = frozenset({"concept/monster-card", "concept/effect-monster"})


def best(facts: list[Fact]) -> Fact | None:
    """The fact with the highest authority (document > curated > inferred), stable by source id."""
    if not facts:
        return None
    return sorted(facts, key=lambda f: (-AUTHORITY_RANK[f.authority], f.source or ""))[0]


def card_classes(kg: KnowledgeGraph, card: str) -> frozenset[str]:
    """The classes a card belongs to that a rule may single out (a Trigger Effect, a Union
    monster), leaving out those nearly every monster has."""
    return frozenset(
        f.object
        for f in kg.out(card)
        if f.predicate in CLASS_PREDICATES and f.object not in EVERY_MONSTER
    )


def provenance(fact: Fact | None) -> dict[str, Any] | None:
    """A card fact as a step cites it: what it says, its authority and where it comes from (the
    card's password and dataset for inferred facts, the curated file and line, or the passage)."""
    if fact is None:
        return None
    out: dict[str, Any] = {
        "subject": fact.subject,
        "predicate": fact.predicate,
        "object": fact.object,
        "authority": fact.authority,
    }
    for key in ("password", "konami_id", "dataset", "file", "line", "via"):
        if fact.props.get(key) not in (None, ""):
            out[key] = fact.props[key]
    if fact.source:
        out["source"] = fact.source
    return out


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
            # The card's own fact (it is a Quick-Play Spell …) is what decides for this card.
            return int(cls.object[-1]), f if entity.startswith("card/") else cls
    return None


def steps_of(kg: KnowledgeGraph, parent: str) -> list[Node]:
    """The ordered Step children of a rule (SEGOC steps, Damage Step sub-steps)."""
    steps = (kg.node(c) for c in kg.children(parent))
    return sorted((n for n in steps if n.type == "Step"), key=lambda n: n.order or 0)


def broader_chain(kg: KnowledgeGraph, concept: str) -> Iterator[str]:
    """`concept`, then each broader concept (`broader`, transitively), each once, depth first."""
    seen: set[str] = set()
    todo = [concept]
    while todo:
        c = todo.pop()
        if c in seen:
            continue
        seen.add(c)
        yield c
        todo += [f.object for f in kg.out(c, "broader")]
