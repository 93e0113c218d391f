"""Chaining to and responding to actions without a Spell Speed (kb.reason.response), on a small
hand-made graph."""

from __future__ import annotations

import pytest

from kb.formats import Formats
from kb.graph import KnowledgeGraph
from kb.link import Entry, Linker
from kb.model import Fact, Node, Span
from kb.reading.question import read_question
from kb.reason.response import response_decision

RULE = "doc/chain-start/p-01"
RULE_TEXT = "Uma ação sem velocidade não pode ser encadeada; só pode ser respondida."
STILL = "doc/chain-start/p-02"
STILL_TEXT = "A Invocação ainda é a última ação e você ainda pode responder a ela."
INHERENT_RULE = "doc/inherent/p-01"
INHERENT_TEXT = "Essa ação não gera chain, mas pode ser respondida."


def _graph(with_rule: bool = True) -> KnowledgeGraph:
    texts = {RULE: RULE_TEXT, STILL: STILL_TEXT, INHERENT_RULE: INHERENT_TEXT}
    nodes = [Node(i, "Passage", text=t, span=Span("doc", 0, len(t))) for i, t in texts.items()] + [
        Node("concept/speedless-action", "Concept", "Ação sem Velocidade", "Speedless action"),
        Node("concept/chain", "Concept", "Corrente", "Chain"),
        Node("concept/response", "Concept", "Resposta", "Response"),
        Node("concept/summon", "Concept", "Invocação", "Summon"),
        Node("concept/special-summon", "Concept", "Invocação-Especial", "Special Summon"),
        Node("concept/inherent-special-summon", "Concept", "inerente", "inherent"),
        Node("card/dragon", "Card", "Dragão Máquina", "Machine Dragon"),
        Node("card/hole", "Card", "Buraco", "Pit Hole"),
        Node("card/pot", "Card", "Pote", "Pot of Plenty"),
    ]
    speedless = "concept/speedless-action"
    facts = [
        Fact("concept/summon", "instance_of", speedless, None, "curated"),
        Fact("concept/special-summon", "broader", "concept/summon", None, "curated"),
        Fact("card/dragon", "summoned_by", "concept/inherent-special-summon", None, "curated"),
        Fact("card/hole", "has_spell_speed", "concept/spell-speed-2", None, "curated"),
        Fact("card/pot", "has_spell_speed", "concept/spell-speed-1", None, "curated"),
        Fact(
            "concept/inherent-special-summon",
            "can_be_responded_to",
            "concept/response",
            INHERENT_RULE,
            "document",
        ),
        Fact(speedless, "can_be_responded_to", "concept/response", RULE, "document"),
        Fact(
            speedless,
            "can_be_responded_to",
            "concept/response",
            STILL,
            "document",
            {"within_chain": True},
        ),
    ]
    if with_rule:
        facts.append(Fact(speedless, "cannot_be_chained_to", "concept/chain", RULE, "document"))
    return KnowledgeGraph(nodes, facts)


_LINKER = Linker(
    [
        Entry("concept/summon", "Concept", "Summon", ("Summon", "Invocação", "Invocou")),
        Entry("concept/special-summon", "Concept", "Special Summon", ("Special Summon",)),
        Entry("card/dragon", "Card", "Machine Dragon", ("Machine Dragon",)),
        Entry("card/hole", "Card", "Pit Hole", ("Pit Hole",)),
        Entry("card/pot", "Card", "Pot of Plenty", ("Pot of Plenty",)),
    ]
)


def _ask(text: str, kg: KnowledgeGraph | None = None):  # type: ignore[no-untyped-def]
    q = read_question(text, None, _LINKER, Formats.of_nodes([]))
    return response_decision(kg or _graph(), q)


@pytest.mark.parametrize(
    "question", ["Can you chain to a Summon?", "Posso encadear alguma coisa a uma Invocação?"]
)
def test_nothing_is_chained_to_a_summon(question: str) -> None:
    d = _ask(question)
    assert d is not None and d.verdict == "no"
    assert d.sources == [RULE]
    assert d.steps[0].fact is not None  # the Summon has no Spell Speed: the glossary fact


def test_a_card_responds_to_a_summon_and_an_inherent_summon_says_so() -> None:
    d = _ask("Can Pit Hole be used in response to the Special Summon of Machine Dragon?")
    assert d is not None and d.verdict == "yes"
    assert d.sources == [INHERENT_RULE, RULE]  # the Summon kind's own rule first


def test_a_summon_with_a_chain_open_on_it_is_still_responded_to() -> None:
    d = _ask(
        "O oponente invocou e eu encadeei; ainda posso ativar Pit Hole em resposta à Invocação?"
    )
    assert d is not None and d.verdict == "yes"
    assert d.sources[0] == STILL


@pytest.mark.parametrize(
    "question",
    [
        "Posso ativar Pit Hole quando o oponente Invocou Machine Dragon?",
        "Can I use Pit Hole after my opponent's Special Summon of Machine Dragon?",
    ],
)
def test_a_card_used_at_a_summon_responds_to_it(question: str) -> None:
    """Using a card when (after) an action happens asks whether it responds to that action."""
    d = _ask(question)
    assert d is not None and d.verdict == "yes"
    assert RULE in d.sources


def test_a_summon_in_a_condition_before_the_verb_is_not_the_one_used_at() -> None:
    """The Summon opens the sentence as its condition; the card is used on something else."""
    assert _ask("When my opponent Summons, can I use Pit Hole on my next turn?") is None


@pytest.mark.parametrize(
    "question",
    [
        "Can I chain Pit Hole to the activation of the Summon effect?",  # an activation
        "Can Pot of Plenty be activated in response to a Summon?",  # Spell Speed 1: not here
        "Does a Summon start a chain?",  # nothing chained or responded to
    ],
)
def test_other_questions_are_not_decided_here(question: str) -> None:
    assert _ask(question) is None


def test_without_the_rule_nothing_is_decided() -> None:
    assert _ask("Can you chain to a Summon?", _graph(with_rule=False)) is None
