"""Card search: pt/en names, accents, typos, prefixes, initials, filters and the parameter checks
of the card service; and the issue's queries on the real card table."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cards.test_banlist import (
    RETRO,
    listing_format,
    real_formats,
    real_records,
    sample_formats,
    sample_graph,
    sample_records,
)
from kb.cards.banlist import in_pool
from kb.cards.search import CardIndex, normalize
from kb.cards.service import CardService
from kb.errors import InvalidQuery, NotFound

SAMPLE = sample_records()


@pytest.fixture(scope="module")
def index() -> CardIndex:
    return CardIndex(SAMPLE)


def top(index: CardIndex, q: str, **kw: object) -> str | None:
    hits = index.search(q, 5, **kw)  # type: ignore[arg-type]
    return hits[0].name_en if hits else None


def test_normalize_folds_accents_case_and_punctuation() -> None:
    assert normalize("  Tufão   Espacial-Místico! ") == "tufao espacial mistico"
    assert normalize('Maxx "C"') == "maxx c"


@pytest.mark.parametrize(
    ("q", "card"),
    [
        ("Mystical Space Typhoon", "Mystical Space Typhoon"),
        ("Tufão Espacial Místico", "Mystical Space Typhoon"),
        ("tufao espacial mistico", "Mystical Space Typhoon"),
        ("Gorz the Emisary of Darkness", "Gorz the Emissary of Darkness"),
        ("gorz o emissario", "Gorz the Emissary of Darkness"),
        ("tufão esp", "Mystical Space Typhoon"),
        ("kalut", "Blackwing - Kalut the Moon Shadow"),
        ("emisary darkness", "Gorz the Emissary of Darkness"),
        ("mst", "Mystical Space Typhoon"),
        ("maxx c", 'Maxx "C"'),
        ("Pote da Ganancia", "Pot of Greed"),
    ],
)
def test_names_accents_typos_prefixes(index: CardIndex, q: str, card: str) -> None:
    assert top(index, q) == card


def test_hits_carry_the_card_and_one_hit_per_card(index: CardIndex) -> None:
    hits = index.search("sangan", 10)
    assert [h.name_en for h in hits].count("Sangan") == 1  # pt and en names are the same card
    h = hits[0]
    assert (h.id, h.card_type, h.attribute, h.level, h.atk, h.defense) == (
        "card/sangan",
        "monster",
        "DARK",
        3,
        1000,
        600,
    )
    assert h.score == 1.0 and h.matched == "Sangan"
    dumped = h.model_dump(by_alias=True)
    assert dumped["def"] == 600 and "defense" not in dumped


def test_exact_beats_prefix_beats_typo(index: CardIndex) -> None:
    hits = index.search("plain monster 1", 5)
    assert hits[0].name_en.startswith("Plain Monster 1")
    scores = [h.score for h in hits]
    assert scores == sorted(scores, reverse=True)
    assert index.search("Heavy Storm", 1)[0].score == 1.0
    assert 0.9 <= index.search("Heavy St", 1)[0].score < 1.0
    assert index.search("Heavy Strom", 1)[0].score < 0.9


def test_filters(index: CardIndex) -> None:
    assert {h.card_type for h in index.search("o", 50, card_type="spell")} == {"spell"}
    assert top(index, "dragon", card_type="synchro") == "Stardust Dragon"
    assert {h.attribute for h in index.search("a", 50, attribute="DARK")} == {"DARK"}
    pool = lambda r: in_pool(r, RETRO)  # noqa: E731
    assert top(index, "Effect Veiler") == "Effect Veiler"
    assert all(h.name_en != "Effect Veiler" for h in index.search("Effect Veiler", 10, pool=pool))


def test_short_and_empty_queries(index: CardIndex) -> None:
    assert index.search("", 5) == [] and index.search("!!", 5) == []
    assert top(index, "s") is not None  # one letter: prefixes only


def test_resolve_takes_only_a_clear_best_match(index: CardIndex) -> None:
    record, score = index.resolve("Asanegra - Kalut, a Lua Sombira")
    assert (
        record is not None and record.name_en == "Blackwing - Kalut the Moon Shadow" and score < 1
    )
    assert index.resolve("Blue Eyes Ultra Mega Dragon Supreme") == (None, 0.0)
    assert index.resolve("Plain Monster 4") == (None, 0.0)  # 04 … 40: too close to call
    assert index.resolve("SANGAN")[1] == 1.0


# --- the service's parameter checks -------------------------------------------------------------


@pytest.fixture(scope="module")
def cards() -> CardService:
    return CardService(sample_records(), sample_formats(), sample_graph(), max_k=20)


def test_service_search_filters_and_echoes_them(cards: CardService) -> None:
    result = cards.search("dragon", type="Synchro", attribute="wind", format="retro", k=3)
    assert (result.type, result.attribute, result.format) == ("synchro", "WIND", "retro")
    assert [h.name_en for h in result.hits] == ["Stardust Dragon"]
    assert all(h.name_en != "Effect Veiler" for h in cards.search("veiler", format="retro").hits)
    assert cards.search("veiler", format="pairs").hits[0].name_en == "Effect Veiler"  # no pool


@pytest.mark.parametrize(
    ("kw", "field"),
    [
        ({"q": ""}, "q"),
        ({"q": "x" * 1001}, "q"),
        ({"q": "a", "k": 0}, "k"),
        ({"q": "a", "k": 21}, "k"),
        ({"q": "a", "type": "dinosaur"}, "type"),
        ({"q": "a", "attribute": "PURPLE"}, "attribute"),
        ({"q": "a", "format": "nope"}, "format"),
    ],
)
def test_service_search_rejects_bad_parameters(cards: CardService, kw: dict, field: str) -> None:
    with pytest.raises(InvalidQuery) as exc:
        cards.search(**kw)
    assert exc.value.field == field


def test_cards_by_id_slug_password_and_name(cards: CardService) -> None:
    for key in ("card/sangan", "sangan", "26202165", "Sangan"):
        assert cards.card(key).name_en == "Sangan"
    with pytest.raises(NotFound) as exc:
        cards.card("card/sangna")
    assert "card/sangan" in exc.value.suggestions


def test_service_formats_must_declare_what_is_asked(cards: CardService) -> None:
    assert cards.spec(None, "list").id == "retro"  # the first format declaring a list
    with pytest.raises(InvalidQuery, match="format 'bare' declares no Forbidden & Limited list"):
        cards.banlist("bare")
    with pytest.raises(InvalidQuery, match="unknown format 'nope'"):
        cards.legality("sangan", "nope")


# --- the real table (skips without it) ----------------------------------------------------------


@pytest.fixture(scope="module")
def real_index() -> CardIndex:
    return CardIndex(real_records())


@pytest.mark.parametrize(
    ("q", "card"),
    [
        ("Gorz the Emisary of Darkness", "Gorz the Emissary of Darkness"),
        ("tufao espacial mistico", "Mystical Space Typhoon"),
        ("Tufão Espacial Místico", "Mystical Space Typhoon"),
        ("Mystical Space Typh", "Mystical Space Typhoon"),
        ("Julgamento Solene", "Solemn Judgment"),
        ("Solemn Judgement", "Solemn Judgment"),
        ("dragao cibernetico", "Cyber Dragon"),
        ("Horn of Heaven", "Horn of Heaven"),
        ("Effect Veiler", "Effect Veiler"),
    ],
)
def test_real_queries(real_index: CardIndex, q: str, card: str) -> None:
    assert top(real_index, q) == card


def test_real_pool_filter(real_index: CardIndex) -> None:
    spec = listing_format(real_formats())
    pool = lambda r: in_pool(r, spec)  # noqa: E731
    assert top(real_index, "Effect Veiler", pool=pool) != "Effect Veiler"
    assert top(real_index, "Cyber Dragon", pool=pool) == "Cyber Dragon"


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=60))
def test_any_query_gives_ranked_hits(q: str) -> None:
    hits = CardIndex(SAMPLE).search(q, 5)
    assert len(hits) <= 5 and [h.score for h in hits] == sorted(
        (h.score for h in hits), reverse=True
    )
    assert all(0 < h.score <= 1 for h in hits)


def _keep_all(record: object) -> bool:
    return True


# Names with typos in their first letters and words run together: the whole-name typo pass runs.
TYPO_QUERIES = [
    "Xystical Spce Typhon",
    "bGorz teh Emisary",
    "jilgamento solene",
    "Cyberdragon",
    "qffect veilr",
    "Y e Tanque Metálico Z",
    "Dragão Gaia o Cavaleiro do Trovão",
    "Tag Duel",
    "Special Summon",
    "x",
]


@pytest.mark.parametrize("min_score", [0.0, 0.6, 0.85, 0.95, 1.0])
def test_min_score_keeps_what_filtering_the_best_would(
    real_index: CardIndex, min_score: float
) -> None:
    """`min_score` gives the `k` best filtered at that score, though the typo pass then skips the
    names that cannot reach it; and skipping the names of other lengths (unfiltered queries) finds
    what scoring every name finds (a pool that keeps every card takes the unskipped path)."""
    for q in TYPO_QUERIES:
        for k in (1, 3, 10, 40):
            every = real_index.matches(q, k, pool=_keep_all)
            assert real_index.matches(q, k) == every, q
            kept = [m for m in every if m.score >= min_score]
            assert real_index.matches(q, k, min_score=min_score) == kept, q
            assert real_index.matches(q, k, pool=_keep_all, min_score=min_score) == kept, q


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="abcdeoxyz áéã-", max_size=30), st.sampled_from([0.0, 0.85]))
def test_length_window_finds_what_every_name_finds(q: str, min_score: float) -> None:
    index = CardIndex(SAMPLE)
    assert index.matches(q, 10, min_score=min_score) == index.matches(
        q, 10, pool=_keep_all, min_score=min_score
    )
