"""Summon negation as players ask it (kb.reason.summon through the service, real graph)."""

from __future__ import annotations

import pytest

from kb.reading.question import is_yes_no
from kb.service import RulingsService


@pytest.mark.parametrize(
    ("question", "verdict"),
    [
        # a negator named by what it is: some card can negate an inherent Summon
        ("Can you negate a Synchro Summon with a card effect?", "yes"),
        ("Dá pra negar uma Invocação-Sincro com um efeito de card?", "yes"),
        # "activate X against Y when it summons itself": X negating Y's Summon
        (
            "Can I activate Solemn Judgment against Tragoedia when it Special Summons itself?",
            "no",
        ),
        # a hyphenated name before "or" is no either-or question
        (
            "Can you negate the summon from a Polymerization with Thunder King Rai-Oh or "
            "Horn of Heaven?",
            "no",
        ),
    ],
)
def test_summon_negation_questions(
    hash_service: RulingsService, question: str, verdict: str
) -> None:
    result = hash_service.ask(question)
    assert result["verdict"] == verdict
    assert result["reasoner"] == "summon-negation"
    assert any("special-summon" in c["id"] for c in result["citations"][:3])


def test_either_or_needs_a_separate_clause() -> None:
    assert is_yes_no("Can Thunder King Rai-Oh or Horn of Heaven negate it?")
    assert not is_yes_no("Dark Simorgh: inherent or non-inherent?")
    assert not is_yes_no("O Dragão Cibernético - inerente ou não-inerente?")


def test_a_monster_s_own_summon_cites_the_rule_on_monster_effects(
    hash_service: RulingsService,
) -> None:
    result = hash_service.ask("Tragoedia se invocou da mão. Dá pra negar com Divine Wrath?")
    assert result["verdict"] == "yes"
    texts = [c["text"] for c in result["citations"][:3]]
    assert any("de um monstro" in t for t in texts)


@pytest.mark.parametrize(
    ("question", "verdict"),
    [
        # a card that negates Summons, used in response to one, negates it
        (
            "Can I activate Solemn Judgment in response to the Special Summon of Cyber Dragon?",
            "yes",
        ),
        # "why can't I X?" is decided as "can I X?"
        (
            "Why can't I activate Solemn Judgment in response to the Special Summon of Tragoedia?",
            "no",
        ),
    ],
)
def test_activating_a_summon_negator_in_response(
    hash_service: RulingsService, question: str, verdict: str
) -> None:
    result = hash_service.ask(question)
    assert result["verdict"] == verdict and result["reasoner"] == "summon-negation"
    assert result["question"] == question


@pytest.mark.parametrize(
    ("question", "presupposed"),
    [
        ("Why can't I chain Pot of Greed?", "Can I chain Pot of Greed?"),
        ("Why doesn't Jinzo's effect start a chain?", "Does Jinzo's effect start a chain?"),
        ("Por que não posso encadear Pot of Greed?", "Posso encadear Pot of Greed?"),
        ("Por que eu não posso ativar?", "Eu posso ativar?"),
        ("Why does the last link resolve first?", None),  # no negation presupposed
        ("Can I chain it?", None),
    ],
)
def test_why_not_questions_presuppose_a_yes_no_question(
    question: str, presupposed: str | None
) -> None:
    from kb.reading.question import why_not_as_yes_no

    assert why_not_as_yes_no(question) == presupposed
