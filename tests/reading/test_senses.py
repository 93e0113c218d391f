"""Senses: word groups of the language data found in a text by stem, with their spans."""

from __future__ import annotations

import pytest

from kb.reading.senses import Senses, read_senses


@pytest.mark.parametrize(
    ("text", "sense", "word"),
    [
        ("Posso encadear Tufão Místico?", "chain", "encadear"),
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
