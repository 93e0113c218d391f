"""The bounded answer cache: a repeated question is answered from it, byte for byte the same."""

from __future__ import annotations

import json

import pytest

from kb.answering.cache import AnswerCache, answer_key
from kb.service import RulingsService

QUESTION = "Can Divine Wrath negate Cyber Dragon's summon?"


def test_the_cache_keeps_at_most_its_size_dropping_the_least_recently_used() -> None:
    cache = AnswerCache(2)
    a, b, c = (answer_key(q, None, 5, "build") for q in "abc")
    cache.put(a, {"answer": "a"})
    cache.put(b, {"answer": "b"})
    assert cache.get(a) == {"answer": "a"}  # a is now the most recently used
    cache.put(c, {"answer": "c"})
    assert len(cache) == 2
    assert cache.get(b) is None
    assert cache.get(a) == {"answer": "a"} and cache.get(c) == {"answer": "c"}
    assert (cache.hits, cache.misses) == (3, 1)


def test_size_zero_keeps_nothing_and_a_negative_size_is_refused() -> None:
    cache = AnswerCache(0)
    cache.put(answer_key("q", None, 5, None), {"answer": "x"})
    assert len(cache) == 0
    with pytest.raises(ValueError, match="0 or more"):
        AnswerCache(-1)


def test_what_the_cache_hands_out_cannot_change_what_it_keeps() -> None:
    cache = AnswerCache(4)
    key = answer_key("q", None, 5, None)
    original = {"citations": [{"id": "r1"}]}
    cache.put(key, original)
    original["citations"].append({"id": "changed after put"})
    got = cache.get(key)
    assert got == {"citations": [{"id": "r1"}]}
    got["citations"].clear()
    assert cache.get(key) == {"citations": [{"id": "r1"}]}


def test_key_parts_that_change_an_answer_make_distinct_keys() -> None:
    keys = {
        answer_key(QUESTION, None, 5, "b1"),
        answer_key(QUESTION, "edison", 5, "b1"),
        answer_key(QUESTION, None, 3, "b1"),
        answer_key(QUESTION, None, 5, "b2"),
        answer_key(QUESTION + " ", None, 5, "b1"),  # answers echo the question and its offsets
    }
    assert len(keys) == 5
    assert answer_key(QUESTION, "", 5, "b1") == answer_key(QUESTION, None, 5, "b1")


def test_a_cached_answer_is_the_same_json_as_a_fresh_one(
    lite_service: RulingsService, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(lite_service, "answers", AnswerCache(2))
    first = lite_service.ask(QUESTION, k=3)
    hits = lite_service.answers.hits
    again = lite_service.ask(QUESTION, k=3)
    assert lite_service.answers.hits == hits + 1
    fresh = lite_service.answerer.answer(QUESTION, None, 3)
    assert json.dumps(again, sort_keys=True) == json.dumps(first, sort_keys=True)
    assert json.dumps(again, sort_keys=True) == json.dumps(fresh, sort_keys=True)
    for q in ("What is a chain?", "Can I activate a trap the turn I set it?"):
        lite_service.ask(q, k=3)
    build = lite_service.artifact.manifest.get("build_id")
    assert len(lite_service.answers) == 2  # bounded: the first question was dropped
    assert lite_service.answers.get(answer_key(QUESTION, None, 3, build)) is None
    assert lite_service.answers.get(answer_key("What is a chain?", None, 3, build)) is not None


def test_invalid_questions_are_refused_before_the_cache(lite_service: RulingsService) -> None:
    from kb.errors import InvalidQuery

    with pytest.raises(InvalidQuery):
        lite_service.ask("   ")
    with pytest.raises(InvalidQuery):
        lite_service.ask(QUESTION, k=0)
