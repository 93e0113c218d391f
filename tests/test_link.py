"""Folding, slugs and entity linking: laws (Hypothesis) and the mentions found in the real corpus."""

from __future__ import annotations

import itertools
import re
from typing import TYPE_CHECKING

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from kb.graph import KnowledgeGraph
from kb.ids import fold, slugify
from kb.link import Entry, Linker, fold_with_offsets, normalise
from kb.reading.lexicon import everyday_lexicon, linker_for

if TYPE_CHECKING:
    from conftest import Built

PROPERTY = settings(max_examples=200, deadline=None, database=None)
_QUOTES = str.maketrans({"“": '"', "”": '"', "‘": "'", "’": "'", "–": "-", "—": "-"})
# Accents, ligatures, curly quotes, dashes, German ß, Turkish İ, combining marks, CJK, fullwidth.
_TRICKY = st.sampled_from(list("aÁéçÇãõñßİıﬁﬂ“”‘’–—-'\"ÅΣς\u0301\u0327 \n\t.,:ｱＡ①チェーン²"))
TEXT = st.one_of(st.text(max_size=60), st.lists(_TRICKY, max_size=40).map("".join))


# --- slugs ---------------------------------------------------------------------------------------


@PROPERTY
@given(TEXT)
def test_slugify_is_idempotent_and_ascii(text: str) -> None:
    try:
        slug = slugify(text)
    except ValueError:
        assume(False)
        return
    assert re.fullmatch(r"[a-z0-9]+(?:-[a-z0-9]+)*", slug)
    assert slugify(slug) == slug


@PROPERTY
@given(st.text(alphabet=st.characters(categories=["P", "Z", "S", "Mn"]), max_size=20))
def test_slugify_rejects_names_without_letters_or_digits(text: str) -> None:
    assume(not re.search(r"[a-z0-9]", fold(text)))
    with pytest.raises(ValueError, match="cannot make an id"):
        slugify(text)


@pytest.mark.parametrize(
    ("name", "slug"),
    [
        ("Dark Armed Dragon", "dark-armed-dragon"),
        ("D.D. Survivor", "d-d-survivor"),
        ("Gorz the Emissary of Darkness", "gorz-the-emissary-of-darkness"),
        ("Ash Blossom & Joyous Spring", "ash-blossom-joyous-spring"),
        ("Invocação-Especial Inerente", "invocacao-especial-inerente"),
        ("  Tragoedia!  ", "tragoedia"),
    ],
)
def test_slugify_examples(name: str, slug: str) -> None:
    assert slugify(name) == slug


# --- folding with offsets ------------------------------------------------------------------------


@PROPERTY
@given(TEXT)
def test_fold_with_offsets_maps_back_to_source_characters(text: str) -> None:
    folded, offsets = fold_with_offsets(text)
    assert len(offsets) == len(folded)
    assert all(0 <= o < len(text) for o in offsets)
    assert all(a <= b for a, b in itertools.pairwise(offsets))
    # Each source character folds to exactly the run of folded characters mapped back to it.
    for i, ch in enumerate(text):
        run = "".join(f for f, o in zip(folded, offsets, strict=True) if o == i)
        assert run == fold(ch.translate(_QUOTES))


@PROPERTY
@given(TEXT)
def test_normalise_is_idempotent(text: str) -> None:
    key = normalise(text)
    assert normalise(key) == key
    assert key == key.strip() and "  " not in key


# --- the linker ----------------------------------------------------------------------------------

ENTRIES = [
    Entry(
        "card/dark-armed-dragon",
        "Card",
        "Dark Armed Dragon",
        ("Dark Armed Dragon", "Dragão Negro Armado", "DAD"),
    ),
    Entry("card/d-d-survivor", "Card", "D.D. Survivor", ("D.D. Survivor",)),
    Entry("concept/chain", "Concept", "Chain", ("Chain", "Corrente")),
    Entry("concept/chain-link", "Concept", "Chain Link", ("Chain Link", "Elo de Corrente")),
]


@pytest.fixture(scope="module")
def linker() -> Linker:
    return Linker(ENTRIES)


def test_link_folds_accents_quotes_case_and_spacing(linker: Linker) -> None:
    text = "O “DRAGAO  Negro\nArmado” ativa em corrente."
    found = linker.link(text)
    assert [(m.entity, m.matched) for m in found] == [
        ("card/dark-armed-dragon", "DRAGAO  Negro\nArmado"),
        ("concept/chain", "corrente"),
    ]
    assert all(text[m.start : m.end] == m.matched for m in found)


def test_link_prefers_the_longest_surface(linker: Linker) -> None:
    found = linker.link("Elo de Corrente 2 e Chain Link 3; Chain.")
    assert [m.entity for m in found] == [
        "concept/chain-link",
        "concept/chain-link",
        "concept/chain",
    ]


def test_link_matches_whole_words_only(linker: Linker) -> None:
    assert linker.link("DADOS Correntes chainsaw") == []
    assert [m.entity for m in linker.link("D.D. Survivor.")] == ["card/d-d-survivor"]


def test_hyphens_match_spaces_or_nothing() -> None:
    linker = Linker([Entry("concept/semi-limited", "Concept", "Semi-Limited", ("Semi-Limitado",))])
    for text in ("um card Semi-Limitado", "um card semi limitado", "um card semilimitado"):
        (m,) = linker.link(text)
        assert m.entity == "concept/semi-limited" and text[m.start : m.end] == m.matched
    assert linker.link("semi") == []


def test_link_filters_by_type(linker: Linker) -> None:
    found = linker.link("Dark Armed Dragon em Corrente", types=frozenset({"Concept"}))
    assert [m.entity for m in found] == ["concept/chain"]


def test_fuzzy_link_tolerates_typos(linker: Linker) -> None:
    text = "posso negar Dragao Negro Armdo?"
    assert linker.link(text) == []
    found = linker.link(text, fuzzy=True)
    assert [m.entity for m in found] == ["card/dark-armed-dragon"]
    assert 0.84 <= found[0].score < 1.0
    assert text[found[0].start : found[0].end] == found[0].matched


_FILLER = st.text(alphabet="xyzqw ,;()\n", max_size=15)


@PROPERTY
@given(_FILLER, st.sampled_from([s for e in ENTRIES for s in e.surfaces]), _FILLER)
def test_link_finds_a_surface_anywhere_with_exact_offsets(
    linker: Linker, before: str, surface: str, after: str
) -> None:
    text = f"{before} {surface} {after}"
    found = linker.link(text)
    start = len(before) + 1
    assert [(m.start, m.end, m.matched) for m in found] == [(start, start + len(surface), surface)]


# --- mentions in the real graph ------------------------------------------------------------------


def test_every_mention_fact_points_at_its_matched_text(
    kg: KnowledgeGraph, documents: dict[str, str]
) -> None:
    mentions = [f for f in kg.facts if f.predicate == "mentions"]
    assert len(mentions) > 1500
    for f in mentions:
        node = kg.node(f.subject)
        assert node.span is not None and f.source == f.subject
        assert node.span.start <= f.props["start"] < f.props["end"] <= node.span.end
        doc = documents[node.span.document]
        assert doc[f.props["start"] : f.props["end"]] == f.props["matched"], f
        assert f.object in kg


def test_key_names_are_linked_in_the_documents(kg: KnowledgeGraph) -> None:
    mentioned = {f.object for f in kg.facts if f.predicate == "mentions"}
    for entity in (
        "card/cyber-dragon",
        "card/dark-armed-dragon",
        "card/solemn-judgment",
        "concept/chain",
        "concept/damage-step",
        "concept/spell-speed-3",
        "format/edison",
    ):
        assert entity in mentioned


def test_players_shorthand_links_in_queries() -> None:
    entries = [
        Entry("card/evolzar-laggia", "Card", "Evolzar Laggia", ("Evolzar Laggia",)),
        Entry("card/forbidden-lance", "Card", "Forbidden Lance", ("Forbidden Lance",)),
        Entry("card/call-of-the-haunted", "Card", "Call of the Haunted", ("Call of the Haunted",)),
        Entry("card/mystical-space-typhoon", "Card", "Mystical Space Typhoon", ("MST card",)),
        Entry("card/shadow-imprisoning-mirror", "Card", "Shadow-Imprisoning Mirror", ("x",)),
    ]
    linker = Linker(entries, common_words=frozenset({"sim"}))
    text = "Ativei Evolzar Laggia e Forbidden Lance. O Laggia resolve? E o MST? CotH? SIM ou não?"
    found = {(m.entity, m.matched) for m in linker.link(text, fuzzy=True)}
    assert ("card/evolzar-laggia", "Laggia") in found  # a word of a card named before
    assert ("card/mystical-space-typhoon", "MST") in found  # initials in capitals
    assert ("card/call-of-the-haunted", "CotH") in found  # small words in lower case
    assert not any(m == "SIM" for _, m in found)  # initials that are a word are no name
    # a word of a card not named before, or a lower-case word, is no mention
    assert not linker.link("O Laggia resolve?", fuzzy=True)
    assert not any(
        m.matched == "laggia" for m in linker.link("Evolzar Laggia. laggia?", fuzzy=True)
    )
    # documents are linked without shorthand
    assert not any(m.matched == "MST" for m in linker.link(text))


@pytest.mark.parametrize(
    ("text", "linked"),
    [
        ("During the storm of effects, can I chain?", []),
        ("Can I chain Pot of Greed to Storm?", ["card/storm"]),
        ('posso responder a "tempestade"?', ["card/storm"]),
        ("a tempestade de efeitos", []),
        ("What happens to my reinforcements?", []),
        ("Can I chain Reinforcements to it?", ["card/reinforcements"]),
        ("Storm: posso encadear?", ["card/storm"]),  # a capital opening a sentence too
        ("o jinzo nega armadilhas?", ["card/jinzo"]),  # no everyday word: any case
    ],
)
def test_a_card_named_by_an_everyday_word_links_only_as_a_name(
    text: str, linked: list[str]
) -> None:
    """One-word card names that are everyday English or Portuguese words link when written with
    a capital or quoted (the pattern and the typo-tolerant linker alike); names that are no word
    link in any case."""
    cards = Linker(
        [
            Entry("card/storm", "Card", "Storm", ("Storm", "Tempestade")),
            Entry("card/reinforcements", "Card", "Reinforcements", ("Reinforcements",)),
            Entry("card/jinzo", "Card", "Jinzo", ("Jinzo",)),
            Entry("concept/chain", "Concept", "Chain", ("chain",)),
        ]
    )
    for fuzzy in (False, True):
        found = [m.entity for m in cards.link(text, fuzzy=fuzzy) if m.entity.startswith("card/")]
        assert found == linked, (text, fuzzy)


def test_a_build_stores_the_everyday_words_its_server_links_with(lite_built: Built) -> None:
    """The build works the everyday words out once (wordfreq is not loaded to serve); a linker
    given them links as one that works them out itself."""
    artifact = lite_built.artifact
    stored = artifact.manifest["everyday_words"]
    assert stored == everyday_lexicon(artifact.graph)
    assert "chain" in stored and "jinzo" not in stored
    from_build = linker_for(artifact.graph, texts=artifact.documents.values(), everyday=stored)
    worked_out = linker_for(artifact.graph, texts=artifact.documents.values())
    for text in ("Can I chain Mystical Space Typhoon to Pot of Greed?", "o jinzo nega armadilhas?"):
        assert from_build.link(text, fuzzy=True) == worked_out.link(text, fuzzy=True)
