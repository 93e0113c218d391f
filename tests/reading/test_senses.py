"""Senses: word groups of the language data found in a text by stem, with their spans."""

from __future__ import annotations

import pytest

from kb.reading.senses import Senses, read_senses


@pytest.mark.parametrize(
    ("text", "sense", "word"),
    [
        ("Posso encadear Tufão Místico?", "chain_to", "encadear"),
        ("Can I chain to it?", "chain", "chain"),
        ("It was chained to Pot of Greed", "chain", "chained"),
        ("O efeito obrigatório vai primeiro", "mandatory", "obrigatório"),
        ("o efeito obrigatorio vai primeiro", "mandatory", "obrigatorio"),  # accents optional
        ("negated by Solemn Judgment", "negated_by", "negated by"),
        ("foi negada pela Julgamento", "negated_by", "negada pela"),
        ("durante a etapa de dano", "damage_step", "etapa de dano"),
        ("during the Damage Step", "damage_step", "Damage Step"),
    ],
)
def test_a_sense_is_found_by_stem_and_phrase(text: str, sense: str, word: str) -> None:
    spans = read_senses(text).where(sense)
    assert [text[a:b] for a, b in spans] == [word]


def test_an_accent_that_makes_another_word_is_required() -> None:
    """ "é" (is) is a copula; "e" (and) is not, though they fold alike."""
    assert read_senses("Jinzo é um monstro?").has("copula")
    assert not read_senses("Jinzo e Marshmallon").has("copula")


def test_unrelated_words_are_not_senses() -> None:
    senses = read_senses("Posso comprar duas cartas no meu turno?")
    assert not senses.has("chain", "negate", "summon", "damage_step")


def test_spans_filter_by_range_and_mentions() -> None:
    text = "Chain Destruction can be chained to it"
    senses = read_senses(text)
    assert len(senses.where("chain")) == 2
    # a card's name is not the question's word
    assert [text[a:b] for a, b in senses.outside([(0, 17)]).where("chain")] == ["chained"]
    assert senses.first("chain", start=1) == (25, 32)
    assert senses.has("chain", start=18)
    assert not senses.has("chain", start=33)


def test_empty_senses() -> None:
    assert not Senses().has("chain")
    assert Senses().first("chain") is None


def test_a_word_marked_as_written_does_not_match_by_stem() -> None:
    """ "limitado" (a list status) and "limite" (a limit) share a stem; the data marks the status
    to be matched as written."""
    assert read_senses("Pote da Ganância é limitado?").has("list_status")
    assert not read_senses("pelo limite de cartas na mão").has("list_status")
    assert not read_senses("the hand size limit").has("list_status")


def test_amounts_in_digits_and_words() -> None:
    from kb.reading.question import amounts

    found = amounts("Tenho 8.000 PV e duas cópias, um card", "pt")
    assert [(a.value, a.digits) for a in found] == [(8000, True), (2, False)]  # "um": an article
