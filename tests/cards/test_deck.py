"""Deck checks: parsing .ydk files and plain lists, every kind of violation with its source,
per-duelist decks, bad input; and the test deck set (tests/data/decks) on the real card table."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import fields
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cards.test_banlist import (
    PAIRS,
    RETRO,
    listing_format,
    real_formats,
    real_records,
    sample_graph,
    sample_records,
)
from kb.cards.banlist import RuleSources
from kb.cards.deck import DeckReport, check_deck, check_decks, parse_deck
from kb.cards.search import CardIndex
from kb.cards.table import CardRecord
from kb.errors import InvalidQuery
from kb.formats import FormatSpec
from kb.graph import KnowledgeGraph

DECKS = Path(__file__).resolve().parents[1] / "data" / "decks"
FILLER = [f"Plain Monster {i:02d}" for i in range(1, 41)]


@pytest.fixture(scope="module")
def index() -> CardIndex:
    return CardIndex(sample_records())


def check(text: str, index: CardIndex, spec: FormatSpec = RETRO) -> DeckReport:
    return check_deck(text, index, spec, RuleSources(sample_graph(), spec))


def plain(main: list[str], extra: list[str] = (), side: list[str] = ()) -> str:  # type: ignore[assignment]
    return "\n".join(["Main:", *main, "Extra:", *extra, "Side:", *side])


def kinds(report: DeckReport) -> Counter[tuple[str | None, str]]:
    return Counter((v.card, v.kind) for v in report.violations)


# --- parsing ---------------------------------------------------------------------------------


def test_ydk_sections_comments_and_bad_lines() -> None:
    parsed = parse_deck(
        "#created by someone\n#main\n55144522\n5318639 \n\n#extra\n44508094\n!side\nnot-a-password\n26202165\n"
    )
    assert parsed.kind == "ydk"
    assert [(e.part, e.password, e.line) for e in parsed.entries] == [
        ("main", 55144522, 3),
        ("main", 5318639, 4),
        ("extra", 44508094, 7),
        ("side", 26202165, 10),
    ]
    assert parsed.malformed == (
        (9, "not-a-password", "expected a card password (digits) in a .ydk file"),
    )


@pytest.mark.parametrize(
    ("line", "count", "name"),
    [
        ("3x Sangan", 3, "Sangan"),
        ("3 x Sangan", 3, "Sangan"),
        ("3xSangan", 3, "Sangan"),
        ("2 Heavy Storm", 2, "Heavy Storm"),
        ("Heavy Storm x2", 2, "Heavy Storm"),
        ("Heavy Storm ×2", 2, "Heavy Storm"),
        ("Sangan", 1, "Sangan"),
        ('1 "Maxx "C""', 1, 'Maxx "C'),
        ("1 X-Saber Airbellum", 1, "X-Saber Airbellum"),
        ("3-Hump Lacooda", 1, "3-Hump Lacooda"),
    ],
)
def test_list_lines(line: str, count: int, name: str) -> None:
    [entry] = parse_deck(line).entries
    assert (entry.count, entry.name, entry.part) == (count, name, "main")


def test_list_headers_in_pt_and_en_with_counts() -> None:
    text = "Deck Principal (40):\nMonstros:\n1 Sangan\nDeck Adicional: 1\n1 Stardust Dragon\nSide Deck\n// a comment\n1 Heavy Storm\n=====\n"
    parsed = parse_deck(text)
    assert parsed.kind == "list"
    assert [(e.part, e.name) for e in parsed.entries] == [
        ("main", "Sangan"),
        ("extra", "Stardust Dragon"),
        ("side", "Heavy Storm"),
    ]
    assert parse_deck("0x Sangan").malformed == (
        (1, "0x Sangan", "a count of 0: list 1 or more copies"),
    )


# --- checks ----------------------------------------------------------------------------------


def test_a_legal_deck(index: CardIndex) -> None:
    report = check(plain(FILLER, ["Stardust Dragon"], ["3 Sangan"]), index)
    assert report.ok and report.violations == []
    assert report.counts.model_dump() == {"main": 40, "extra": 1, "side": 3}


def test_sizes(index: CardIndex) -> None:
    short = check(plain(FILLER[:39]), index)
    assert kinds(short) == Counter({(None, "main-size"): 1})
    assert "39" in short.violations[0].message and short.violations[0].source.authority == "curated"  # type: ignore[union-attr]
    long = check(
        plain([*FILLER, "3 Sangan", "3 Gorz the Emissary of Darkness", *FILLER[:15]]), index
    )
    assert kinds(long) == Counter({(None, "main-size"): 1})
    over = check(
        plain(FILLER, [], ["3 Sangan"] * 5 + ["1 Blackwing - Kalut the Moon Shadow"]), index
    )
    assert (None, "side-size") in kinds(over) and over.counts.side == 16


def test_list_limits_count_across_main_extra_and_side(index: CardIndex) -> None:
    main = [*FILLER[:36], "Pot of Greed", "Mystical Space Typhoon", "2 Bottomless Trap Hole"]
    side = ["Mystical Space Typhoon", "Bottomless Trap Hole", "4 Sangan"]
    report = check(plain(main, [], side), index)
    assert kinds(report) == Counter(
        {
            ("Pot of Greed", "forbidden"): 1,
            ("Mystical Space Typhoon", "limited"): 1,
            ("Bottomless Trap Hole", "semi-limited"): 1,
            ("Sangan", "copies"): 1,
        }
    )
    limited = next(v for v in report.violations if v.kind == "limited")
    assert "1 in Main, 1 in Side" in limited.message
    assert limited.source is not None and limited.source.id == "doc-a/fl/limited/p-01"
    assert [v.kind for v in report.violations] == sorted(v.kind for v in report.violations)


def test_semi_limited_three_and_forbidden_in_side(index: CardIndex) -> None:
    report = check(plain(FILLER, [], ["3 Bottomless Trap Hole", "Pot of Greed"]), index)
    assert kinds(report) == Counter(
        {("Bottomless Trap Hole", "semi-limited"): 1, ("Pot of Greed", "forbidden"): 1}
    )


def test_the_pool_and_one_violation_per_card(index: CardIndex) -> None:
    report = check(plain(FILLER, [], ["3 Effect Veiler", "Future Card", "Future Card"]), index)
    assert kinds(report) == Counter(
        {("Effect Veiler", "not-in-pool"): 1, ("Future Card", "not-in-pool"): 1}
    )
    veiler = next(v for v in report.violations if v.card == "Effect Veiler")
    assert "2010-08-17" in veiler.message and veiler.card_id == "card/effect-veiler"
    assert veiler.source is not None and veiler.source.id == "doc-a/pool/p-01"


def test_extra_deck_monsters_only_in_the_extra_deck(index: CardIndex) -> None:
    report = check(plain([*FILLER[:39], "Stardust Dragon"], ["Sangan"]), index)
    assert kinds(report) == Counter(
        {("Stardust Dragon", "misplaced"): 1, ("Sangan", "misplaced"): 1}
    )
    assert report.violations[0].source.id == "concept/extra-deck"  # type: ignore[union-attr]


def test_unknown_cards_and_malformed_lines_name_the_line(index: CardIndex) -> None:
    report = check(plain([*FILLER[:38], "2x Plain Monstre Zero", "3 Potion of Grid"]), index)
    unknown = [v for v in report.violations if v.kind == "unknown-card"]
    assert [v.line for v in unknown] == [40, 41]
    assert "line 41: 'Potion of Grid' names no card" in unknown[1].message
    assert "Pot of Greed" in unknown[1].suggestions
    assert report.counts.main == 43  # unknown entries still counted
    ydk = check("#main\n" + "\n".join(["26202165"] * 3 + ["12345678", "55144522x"]), index)
    messages = [v.message for v in ydk.violations]
    assert "line 5: password 12345678 is no known card" in messages
    assert any(m.startswith("line 6: '55144522x' is not a card line") for m in messages)


def test_every_violation_from_lines_names_them(index: CardIndex) -> None:
    """`lines` holds every line at fault; `line` is where the deck, read down, goes wrong."""
    main = [*FILLER[:36], "Pot of Greed", "Mystical Space Typhoon", "2 Stardust Dragon"]
    side = ["2 Mystical Space Typhoon", "2 Sangan", "2 Sangan"]
    text = plain(main, ["Sangan"], side)
    # line 1 "Main:", 2..37 filler, 38 Pot, 39 MST, 40 Stardust, 41 "Extra:", 42 Sangan,
    # 43 "Side:", 44 MST x2, 45 Sangan x2, 46 Sangan x2
    report = check(text, index)
    by = {(v.card, v.kind): v for v in report.violations}
    assert (by["Pot of Greed", "forbidden"].line, by["Pot of Greed", "forbidden"].lines) == (
        38,
        [38],
    )
    limited = by["Mystical Space Typhoon", "limited"]
    assert (limited.line, limited.lines) == (44, [39, 44])  # the second copy is on line 44
    assert "(1 in Main, 2 in Side; lines 39, 44), past the limit from line 44" in limited.message
    copies = by["Sangan", "copies"]
    assert (copies.line, copies.lines) == (46, [42, 45, 46])  # the 4th copy
    assert (by["Stardust Dragon", "misplaced"].line, by["Stardust Dragon", "misplaced"].lines) == (
        40,
        [40],
    )
    assert (by["Sangan", "misplaced"].line, by["Sangan", "misplaced"].lines) == (42, [42])
    short = check(plain(FILLER[:39]), index).violations[0]
    assert (short.kind, short.line, short.lines) == ("main-size", None, [])
    over = check(plain(FILLER, [], ["3 Sangan"] * 5 + ["Pot of Greed"]), index)
    side_size = next(v for v in over.violations if v.kind == "side-size")
    # the 16th Side card is line 49 ("Main:", 40 filler, "Extra:", "Side:", five lines of 3)
    assert (side_size.line, side_size.lines) == (49, [49]) and "line 49" in side_size.message


def test_typos_and_missing_accents_are_resolved_and_listed(index: CardIndex) -> None:
    report = check(
        plain(
            [
                *FILLER[:37],
                "Tufao Espacial Mistico",
                "Asanegra - Kalut, a Lua Sombira",
                "gorz the emisary of darkness",
            ]
        ),
        index,
    )
    assert report.ok, report.violations
    assert {(r.entry, r.card) for r in report.resolved} == {
        ("Tufao Espacial Mistico", "Mystical Space Typhoon"),
        ("Asanegra - Kalut, a Lua Sombira", "Blackwing - Kalut the Moon Shadow"),
        ("gorz the emisary of darkness", "Gorz the Emissary of Darkness"),
    }
    exact = check(plain([*FILLER[:39], "tufão espacial místico"]), index)
    assert exact.resolved == []  # only case differs: the name as written


def test_a_whole_line_that_is_a_name_wins_over_a_count() -> None:
    records = [
        *sample_records(),
        CardRecord(
            slug="7-colored-fish", name_en="7 Colored Fish", password=23771716, edison_pool=True
        ),
    ]
    report = check(plain([*FILLER[:39], "7 Colored Fish"]), CardIndex(records))
    assert report.ok and report.counts.main == 40


def test_each_duelist_checks_their_own_deck(index: CardIndex) -> None:
    sources = RuleSources(sample_graph(), PAIRS)
    one = plain([*FILLER[:39], "Mystical Space Typhoon"])
    both = check_decks([one, one], index, PAIRS, sources)
    assert both.ok and [d.ok for d in both.decks] == [True, True]
    assert both.counts.main == 80
    two = plain([*FILLER[:38], "2 Mystical Space Typhoon"])
    mixed = check_decks([one, two], index, PAIRS, sources)
    assert not mixed.ok and [(v.duelist, v.kind) for v in mixed.violations] == [(2, "limited")]
    with pytest.raises(InvalidQuery, match="one deck per player"):
        check_decks([one, one], index, RETRO, RuleSources(sample_graph(), RETRO))
    with pytest.raises(InvalidQuery, match=r"decks\.1"):
        check_decks([one, "???"], index, PAIRS, sources)


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("\n\n", "no card entries"),
        ("#main\nabc\n", "line 2"),
        ('{"main": []}', "no card entries"),
    ],
)
def test_input_without_cards_is_an_invalid_query(index: CardIndex, text: str, needle: str) -> None:
    with pytest.raises(InvalidQuery, match=needle):
        check(text, index)


def test_a_deck_over_the_cap_and_a_format_without_deck_rules(index: CardIndex) -> None:
    with pytest.raises(InvalidQuery, match="lists 300 cards; the limit is 200"):
        check("100 Sangan\n100 Sangan\n100 Sangan", index)
    bare = FormatSpec("bare", "B", "B")
    with pytest.raises(InvalidQuery, match="declares no deck rules"):
        check_deck("Sangan", index, bare, RuleSources(KnowledgeGraph([], []), bare))


# --- the test deck set on the real card table ----------------------------------------------------


def _deck_files() -> list[Path]:
    return sorted(DECKS.glob("*.expected.json"))


@pytest.fixture(scope="module")
def real_index() -> CardIndex:
    return CardIndex(real_records())


@pytest.mark.parametrize("expected_file", _deck_files(), ids=lambda p: p.name.split(".")[0])
def test_the_test_decks(expected_file: Path, real_index: CardIndex) -> None:
    expected = json.loads(expected_file.read_text("utf-8"))
    stem = expected_file.name.removesuffix(".expected.json")
    [deck] = [p for p in DECKS.glob(stem + ".*") if p.suffix in (".ydk", ".txt")]
    formats = real_formats()
    if expected["format"] == listing_format(formats).id:
        spec = listing_format(formats)
    else:
        spec = next(s for s in formats.specs if s.per_duelist_decks)
        assert spec.banlist is not None
        if spec.banlist.field not in {f.name for f in fields(CardRecord)}:
            pytest.skip(f"the card table has no {spec.banlist.field!r} column yet")
    report = check_deck(
        deck.read_text("utf-8"), real_index, spec, RuleSources(KnowledgeGraph([], []), spec)
    )
    assert report.counts.model_dump() == expected["counts"]
    assert kinds(report) == Counter((v["card"], v["kind"]) for v in expected["violations"])
    assert report.ok is expected["ok"]
    want = {(r["entry"], r["card"]) for r in expected.get("resolved", [])}
    assert {(r.entry, r.card) for r in report.resolved} == want


def test_violations_cite_the_real_documents(kg: KnowledgeGraph) -> None:
    records = real_records()
    spec = listing_format(real_formats())
    deck = (DECKS / "edison_many_violations.ydk").read_text("utf-8")
    report = check_deck(deck, CardIndex(records), spec, RuleSources(kg, spec))
    cited = {v.kind: v.source for v in report.violations}
    for kind in ("forbidden", "limited", "not-in-pool"):
        source = cited[kind]
        assert source is not None and source.authority == "document"
        assert source.document is not None and kg.format_of(source.id) == spec.id
    assert cited["main-size"] is not None and cited["main-size"].authority == "curated"


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=400))
def test_any_text_is_a_report_or_an_invalid_query(text: str) -> None:
    index = CardIndex(sample_records())
    try:
        report = check(text, index)
    except InvalidQuery:
        return
    assert report.ok == (not report.violations)
    assert sum(report.counts.model_dump().values()) >= 1
