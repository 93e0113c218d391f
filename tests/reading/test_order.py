"""Reading the order a sentence tells and the order a question asks about (kb/reading/order)."""

from __future__ import annotations

from tests_support import hand_mentions  # type: ignore[import-not-found]

from kb.reading import Span, read_question
from kb.reading.order import read_order

DS = "concept/damage-calculation"
FLIP = "concept/flip-effect"


def spans(text: str, names: dict[str, str]) -> list[Span]:
    return hand_mentions(text, names)


def test_steps_are_opened_by_the_words_of_an_order() -> None:
    text = (
        "Primeiro ativam os efeitos de dano de batalha, de seguida os efeitos de flip, "
        "e por fim os efeitos de destruição."
    )
    order = read_order(text, spans(text, {"efeitos de flip": FLIP}), "pt")
    assert order is not None and order.frame is None
    assert len(order.steps) == 3
    assert FLIP in order.steps[1].entities
    assert "batalh" in order.steps[0].stems and "destruica" in order.steps[2].stems
    assert order.to_props() == type(order).from_props(order.to_props()).to_props()


def test_an_order_placed_before_something_has_it_as_frame() -> None:
    text = "Antes da damage calculation ocorrem os efeitos rápidos, depois disso o flip."
    order = read_order(text, spans(text, {"damage calculation": DS}), "pt")
    assert order is not None and order.frame == "before"
    assert order.anchor is not None and order.anchor.entities == {DS}
    assert len(order.steps) == 2


def test_english_orders_are_read_too() -> None:
    text = "First the turn player draws, then the Standby Phase starts, and finally Main Phase 1."
    order = read_order(text, [], "en")
    assert order is not None and len(order.steps) == 3


def test_a_sentence_with_no_order_reads_none() -> None:
    assert read_order("O jogador pode ativar a carta durante a Battle Phase.", [], "pt") is None
    # "next" inside a phrase opens no step
    assert read_order("You draw a card in the next turn.", [], "en") is None


def test_a_question_asks_before_after_first_or_last() -> None:
    text = "If I attack a set monster, does its Flip effect activate before damage calculation?"
    asked = read_question(text, spans(text, {"Flip effect": FLIP, "damage calculation": DS})).order
    assert asked is not None and asked.relation == "before"
    assert FLIP in asked.subject.entities and "attack" not in asked.subject.stems  # not the "if"
    assert asked.other is not None and asked.other.entities == {DS}
    text = "Os efeitos de flip vêm por último na Damage Step?"
    asked = read_question(text, spans(text, {"efeitos de flip": FLIP})).order
    assert asked is not None and asked.relation == "last" and FLIP in asked.subject.entities


def test_an_ordinal_of_a_thing_asks_no_order() -> None:
    # "the first card activated" names a card; it does not ask where something stands
    asked = read_question("Is the first card activated negated?").order
    assert asked is None


def test_an_ordinal_closing_a_relative_clause_asks_no_order() -> None:
    # "the player who goes first": who it is, not where something stands
    text = "Does the player who goes first get to conduct a Battle Phase on their first turn?"
    assert read_question(text).order is None
    # a relative clause in the subject leaves the asked end in place ("… que ativam …, vêm por
    # último na Damage Step?")
    text = "Efeitos que ativam quando o monstro é destruído vêm por último na Damage Step?"
    asked = read_question(text).order
    assert asked is not None and asked.relation == "last"
