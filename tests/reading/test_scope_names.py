"""Names the KB does not know (kb/reading/scope.Vocabulary): sentence openers are no names."""

from __future__ import annotations

from kb.reading.scope import Vocabulary


def test_an_auxiliary_opening_a_sentence_is_no_name() -> None:
    vocab = Vocabulary(frozenset({"monsters"}))
    text = "I control no monsters at all. Am I still allowed to enter?"
    assert vocab.unknown_names(text, []) == []
    assert vocab.unknown_names("Can I chain Dark Nibiru Lord to it?", []) == ["Dark Nibiru Lord"]


def test_a_word_the_reader_gives_a_role_is_never_off_topic() -> None:
    from kb.reading.relevance import Relevance

    relevance = Relevance(frozenset({"flip", "damag", "step", "efeit"}), frozenset({"flip"}))
    reading = relevance.read("Should Flip effects be able to bake in the Damage Step?", [])
    assert "able" in reading.content and "able" not in reading.off_topic  # "able to": a modal
    assert "bake" in reading.off_topic  # a word no rule text uses stays off
