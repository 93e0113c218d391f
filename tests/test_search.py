"""Hybrid search through the service, with the deterministic hash embedder (fast, no model)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kb.errors import InvalidQuery
from kb.search.fusion import ranks
from kb.service import RulingsService


@pytest.fixture(scope="module")
def svc(hash_service: RulingsService) -> RulingsService:
    return hash_service


def test_search_returns_the_documented_shape(svc: RulingsService) -> None:
    result = svc.search("Montanha Umi Tornado de Pó", k=3)
    assert set(result) == {"query", "format", "hits"}
    assert len(result["hits"]) == 3
    hit = result["hits"][0]
    assert set(hit) >= {
        "id",
        "type",
        "document",
        "section",
        "text",
        "start",
        "end",
        "score",
        "scores",
        "entities",
    }
    assert set(hit["scores"]) == {"dense", "lexical", "graph"}
    doc = svc.artifact.documents[hit["document"]]
    assert doc[hit["start"] : hit["end"]] == hit["text"]


def test_english_card_names_find_portuguese_passages(svc: RulingsService) -> None:
    ids = [h["id"] for h in svc.search("Dust Tornado chained to Mountain", k=3)["hits"]]
    assert "edison/rule-02/example-02" in ids


def test_misspelled_card_name_is_linked_and_found(svc: RulingsService) -> None:
    linked = svc.link("Dragao Negro Armdo no Tag Duel")["entities"]
    assert any(e["id"] == "card/dark-armed-dragon" for e in linked)
    ids = [h["id"] for h in svc.search("Dragao Negro Armdo com 4 monstros TREVAS", k=5)["hits"]]
    assert any(i.startswith("tag/basic-rules/example-04") for i in ids)


def test_format_demotes_other_formats_without_hiding_them(svc: RulingsService) -> None:
    q = "o primeiro jogador compra um card no primeiro turno"
    tag = svc.search(q, k=50, format="tag")["hits"]
    assert tag[0]["format"] == "tag"
    assert any(h["format"] == "edison" for h in tag)  # demoted, still present
    unfiltered = svc.search(q, k=50)["hits"]
    rank = {h["id"]: i for i, h in enumerate(unfiltered)}
    demoted = [h["id"] for h in tag if h["format"] == "edison"]
    assert all(
        tag.index(next(t for t in tag if t["id"] == d)) >= rank[d] for d in demoted if d in rank
    )
    edison = svc.search(q, k=3, format="edison")["hits"]
    assert edison[0]["format"] == "edison"


def test_type_filter(svc: RulingsService) -> None:
    hits = svc.search("Monstro de Armadilha Jinzo", k=5, type="Example")["hits"]
    assert hits and all(h["type"] == "Example" for h in hits)


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"q": ""}, "q"),
        ({"q": "   "}, "q"),
        ({"q": "x" * 1001}, "q"),
        ({"q": "chain", "k": 0}, "k"),
        ({"q": "chain", "k": 101}, "k"),
        ({"q": "chain", "format": "pauper"}, "format"),
        ({"q": "chain", "type": "Card"}, "type"),
    ],
)
def test_bad_parameters_name_the_field(svc: RulingsService, kwargs: dict, field: str) -> None:
    with pytest.raises(InvalidQuery) as err:
        svc.search(**kwargs)
    assert err.value.field == field
    assert field in str(err.value)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.sampled_from([-1.0, 0.0, 0.25, 0.5, 0.75, 1.0]), max_size=40),
    st.integers(min_value=1, max_value=50),
)
def test_ranks_are_the_positive_documents_in_score_order(values: list[float], depth: int) -> None:
    """Rank of each of the first `depth` documents by score (ties: the earlier document first)
    that scores above 0, counting the documents ranked before it."""
    scores = np.array(values, dtype=np.float32)
    order = sorted(range(len(values)), key=lambda i: -values[i])[:depth]
    assert ranks(scores, depth) == {i: r + 1 for r, i in enumerate(order) if values[i] > 0}


def test_search_builds_the_same_top_hits_whatever_k(svc: RulingsService) -> None:
    """The first hits of a longer list are the hits of a shorter one (hits are built for the
    returned k only)."""
    long = svc.search("Dust Tornado chained to Mountain", k=12)["hits"]
    for k in (1, 3, 7):
        assert svc.search("Dust Tornado chained to Mountain", k=k)["hits"] == long[:k]
