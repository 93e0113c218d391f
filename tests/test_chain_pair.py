"""Who responds to whom in a described chain (kb.reason.chain.chain_pair), on the real graph."""

from __future__ import annotations

import pytest
from tests_support import chain_pair_ids

from kb.reason.chain import chain_decision, lone_responder
from kb.service import RulingsService


@pytest.mark.parametrize(
    ("question", "responder", "target"),
    [
        # the card named again in the asking sentence is asked there: the verb's object responds
        (
            "My opponent chains Divine Wrath as Chain Link 2. "
            "Can I chain Zorblax the Unfound's Spell Speed 1 effect to Divine Wrath?",
            "concept/spell-speed-1",
            "card/divine-wrath",
        ),
        # "X chains to Y": what follows "to" is responded to
        (
            "Can a Spell Speed 2 card chain to a Counter Trap?",
            "concept/spell-speed-2",
            "concept/counter-trap",
        ),
        # "to it": the card the set-up activates; "other than X" does not respond
        (
            "Opponent activated Solemn Judgment on my Summon of Sangan. "
            "Can I chain anything other than another Counter Trap to it, like Mystical Space Typhoon?",
            "card/mystical-space-typhoon",
            "card/solemn-judgment",
        ),
    ],
)
def test_responder_and_responded_to(
    hash_service: RulingsService, question: str, responder: str, target: str
) -> None:
    assert chain_pair_ids(hash_service, question) == (responder, target)


def test_a_concessive_if_does_not_make_the_question_conditional(
    hash_service: RulingsService,
) -> None:
    q = hash_service.answerer.read(
        "Can a Spell Speed 2 card chain to a Counter Trap even if it negates the Counter Trap?",
        None,
    )
    decision = chain_decision(hash_service.kg, q)
    assert decision is not None and decision.verdict == "no"


def test_negating_an_activation_needs_a_legal_chain(hash_service: RulingsService) -> None:
    result = hash_service.ask(
        "Since Solemn Judgment is a Counter Trap, can I chain Trap Stun to negate it?"
    )
    assert result["verdict"] == "no"
    assert result["reasoner"] == "chain-spell-speed"
    assert any("speed-2" in (c["id"] or "") for c in result["citations"][:3])


@pytest.mark.parametrize(
    ("question", "verdict"),
    [
        ("Can you chain Normal Trap Cards?", "yes"),  # Spell Speed 2 responds to 1 and 2
        ("Posso encadear uma Armadilha de Resposta?", "yes"),
        ("Can you chain Pot of Greed?", "no"),  # Spell Speed 1 responds to nothing
        # one card on both sides, the asking sentence naming neither
        (
            "My opponent targeted my Set Mystical Space Typhoon with his Mystical Space Typhoon. "
            "Can I chain mine in response?",
            "yes",
        ),
    ],
)
def test_chaining_one_thing_with_nothing_named_to_chain_it_to(
    hash_service: RulingsService, question: str, verdict: str
) -> None:
    q = hash_service.answerer.read(question, None)
    decision = chain_decision(hash_service.kg, q)
    assert decision is not None and decision.verdict == verdict
    assert any(s.source and "spell-speed" in s.source for s in decision.steps)


@pytest.mark.parametrize(
    "question",
    [
        "Can I chain to Mirror Force?",  # what is responded to, not what responds
        "Does Pot of Greed start a chain?",  # not the chain verb's object
        # a set-up describes what it would respond to: more than its speed
        "I discarded Sangan for the hand-size limit. Can I chain Mystical Space Typhoon?",
    ],
)
def test_no_lone_responder(hash_service: RulingsService, question: str) -> None:
    q = hash_service.answerer.read(question, None)
    assert lone_responder(hash_service.kg, q) is None


def test_refused_by_the_target_s_speed_cites_that_speed_s_rule(
    hash_service: RulingsService,
) -> None:
    q = hash_service.answerer.read("Can I chain Mystical Space Typhoon to Solemn Judgment?", None)
    decision = chain_decision(hash_service.kg, q)
    assert decision is not None and decision.verdict == "no"
    sources = [s.source for s in decision.steps if s.source]
    assert any("speed-2" in s for s in sources) and any("speed-3" in s for s in sources)
