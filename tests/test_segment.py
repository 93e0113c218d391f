"""Segmentation laws: every segment is an exact, trimmed, ordered slice of its source range."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ingest.segment import Segment, lines, sentences, split_at, trimmed

# Text that exercises the boundary rules: sentence ends, abbreviations, quotes, accents, odd
# whitespace and line separators (\r, \x0b, \u2028 … count as line breaks for str.splitlines).
_PIECES = st.sampled_from(
    [
        ". ",
        "! ",
        "? ",
        ".",
        " ",
        "  ",
        "\n",
        "\r\n",
        "\r",
        "\t",
        "\x0b",
        "\u2028",
        "\xa0",
        '" ',
        "” ",
        ") ",
        "D.D. ",
        "ex. ",
        "Ver. ",
        "Efeito.Efeito",
        "A",
        "É",
        "o",
        "ção",
        "1",
        "-",
        "*",
        "“",
        "(",
        "Carta",
        "monstro",
    ]
)
PROPERTY = settings(max_examples=200, deadline=None, database=None)
TEXTS = st.one_of(st.lists(_PIECES, max_size=40).map("".join), st.text(max_size=80))


def check_segments(source: str, start: int, end: int, segs: list[Segment]) -> None:
    """The segment contract: exact, non-empty, trimmed, inside [start, end), ordered, disjoint."""
    for seg in segs:
        assert start <= seg.start < seg.end <= end
        assert seg.text == source[seg.start : seg.end]
        assert seg.text == seg.text.strip()
        assert seg.text
    for a, b in itertools.pairwise(segs):
        assert a.end <= b.start


@st.composite
def text_and_range(draw: st.DrawFn) -> tuple[str, int, int]:
    text = draw(TEXTS)
    start = draw(st.integers(0, len(text)))
    end = draw(st.integers(start, len(text)))
    return text, start, end


@PROPERTY
@given(text_and_range())
def test_sentences_are_exact_ordered_disjoint_slices(case: tuple[str, int, int]) -> None:
    source, start, end = case
    check_segments(source, start, end, sentences(source, start, end))


@PROPERTY
@given(text_and_range())
def test_sentences_lose_no_text(case: tuple[str, int, int]) -> None:
    """Only whitespace lies between (and around) the sentences of a range."""
    source, start, end = case
    segs = sentences(source, start, end)
    bounds = [start, *itertools.chain.from_iterable((s.start, s.end) for s in segs), end]
    gaps = [source[a:b] for a, b in zip(bounds[::2], bounds[1::2], strict=True)]
    assert all(not g.strip() for g in gaps)


@PROPERTY
@given(text_and_range(), st.lists(st.integers(-5, 90), max_size=8))
def test_split_at_is_exact_ordered_disjoint(case: tuple[str, int, int], cuts: list[int]) -> None:
    source, start, end = case
    segs = split_at(source, start, end, cuts)
    check_segments(source, start, end, segs)
    # No piece straddles a cut that lies inside the range.
    for c in cuts:
        if start < c < end:
            assert not any(s.start < c < s.end for s in segs)


@PROPERTY
@given(TEXTS)
def test_lines_are_the_non_blank_lines(source: str) -> None:
    segs = list(lines(source))
    check_segments(source, 0, len(source), segs)
    assert [s.text for s in segs] == [ln.strip() for ln in source.splitlines() if ln.strip()]
    for s in segs:
        assert len(s.text.splitlines()) == 1


@settings(database=None)
@given(st.text(max_size=30))
def test_trimmed_is_the_stripped_slice_or_none(source: str) -> None:
    seg = trimmed(source, 0, len(source))
    if source.strip():
        assert seg is not None
        assert seg.text == source.strip()
        assert source[seg.start : seg.end] == seg.text
    else:
        assert seg is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Use o D.D. Survivor agora. Depois compre.",
            ["Use o D.D. Survivor agora.", "Depois compre."],
        ),
        ("Um efeito (ex. Jinzo) nega. Fim!", ["Um efeito (ex. Jinzo) nega.", "Fim!"]),
        ("Ativa o Efeito.Depois resolve.", ["Ativa o Efeito.", "Depois resolve."]),
        (
            'Isso é tudo. "Olá" disse ele. 2 cards.',
            ["Isso é tudo.", '"Olá" disse ele.', "2 cards."],
        ),
        ("sem ponto final", ["sem ponto final"]),
        ("   ", []),
    ],
)
def test_sentence_boundaries(text: str, expected: list[str]) -> None:
    assert [s.text for s in sentences(text, 0, len(text))] == expected


def test_sentences_offsets_are_absolute() -> None:
    source = "prefixo. Primeira frase. Segunda frase. sufixo"
    start = source.index("Primeira")
    end = source.index(" sufixo")
    segs = sentences(source, start, end)
    assert [s.text for s in segs] == ["Primeira frase.", "Segunda frase."]
    assert all(source[s.start : s.end] == s.text for s in segs)
