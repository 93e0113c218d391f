"""The linker's names from the glossary: a concept named by a head noun and a relative clause."""

from __future__ import annotations

from kb.link import Entry, Linker
from kb.reading.lexicon import with_predicate_names

MODIFIER = Entry(
    "concept/atk-def-modifier",
    "Concept",
    "Card that modifies ATK/DEF",
    ("Card que modifica ATK/DEF", "Cards que modificam ATK/DEF", "Cards that modify ATK/DEF"),
)
SPELL_TRAP = Entry("concept/spell-trap-card", "Concept", "Spell/Trap", ("Magias/Armadilhas",))


def test_the_relative_clause_of_a_concept_name_names_it_after_another_noun() -> None:
    (entry, other) = with_predicate_names([MODIFIER, SPELL_TRAP])
    assert "que modificam ATK/DEF" in entry.surfaces and "that modify ATK/DEF" in entry.surfaces
    assert other == SPELL_TRAP  # no head noun and relative pronoun: as it was
    linker = Linker([entry, other])
    text = "Magias/Armadilhas que modificam ATK/DEF não podem ser ativadas."
    assert [m.entity for m in linker.link(text)] == [
        "concept/spell-trap-card",
        "concept/atk-def-modifier",
    ]


def test_a_card_name_is_left_as_it_is() -> None:
    card = Entry("card/x", "Card", "Cards that Glow", ("Cards that Glow",))
    assert with_predicate_names([card]) == [card]
