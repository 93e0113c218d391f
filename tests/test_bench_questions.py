"""bench.questions: fresh variations of the evaluation questions, never a fixed list."""

from __future__ import annotations

import itertools

from tests_support import REPO  # type: ignore[import-not-found]

from bench.questions import curated_names, evaluation_questions, fresh_questions, table_names

CORPUS = REPO / "corpus"


def test_variations_are_distinct_new_and_name_table_cards() -> None:
    given = list(itertools.islice(fresh_questions(7), 300))
    assert len(set(given)) == len(given)
    assert not set(given) & set(evaluation_questions())  # a card was swapped in each
    names = {n for names in table_names(CORPUS).values() for n in names}
    assert all(any(n in q for n in names) for q in given[:30])


def test_a_seed_gives_the_same_variations_another_seed_others() -> None:
    first = list(itertools.islice(fresh_questions(1), 50))
    assert first == list(itertools.islice(fresh_questions(1), 50))
    assert len(set(first) & set(itertools.islice(fresh_questions(2), 50))) < 5


def test_curated_names_know_their_kind_and_language() -> None:
    names = curated_names(CORPUS)
    assert names["pot of greed"] == ("spell", "en")
    assert names["pote da ganância"] == ("spell", "pt")
