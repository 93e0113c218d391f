"""Continuous effects and Chains (kb.reason.continuous) on a small hand-made graph."""

from __future__ import annotations

import pytest

from kb.formats import Formats
from kb.graph import KnowledgeGraph
from kb.link import Entry, Linker
from kb.model import Fact, Node, Span
from kb.reading.question import read_question
from kb.reason.continuous import continuous_decision

RULE = "doc/chain/p-01"
RULE_TEXT = "Somente os cards / efeitos que poderiam ser ativados podem formar uma cadeia."


def _graph(with_rule: bool = True) -> KnowledgeGraph:
    nodes = [
        Node("doc/chain/p-01", "Passage", text=RULE_TEXT, span=Span("doc", 0, len(RULE_TEXT))),
        Node("concept/chain", "Concept", "Corrente", "Chain"),
        Node("concept/activation", "Concept", "Ativação", "Activation"),
        Node("concept/continuous-effect", "Concept", "Efeito Contínuo", "Continuous Effect"),
        Node("concept/trigger-effect", "Concept", "Efeito de Gatilho", "Trigger Effect"),
        Node("card/wall", "Card", "Muralha", "Soft Wall", props={"card_type": "monster"}),
        Node("card/hybrid", "Card", "Híbrido", "Hybrid Beast", props={"card_type": "monster"}),
        Node("card/field-spell", "Card", "Campo", "Endless Field", props={"card_type": "spell"}),
    ]
    card = {"password": 1, "dataset": "test"}
    facts = [
        Fact("concept/continuous-effect", "applies_without", "concept/activation", None, "curated"),
        Fact("card/wall", "has_effect_type", "concept/continuous-effect", None, "inferred", card),
        Fact("card/hybrid", "has_effect_type", "concept/continuous-effect", None, "inferred", card),
        Fact("card/hybrid", "has_effect_type", "concept/trigger-effect", None, "inferred", card),
        Fact("card/field-spell", "has_effect_type", "concept/continuous-effect", None, "inferred"),
    ]
    if with_rule:
        facts.append(
            Fact("concept/chain", "formed_only_by", "concept/activation", RULE, "document")
        )
    return KnowledgeGraph(nodes, facts)


_LINKER = Linker(
    [
        Entry("concept/chain", "Concept", "Chain", ("Chain", "Corrente")),
        Entry(
            "concept/continuous-effect",
            "Concept",
            "Continuous Effect",
            ("Continuous Effect", "Efeito Contínuo"),
        ),
        Entry("card/wall", "Card", "Soft Wall", ("Soft Wall", "Muralha")),
        Entry("card/hybrid", "Card", "Hybrid Beast", ("Hybrid Beast",)),
        Entry("card/field-spell", "Card", "Endless Field", ("Endless Field",)),
    ]
)


def _ask(kg: KnowledgeGraph, text: str):  # type: ignore[no-untyped-def]
    q = read_question(text, None, _LINKER, Formats.of_nodes([]))
    return continuous_decision(kg, q)


@pytest.mark.parametrize(
    "question",
    [
        "Does the continuous effect of Soft Wall start a chain?",
        "Posso encadear algo ao Efeito Contínuo da Muralha?",
        "Does Soft Wall's effect start a chain?",  # its one effect kind, from card data
        # an aside in parentheses does not make the question negative
        "Does Soft Wall's continuous effect (it cannot be destroyed by battle) start a chain?",
    ],
)
def test_a_continuous_effect_starts_no_chain(question: str) -> None:
    decision = _ask(_graph(), question)
    assert decision is not None and decision.verdict == "no"
    assert decision.sources == [RULE]
    cited = [s.fact["subject"] for s in decision.steps if s.fact]
    assert "concept/continuous-effect" in cited
    assert decision.steps[-1].source == RULE


def test_the_card_fact_is_cited_with_its_provenance() -> None:
    decision = _ask(_graph(), "Does Soft Wall's effect start a chain?")
    assert decision is not None
    fact = decision.steps[0].fact
    assert fact is not None and fact["subject"] == "card/wall"
    assert (fact["password"], fact["dataset"], fact["authority"]) == (1, "test", "inferred")


def test_the_negative_question_is_answered_yes() -> None:
    decision = _ask(_graph(), "So Soft Wall's continuous effect cannot start a chain?")
    assert decision is not None and decision.verdict == "yes"


@pytest.mark.parametrize(
    "question",
    [
        # a monster with another effect kind too: which effect is asked is not known
        "Does Hybrid Beast's effect start a chain?",
        # a Spell Card is activated itself, whatever its effect's kind
        "Does Endless Field's effect start a chain?",
        # no Chain asked
        "Is Soft Wall's continuous effect negated by Skill Drain?",
        # not yes/no
        "What does the continuous effect of Soft Wall do?",
    ],
)
def test_other_questions_are_left_to_other_reasoners(question: str) -> None:
    assert _ask(_graph(), question) is None


def test_without_the_rule_in_the_graph_nothing_is_decided() -> None:
    assert (
        _ask(_graph(with_rule=False), "Does the continuous effect of Soft Wall start a chain?")
        is None
    )
