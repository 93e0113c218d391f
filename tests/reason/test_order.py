"""Deciding "X before Y?" and "X last?" by the orders documents tell, on a hand-made graph."""

from __future__ import annotations

from tests_support import hand_mentions  # type: ignore[import-not-found]

from kb.graph import KnowledgeGraph
from kb.model import Node, Span
from kb.reading import Span as Mention
from kb.reading import read_question
from kb.reading.order import read_order
from kb.reason.order import OrderMatcher

NAMES = {
    "damage calculation": "concept/damage-calculation",
    "efeitos de flip": "concept/flip-effect",
    "Flip effects": "concept/flip-effect",
    "FF Bear": "card/ff-bear",
    "FF Gorilla": "card/ff-gorilla",
    "Grand Mole": "card/grand-mole",
}


def mentions(text: str) -> list[Mention]:
    return hand_mentions(text, NAMES)


def matcher(*texts: str) -> OrderMatcher:
    nodes = []
    for i, text in enumerate(texts):
        order = read_order(text, mentions(text), "pt")
        passage = Node(f"d/p-{i}", "Passage", text=text, span=Span("d", 0, len(text)))
        props = {"format": "general", **({"order": order.to_props()} if order else {})}
        nodes += [
            passage,
            Node(f"d/p-{i}/st-01", "Statement", text=text, parent=passage.id, props=props),
        ]
    return OrderMatcher(KnowledgeGraph(nodes, []))


def ask(m: OrderMatcher, question: str) -> str | None:
    d = m.decide(read_question(question, mentions(question)).order, None, "general")
    return None if d is None else d.verdict


STEPS = (
    "Primeiro ativam os efeitos de FF Bear, de seguida os efeitos de flip, e por fim os efeitos de "
    "FF Gorilla."
)
FRAMED = "Antes da damage calculation ativam efeitos como Grand Mole, depois disso o flip."


def test_steps_of_one_order_place_the_two_sides() -> None:
    m = matcher(STEPS)
    assert ask(m, "Does FF Bear's effect come before the Flip effects?") == "yes"
    assert ask(m, "Does FF Gorilla's effect come before the Flip effects?") == "no"
    assert ask(m, "Os efeitos de flip vêm depois do FF Bear?") == "yes"


def test_the_ends_of_an_order() -> None:
    m = matcher(STEPS)
    assert ask(m, "O efeito do FF Gorilla vem por último?") == "yes"
    assert ask(m, "O efeito do FF Bear vem por último?") == "no"


def test_a_frame_places_every_step() -> None:
    m = matcher(FRAMED)
    assert ask(m, "O efeito do Grand Mole só ativa depois da damage calculation?") == "no"
    assert ask(m, "O efeito do Grand Mole ativa antes da damage calculation?") == "yes"


def test_nothing_found_decides_nothing() -> None:
    m = matcher(STEPS, FRAMED)
    assert ask(m, "Does Pot of Greed resolve before Monster Reborn?") is None
    assert ask(m, "Can I activate FF Bear?") is None  # asks no order
