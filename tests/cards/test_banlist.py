"""Format card rules as data: pool membership, the F&L list, one card's legality, the EDOPro
lflist.conf, the rule passage behind each rule; and the real list (45/70/20) when the card-facts
table is present.

The sample records and formats here are shared by the other card tests (test_deck,
test_card_search, test_card_routes).
"""

from __future__ import annotations

import csv
from dataclasses import fields
from pathlib import Path

import pytest
import yaml

from kb.cards.banlist import (
    RuleSources,
    banlist,
    check_card_fields,
    in_pool,
    legality,
    lflist,
    limit_of,
    status_of,
)
from kb.cards.table import CardRecord, parse_table
from kb.errors import InvalidQuery
from kb.formats import BanlistSpec, DeckSizes, Formats, FormatSpec, parse_specs, spec_from_node
from kb.graph import KnowledgeGraph
from kb.model import Fact, Node, Span

REPO = Path(__file__).resolve().parents[2]
CARD_TABLE = REPO / "corpus" / "carddb" / "cards.tsv"
CARDDATA = REPO.parent / "shared" / "carddata"
SIZES = DeckSizes(40, 60, 15, 15)

# --- sample data (hand-made) -------------------------------------------------------------------

RETRO = FormatSpec(
    "retro",
    "Formato Retrô",
    "Retro Format",
    card_pool="edison_pool",
    banlist=BanlistSpec("tcg_2010_03", "2010-03-01", "A hand-made list for tests"),
    deck=SIZES,
)
PAIRS = FormatSpec(
    "pairs",
    "Duelo em Pares",
    "Pair Duel",
    banlist=BanlistSpec("tcg_2010_03", "current", "The same hand-made list"),
    deck=SIZES,
    per_duelist_decks=True,
)
BARE = FormatSpec("bare", "Sem regras", "No card rules")


def _card(slug: str, en: str, pt: str | None, password: int | None, **kw: object) -> CardRecord:
    kw.setdefault("edison_pool", True)
    kw.setdefault("first_tcg_date", "2005-01-01")
    return CardRecord(slug=slug, name_en=en, name_pt=pt, password=password, **kw)  # type: ignore[arg-type]


def sample_records() -> list[CardRecord]:
    """A few real-looking cards plus 40 plain monsters to fill decks."""
    named = [
        _card(
            "pot-of-greed",
            "Pot of Greed",
            "Pote da Ganância",
            55144522,
            card_type="spell",
            property="normal",
            tcg_2010_03=0,
        ),
        _card(
            "mystical-space-typhoon",
            "Mystical Space Typhoon",
            "Tufão Espacial Místico",
            5318639,
            card_type="spell",
            property="quick-play",
            tcg_2010_03=1,
        ),
        _card(
            "heavy-storm",
            "Heavy Storm",
            "Tempestade Pesada",
            19613556,
            card_type="spell",
            property="normal",
            tcg_2010_03=1,
        ),
        _card(
            "bottomless-trap-hole",
            "Bottomless Trap Hole",
            "Buraco Armadilha Sem Fundo",
            29401950,
            card_type="trap",
            property="normal",
            tcg_2010_03=2,
        ),
        _card(
            "sangan",
            "Sangan",
            "Sangan",
            26202165,
            attribute="DARK",
            race="Fiend",
            monster_classes=("effect",),
            level=3,
            atk=1000,
            defense=600,
        ),
        _card(
            "gorz-the-emissary-of-darkness",
            "Gorz the Emissary of Darkness",
            "Gorz, o Emissário da Escuridão",
            44330098,
            attribute="DARK",
            race="Fiend",
            monster_classes=("effect",),
            level=7,
            atk=2700,
            defense=2500,
        ),
        _card(
            "blackwing-kalut-the-moon-shadow",
            "Blackwing - Kalut the Moon Shadow",
            "Asanegra - Kalut, a Lua Sombria",
            85215458,
            attribute="DARK",
            race="Winged Beast",
            monster_classes=("effect",),
            level=3,
            atk=1400,
            defense=1000,
        ),
        _card(
            "stardust-dragon",
            "Stardust Dragon",
            "Dragão da Poeira Estelar",
            44508094,
            attribute="WIND",
            race="Dragon",
            monster_classes=("synchro", "effect"),
            level=8,
            atk=2500,
            defense=2000,
        ),
        _card(
            "effect-veiler",
            "Effect Veiler",
            "Ocultador de Efeitos",
            97268402,
            attribute="LIGHT",
            race="Spellcaster",
            monster_classes=("tuner", "effect"),
            level=1,
            atk=0,
            defense=0,
            edison_pool=False,
            first_tcg_date="2010-08-17",
        ),
        _card(
            "future-card",
            "Future Card",
            "Card do Futuro",
            11111111,
            card_type="spell",
            property="normal",
            edison_pool=False,
            first_tcg_date=None,
            tcg_2010_03=2,
        ),
        _card(
            "maxx-c",
            'Maxx "C"',
            '"C" Maxx',
            23434538,
            attribute="EARTH",
            race="Insect",
            monster_classes=("effect",),
            level=2,
            edison_pool=False,
            first_tcg_date="2011-02-08",
        ),
        _card(
            "passwordless", "Passwordless Wonder", None, None, card_type="trap", property="counter"
        ),
    ]
    fillers = [
        _card(
            f"plain-monster-{i:02d}",
            f"Plain Monster {i:02d}",
            f"Monstro Comum {i:02d}",
            90000000 + i,
            attribute="EARTH",
            race="Warrior",
            monster_classes=("normal",),
            level=4,
            atk=1000 + i,
            defense=1000,
        )
        for i in range(1, 41)
    ]
    return named + fillers


def sample_formats() -> Formats:
    return Formats((BARE, RETRO, PAIRS))


def by_name(records: list[CardRecord], name: str) -> CardRecord:
    return next(r for r in records if r.name_en == name)


# --- a hand-made graph: two documents of two formats, passages mentioning the concepts ----------


def sample_graph() -> KnowledgeGraph:
    doc_text = {
        "doc-a/fl/limited/p-01": (
            "Você só pode ter no máximo uma cópia de um card Limitado.",
            ["concept/limited", "concept/copy", "concept/main-deck"],
        ),
        "doc-a/fl/limited/p-02": ("Os seguintes cards são Limitados:", ["concept/limited"]),
        "doc-a/fl/forbidden/p-01": ("Cards Proibidos não podem ser usados.", ["concept/forbidden"]),
        "doc-b/p-01": (
            "No outro formato, Proibidos também não.",
            ["concept/forbidden", "concept/semi-limited"],
        ),
    }
    nodes = [
        Node("doc-a", "Document", label_pt="A"),
        Node("doc-b", "Document", label_pt="B"),
        Node(
            "doc-a/pool",
            "Section",
            text="Conjunto de Cards",
            span=Span("doc-a", 0, 17),
            parent="doc-a",
        ),
        Node(
            "doc-a/pool/p-01",
            "Passage",
            text="Os seguintes cards estão incluídos:",
            span=Span("doc-a", 18, 53),
            parent="doc-a/pool",
            order=1,
        ),
        Node(
            "concept/extra-deck",
            "Concept",
            label_en="Extra Deck",
            props={"definition_en": "Where Fusion and Synchro monsters wait."},
        ),
    ]
    facts = [
        Fact("doc-a", "applies_in", "format/retro", "doc-a", "document"),
        Fact("doc-b", "applies_in", "format/pairs", "doc-b", "document"),
        Fact("doc-a/pool", "about", "concept/card-pool", "doc-a/pool", "document"),
    ]
    start = 100
    for nid, (text, concepts) in doc_text.items():
        doc = nid.split("/")[0]
        nodes.append(
            Node(nid, "Passage", text=text, span=Span(doc, start, start + len(text)), parent=doc)
        )
        facts += [Fact(nid, "mentions", c, nid, "document") for c in concepts]
        start += len(text) + 1
    return KnowledgeGraph(nodes, facts)


def real_records() -> list[CardRecord]:
    if not CARD_TABLE.exists():
        pytest.skip("corpus/carddb/cards.tsv is absent")
    return parse_table(CARD_TABLE.read_text("utf-8"), str(CARD_TABLE))[1]


def real_formats() -> Formats:
    manifest = yaml.safe_load((REPO / "corpus" / "manifest.yaml").read_text("utf-8"))
    return Formats(tuple(parse_specs(manifest["formats"], "manifest")))


def listing_format(formats: Formats) -> FormatSpec:
    """The real format with a pool and a list (found by its declarations, not by name)."""
    return next(s for s in formats.specs if s.card_pool and s.banlist)


# --- specs ---------------------------------------------------------------------------------------


def test_card_rules_survive_the_format_node_round_trip() -> None:
    for spec in (RETRO, PAIRS, BARE):
        node = Node(
            spec.node_id,
            "Format",
            label_pt=spec.label_pt,
            label_en=spec.label_en,
            props=spec.props(),
        )
        assert spec_from_node(node) == spec
    assert "banlist" not in BARE.props() and "deck" not in BARE.props()


def test_manifest_card_rules_are_parsed_and_checked() -> None:
    base = {"id": "x", "label_pt": "X", "label_en": "X"}
    loaded = yaml.safe_load("effective: 2010-03-01")  # YAML reads a date
    [spec] = parse_specs(
        [
            {
                **base,
                "card_pool": "edison_pool",
                "deck": {"main_min": 40, "main_max": 60, "extra_max": 15, "side_max": 15},
                "banlist": {
                    "field": "tcg_2010_03",
                    "effective": loaded["effective"],
                    "provenance": "p",
                },
                "per_duelist_decks": True,
                "as_of": loaded["effective"],
            }
        ],
        "m",
    )
    assert spec.as_of == "2010-03-01"
    assert spec.banlist == BanlistSpec("tcg_2010_03", "2010-03-01", "p")
    assert spec.deck == SIZES and spec.per_duelist_decks and spec.card_pool == "edison_pool"
    bad = [
        {"card_pool": "Not A Field"},
        {"banlist": {"field": "tcg_2010_03"}},
        {"banlist": {"field": "x", "effective": "e", "provenance": "p", "extra": 1}},
        {"deck": {"main_min": 40}},
        {"deck": {"main_min": 61, "main_max": 60, "extra_max": 15, "side_max": 15}},
        {"deck": {"main_min": "forty", "main_max": 60, "extra_max": 15, "side_max": 15}},
        {"per_duelist_decks": "yes"},
        {"as_of": "March 2010"},
    ]
    for extra in bad:
        with pytest.raises(ValueError, match="format 'x'"):
            parse_specs([{**base, **extra}], "m")


def test_the_real_manifest_declares_a_pool_a_list_and_per_duelist_decks() -> None:
    formats = real_formats()
    listing = listing_format(formats)
    assert listing.banlist is not None and listing.banlist.effective == "2010-03-01"
    assert "Konami" in listing.banlist.provenance
    assert listing.deck == SIZES
    assert any(s.per_duelist_decks and s.deck for s in formats.specs)


# --- statuses and legality -----------------------------------------------------------------------


def test_status_and_limit_follow_pool_and_list() -> None:
    records = sample_records()
    expect = {
        "Pot of Greed": ("forbidden", 0),
        "Mystical Space Typhoon": ("limited", 1),
        "Bottomless Trap Hole": ("semi-limited", 2),
        "Sangan": ("unlimited", 3),
        "Effect Veiler": ("not-in-pool", 0),
        "Future Card": ("not-in-pool", 0),
    }
    for name, (status, limit) in expect.items():
        r = by_name(records, name)
        assert (status_of(r, RETRO), limit_of(r, RETRO)) == (status, limit), name
    # Without a pool every card is in it; the list still applies.
    assert in_pool(by_name(records, "Effect Veiler"), PAIRS)
    assert limit_of(by_name(records, "Future Card"), PAIRS) == 2


def test_legality_states_the_reason_and_release_date() -> None:
    records = sample_records()
    veiler = legality(by_name(records, "Effect Veiler"), RETRO)
    assert not veiler.legal and veiler.limit == 0 and veiler.status == "not-in-pool"
    assert "2010-08-17" in veiler.reason and veiler.first_tcg_date == "2010-08-17"
    mst = legality(by_name(records, "Mystical Space Typhoon"), RETRO)
    assert mst.legal and mst.limit == 1 and "Limited" in mst.reason
    assert (
        mst.card.id == "card/mystical-space-typhoon"
        and mst.card.name_pt == "Tufão Espacial Místico"
    )
    with pytest.raises(InvalidQuery, match="declares no card pool"):
        legality(by_name(records, "Sangan"), BARE)


# --- the list and lflist.conf --------------------------------------------------------------------


def test_banlist_groups_the_listed_cards_with_provenance() -> None:
    result = banlist(sample_records(), RETRO)
    assert result.counts == {"forbidden": 1, "limited": 2, "semi_limited": 2}
    assert [c.name_en for c in result.limited] == ["Heavy Storm", "Mystical Space Typhoon"]
    assert {c.name_en: c.in_pool for c in result.semi_limited} == {
        "Bottomless Trap Hole": True,
        "Future Card": False,
    }
    assert result.effective == "2010-03-01" and result.provenance.startswith("A hand-made")
    assert result.pool is not None and result.pool.size == len(sample_records()) - 3
    assert banlist(sample_records(), PAIRS).semi_limited[1].in_pool is None
    with pytest.raises(InvalidQuery, match="no Forbidden & Limited list"):
        banlist(sample_records(), BARE)


def _lflist_counts(text: str) -> dict[int, int]:
    out = {}
    for line in text.splitlines():
        if line and line[0].isdigit():
            password, count, _ = line.split(" ", 2)
            out[int(password)] = int(count)
    return out


def test_lflist_whitelists_the_pool_with_each_cards_count() -> None:
    records = sample_records()
    text = lflist(records, RETRO)
    lines = text.splitlines()
    assert lines[1] == "!Retro Format 2010-03-01" and "$whitelist" in lines
    counts = _lflist_counts(text)
    assert counts[55144522] == 0 and counts[5318639] == 1 and counts[29401950] == 2
    assert counts[26202165] == 3
    assert 97268402 not in counts and 11111111 not in counts  # outside the pool: not whitelisted
    assert "5318639 1 --Mystical Space Typhoon" in lines
    assert "# 1 card(s) without a password left out" in lines
    # Without a pool: no whitelist, only the list's cards.
    pairs = lflist(records, PAIRS)
    assert "$whitelist" not in pairs and set(_lflist_counts(pairs)) == {
        55144522,
        5318639,
        19613556,
        29401950,
        11111111,
    }


def test_a_field_the_card_data_lacks_is_a_clear_error() -> None:
    lacking = FormatSpec("z", "Z", "Z", banlist=BanlistSpec("tcg_someday", "x", "p"))
    with pytest.raises(InvalidQuery, match="'tcg_someday', which the loaded card data"):
        banlist(sample_records(), lacking)
    unset = [CardRecord(slug="a", name_en="A")]  # no card is in the pool: the data lacks it
    with pytest.raises(InvalidQuery, match="which no loaded card has set"):
        check_card_fields(RETRO, unset)
    # A field carried in a record's extras counts.
    extra = FormatSpec("z", "Z", "Z", banlist=BanlistSpec("tcg_someday", "x", "p"))
    carried = [CardRecord(slug="a", name_en="A", extra={"tcg_someday": 1})]
    assert banlist(carried, extra).counts["limited"] == 1


# --- the rule behind each card rule --------------------------------------------------------------


def test_rule_sources_come_from_the_formats_own_documents() -> None:
    kg = sample_graph()
    retro = RuleSources(kg, RETRO)
    limited = retro.source("limited")
    assert limited is not None and limited.authority == "document"
    assert limited.id == "doc-a/fl/limited/p-01"  # mentions copy and main deck: more specific
    assert limited.document == "doc-a" and limited.end - limited.start == len(limited.text)
    assert retro.source("forbidden").id == "doc-a/fl/forbidden/p-01"  # type: ignore[union-attr]
    pool = retro.source("not-in-pool")
    assert pool is not None and pool.id == "doc-a/pool/p-01"  # the section's first passage
    # No passage of this format states these: the manifest's declaration, authority curated.
    semi = retro.source("semi-limited")
    assert semi is not None and semi.authority == "curated" and semi.id == "format/retro"
    size = retro.source("main-size")
    assert size is not None and size.authority == "curated" and "40 to 60" in size.text
    misplaced = retro.source("misplaced")
    assert misplaced is not None and misplaced.id == "concept/extra-deck"
    # The other format's document is cited for that format only.
    pairs = RuleSources(kg, PAIRS)
    assert pairs.source("semi-limited").id == "doc-b/p-01"  # type: ignore[union-attr]
    assert pairs.source("not-in-pool") is None  # no pool, no pool rule


def test_deck_size_passages_must_state_the_numbers() -> None:
    text = "O Deck Principal tem de 40 a 60 cards."
    nodes = [
        Node("d", "Document"),
        Node(
            "d/p-01",
            "Passage",
            text="O Deck Principal é embaralhado.",
            span=Span("d", 0, 31),
            parent="d",
        ),
        Node("d/p-02", "Passage", text=text, span=Span("d", 40, 40 + len(text)), parent="d"),
    ]
    facts = [
        Fact("d", "applies_in", "format/retro", "d", "document"),
        Fact("d/p-01", "mentions", "concept/main-deck", "d/p-01", "document"),
        Fact("d/p-02", "mentions", "concept/main-deck", "d/p-02", "document"),
    ]
    source = RuleSources(KnowledgeGraph(nodes, facts), RETRO).source("main-size")
    assert source is not None and source.id == "d/p-02"


# --- the real list (skips without the card-facts table) ------------------------------------------


def test_the_real_list_is_konamis_march_2010_list() -> None:
    records = real_records()
    spec = listing_format(real_formats())
    result = banlist(records, spec)
    assert result.counts == {"forbidden": 45, "limited": 70, "semi_limited": 20}
    listed = result.forbidden + result.limited + result.semi_limited
    assert len({c.id for c in listed}) == 135
    assert sum(c.in_pool is False for c in listed) == 3  # not yet released in the TCG
    names = {c.name_en for c in result.forbidden}
    assert {"Pot of Greed", "Change of Heart", "Painful Choice"} <= names
    assert "Mystical Space Typhoon" in {c.name_en for c in result.limited}
    official = CARDDATA / "tcg_banlist_2010-03-01.tsv"
    if official.exists():
        with official.open(encoding="utf-8") as f:
            rows = list(csv.DictReader(f, delimiter="\t"))
        want = {(int(r["status"]), r["name_en"]) for r in rows if r["status"] in "012"}
        got = {
            (s, c.name_en)
            for s, group in enumerate((result.forbidden, result.limited, result.semi_limited))
            for c in group
        }
        assert got == want


def test_the_real_lflist_agrees_with_edopros_edison_list() -> None:
    records = real_records()
    spec = listing_format(real_formats())
    ours = _lflist_counts(lflist(records, spec))
    theirs_file = CARDDATA / "raw" / "ProjectIgnis_LFLists" / "2010.03 Edison.lflist.conf"
    if not theirs_file.exists():
        pytest.skip("shared/carddata is absent")
    theirs = _lflist_counts(theirs_file.read_text("utf-8"))
    differ = {p for p in set(ours) | set(theirs) if ours.get(p) != theirs.get(p)}
    assert len(ours) > 3500
    assert len(differ) <= 10, sorted(differ)  # 4 when written: the data agree to a few cards


def test_record_fields_named_by_the_real_specs_exist_or_are_reported() -> None:
    names = {f.name for f in fields(CardRecord)}
    for spec in real_formats().specs:
        for field in (spec.card_pool, spec.banlist.field if spec.banlist else None):
            if field and field not in names:
                with pytest.raises(InvalidQuery, match=repr(field)):
                    check_card_fields(spec, sample_records())
