"""The rules that apply to a card through its classes, found in the graph (for its page).

A card the documents never name is still governed by what they say of its classes: a Union
monster by the rule about Union monsters, a Spell Speed 2 card by what Spell Speed 2 may respond
to, a non-inherent Special Summon by what negates one, a Counter Trap by the Damage Step bullet
about Counter Traps. Each class the card's facts give (`instance_of`, `has_effect_type`,
`has_spell_speed`, `summoned_by`) leads to:

- the Rules and Sections that are `about` the class (with their paragraphs), and
- the passages stating a fact about the class itself (`concept/spell-speed-2 can_respond_to …`);

and the Damage Step bullets of the class the card belongs to (`kb.reason.damage.CLASSES`).
"""

from __future__ import annotations

from dataclasses import dataclass

from kb.graph import KnowledgeGraph
from kb.model import Node
from kb.reason.damage import CLASSES, DAMAGE_STEP
from kb.reason.facts import EVERY_MONSTER

_CLASS_OF = ("instance_of", "has_effect_type", "has_spell_speed", "summoned_by")
# What says where a node sits or what it names, not a rule about its subject.
_NOT_RULES = frozenset(
    {
        "mentions",
        "part_of",
        "about",
        "stated_in",
        "applies_in",
        "concerns",
        "broader",
        "instance_of",
    }
)
# Kinds every card of a side has: a rule about "a Spell Card" is about every Spell.
_TOO_BROAD = EVERY_MONSTER | {"concept/spell-card", "concept/trap-card"}


@dataclass(frozen=True)
class ClassRules:
    """One class of the card and the passages of rules about it, in document order."""

    concept: Node
    passages: tuple[Node, ...]


def class_rules(kg: KnowledgeGraph, card: str) -> list[ClassRules]:
    """The rule passages that apply to `card` through each of its classes."""
    classes = [
        f.object
        for p in _CLASS_OF
        for f in kg.out(card, p)
        if f.object not in _TOO_BROAD and f.object in kg
    ]
    out: list[ClassRules] = []
    for concept in dict.fromkeys(classes):
        found = _about(kg, concept) + _stated_of(kg, concept)
        if found:
            out.append(ClassRules(kg.node(concept), _ordered(found)))
    damage = _damage_bullets(kg, card)
    if damage and DAMAGE_STEP in kg:
        out.append(ClassRules(kg.node(DAMAGE_STEP), _ordered(damage)))
    return out


def _text(node: Node | None) -> bool:
    return node is not None and node.span is not None and bool(node.text)


def _about(kg: KnowledgeGraph, concept: str) -> list[Node]:
    """The paragraphs of the Rules and Sections about `concept`."""
    found: list[Node] = []
    for f in kg.into(concept, "about"):
        rule = kg.get(f.subject)
        if rule is None or rule.type not in ("Rule", "Section"):
            continue
        for child in kg.children(rule.id):
            node = kg.get(child)
            if _text(node) and node is not None and node.type == "Passage":
                found.append(node)
    return found


def _stated_of(kg: KnowledgeGraph, concept: str) -> list[Node]:
    """The passages stating a rule about `concept` itself (its facts with a passage source)."""
    found: list[Node] = []
    for f in kg.out(concept):
        if f.predicate in _NOT_RULES or not f.source:
            continue
        node = kg.get(f.source)
        if _text(node) and node is not None and node.type in ("Passage", "Example"):
            found.append(node)
    return found


def _damage_bullets(kg: KnowledgeGraph, card: str) -> list[Node]:
    """The Damage Step bullets about the first class (in the reasoner's order) the card is in."""
    facts = kg.with_predicate("rules_activation")
    keys = {str(f.props.get("class")) for f in facts}
    for cls in CLASSES:
        if cls.key in keys and cls.member(kg, card) is not None:
            nodes = [kg.get(f.subject) for f in facts if f.props.get("class") == cls.key]
            return [n for n in nodes if _text(n) and n is not None]
    return []


def _ordered(nodes: list[Node]) -> tuple[Node, ...]:
    unique = {n.id: n for n in nodes}
    return tuple(
        sorted(
            unique.values(),
            key=lambda n: (n.span.document if n.span else "", n.span.start if n.span else 0),
        )
    )
