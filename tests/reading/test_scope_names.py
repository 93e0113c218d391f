"""Names the KB does not know (kb/reading/scope.Vocabulary): sentence openers are no names."""

from __future__ import annotations

from kb.reading.scope import Vocabulary


def test_an_auxiliary_opening_a_sentence_is_no_name() -> None:
    vocab = Vocabulary(frozenset({"monsters"}))
    text = "I control no monsters at all. Am I still allowed to enter?"
    assert vocab.unknown_names(text, []) == []
    assert vocab.unknown_names("Can I chain Dark Nibiru Lord to it?", []) == ["Dark Nibiru Lord"]
