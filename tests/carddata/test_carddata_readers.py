"""The readers of each public format, on small files written in those formats (invented cards)."""

from __future__ import annotations

from pathlib import Path

import pytest
from carddata_support import (  # type: ignore[import-not-found]
    write_json,
    write_sqlite,
    yaml_yugi_card,
    ygoprodeck_card,
)

from ingest.carddata import detect_format
from ingest.carddata.draft import card_type_of, classes_of, property_of
from ingest.carddata.lflist import parse_lflist, read_lflist
from ingest.carddata.sqlite_source import read_sqlite
from ingest.carddata.yaml_yugi import plain_name, read_yaml_yugi
from ingest.carddata.ygoprodeck import read_ygoprodeck
from kb.errors import IngestError

# ------------------------------------------------------------------ vocabulary


def test_vocabulary_mapping():
    assert card_type_of("Monster") == "monster"
    assert card_type_of("Spell Card") == "spell"
    assert card_type_of("Synchro Tuner Monster") == "monster"
    assert card_type_of("Skill Card") is None
    assert property_of("Quick-Play") == "quick-play"
    assert property_of("Counter") == "counter"
    assert property_of("Warrior") is None
    assert classes_of(["XYZ", "Pendulum", "Effect"]) == ("xyz", "pendulum", "effect")
    # old type lines omit "Effect" for Union/Spirit/Toon/Gemini/Flip monsters
    assert classes_of(["Union"]) == ("union", "effect")


# ------------------------------------------------------------------ sqlite


def test_sqlite_reader(sqlite_file: Path):
    drafts = {d.password: d for d in read_sqlite(sqlite_file)}
    wisp = drafts[10000001]
    assert (wisp.name_en, wisp.name_pt, wisp.konami_id) == (
        "Lantern Wisp",
        "Fogo-Fátuo da Lanterna",
        90001,
    )
    assert (wisp.card_type, wisp.attribute, wisp.race, wisp.level) == ("monster", "FIRE", "Pyro", 4)
    assert wisp.monster_classes == ("effect",)
    assert (wisp.edison_pool, wisp.edison_limit) == (True, 3)
    assert "Special Summon this card" in wisp.texts["en"]
    verdict = drafts[10000002]
    assert (verdict.card_type, verdict.property, verdict.tcg_2010_03) == ("trap", "counter", 1)
    assert drafts[10000003].edison_pool is False


def test_sqlite_reader_rejects_other_databases(tmp_path: Path):
    import sqlite3

    path = tmp_path / "other.sqlite"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE decks(id INTEGER)")
    con.commit()
    con.close()
    with pytest.raises(IngestError, match="no table 'cards'"):
        read_sqlite(path)


# ------------------------------------------------------------------ yaml-yugi


def test_yaml_yugi_file_and_folder(tmp_path: Path):
    folder = tmp_path / "cards"
    folder.mkdir()
    write_json(folder / "10000001.json", yaml_yugi_card())
    write_json(
        folder / "10000005.json",
        yaml_yugi_card(
            10000005,
            konami_id=90005,
            name={"en": "Gale Lance", "pt": "Lança do Vendaval", "it": "Lancia della Burrasca"},
            text={"en": "The equipped monster gains 400 ATK."},
            card_type="Spell",
            property="Equip",
        ),
    )
    drafts = read_yaml_yugi(folder)
    assert [d.password for d in drafts] == [10000001, 10000005]
    wisp, lance = drafts
    assert wisp.dataset == "yaml-yugi"
    # other languages are aliases; ruby readings are dropped, romanisations are not aliases
    assert wisp.aliases == ("Laternenirrlicht", "Feu Follet à Lanterne", "灯の鬼火")
    assert (wisp.race, wisp.monster_classes) == ("Pyro", ("effect",))
    assert (lance.card_type, lance.property, lance.aliases) == (
        "spell",
        "equip",
        ("Lancia della Burrasca",),
    )
    assert read_yaml_yugi(folder / "10000001.json")[0].name_en == "Lantern Wisp"


def test_plain_name_drops_ruby_markup():
    assert plain_name("<ruby>灯<rt>とう</rt></ruby>") == "灯"


def test_yaml_yugi_malformed_json_names_file_and_line(tmp_path: Path):
    path = tmp_path / "bad.json"
    path.write_text('{"password": 1,\n "name": {"en": "X"\n', "utf-8")
    with pytest.raises(IngestError) as err:
        read_yaml_yugi(path)
    assert err.value.path == str(path) and err.value.line is not None


# ------------------------------------------------------------------ YGOPRODeck


def _response(tmp_path: Path, name: str, cards: list[dict]) -> Path:
    return write_json(tmp_path / name, {"data": cards})


def test_ygoprodeck_english_response(tmp_path: Path):
    path = _response(
        tmp_path,
        "cardinfo.json",
        [
            ygoprodeck_card(
                10000006,
                "Rank-Up Warden",
                type="XYZ Monster",
                frameType="xyz",
                typeline=["Warrior", "Xyz", "Effect"],
                level=4,
                desc="2 Level 4 monsters\nOnce per turn: You can detach 1 material; draw 1 card.",
            ),
            ygoprodeck_card(
                10000007,
                "Net Sentinel",
                type="Link Monster",
                frameType="link",
                race="Cyberse",
                linkval=2,
                linkmarkers=["Bottom-Left", "Bottom-Right"],
                desc="2 monsters\nMonsters this card points to cannot be destroyed by battle.",
            ),
            ygoprodeck_card(
                10000008, "Sky Toll", type="Spell Card", frameType="spell", race="Continuous"
            ),
            ygoprodeck_card(
                10000009, "Mill Skill", type="Skill Card", frameType="skill", race="Kaiba"
            ),
        ],
    )
    assert detect_format(path) == "ygoprodeck"
    drafts = {d.password: d for d in read_ygoprodeck(path)}
    assert set(drafts) == {10000006, 10000007, 10000008}  # Skill Cards are not game cards
    xyz = drafts[10000006]
    assert (xyz.rank, xyz.level, xyz.monster_classes) == (4, None, ("xyz", "effect"))
    assert (xyz.konami_id, xyz.first_tcg_date) == (6, "2009-05-05")
    link = drafts[10000007]
    assert (link.link_rating, link.defense, link.monster_classes) == (2, None, ("link",))
    assert (drafts[10000008].card_type, drafts[10000008].property) == ("spell", "continuous")


def test_ygoprodeck_portuguese_variant(tmp_path: Path):
    path = _response(
        tmp_path,
        "cardinfo_pt.json",
        [
            ygoprodeck_card(
                10000001,
                "Fogo-Fátuo da Lanterna",
                name_en="Lantern Wisp",
                race="Pyro",
                attribute="FIRE",
                desc="Se este card for enviado para o Cemitério: você pode comprar 1 card.",
            )
        ],
    )
    (d,) = read_ygoprodeck(path)
    assert (d.name_en, d.name_pt, d.dataset) == (
        "Lantern Wisp",
        "Fogo-Fátuo da Lanterna",
        "ygoprodeck-pt",
    )
    assert "pt" in d.texts and "en" not in d.texts


def test_ygoprodeck_translated_response_without_language_in_the_name_is_portuguese(tmp_path: Path):
    path = _response(
        tmp_path, "cards.json", [ygoprodeck_card(10000001, "Fogo-Fátuo", name_en="Lantern Wisp")]
    )
    assert read_ygoprodeck(path)[0].name_pt == "Fogo-Fátuo"


def test_ygoprodeck_pendulum_text_is_split(tmp_path: Path):
    desc = (
        "[ Pendulum Effect ]\nOnce per turn: You can draw 1 card.\n"
        "----------------------------------------\n[ Monster Effect ]\nA bard of the hills."
    )
    path = _response(
        tmp_path,
        "cardinfo.en.json",
        [ygoprodeck_card(10000010, "Hill Bard", type="Pendulum Normal Monster", desc=desc)],
    )
    (d,) = read_ygoprodeck(path)
    assert d.texts == {
        "en": "A bard of the hills.",
        "pendulum_en": "Once per turn: You can draw 1 card.",
    }
    assert d.monster_classes == ("pendulum", "normal")


def test_ygoprodeck_duplicate_ids_are_an_error(tmp_path: Path):
    path = _response(
        tmp_path, "cardinfo.json", [ygoprodeck_card(10000001, "A"), ygoprodeck_card(10000001, "B")]
    )
    with pytest.raises(IngestError, match=r"data\[1\].*duplicate card id 10000001"):
        read_ygoprodeck(path)


# ------------------------------------------------------------------ lflist.conf

LFLIST = """#[2010.03 Invented Edison][Other]
!2010.03 Invented Edison
--StartDate 2010-03-01
$whitelist
#forbidden
10000002 0 --Verdict of the Silent Court
#limited
10000001 1 --Lantern Wisp
10000003 3 --Moss Golem
!Other
10000001 2 --Lantern Wisp
"""


def test_lflist_reader(tmp_path: Path):
    path = tmp_path / "edison.lflist.conf"
    path.write_text(LFLIST, "utf-8")
    assert detect_format(path) == "lflist"
    first, second = read_lflist(path)
    assert (first.name, first.whitelist, len(first.entries)) == ("2010.03 Invented Edison", True, 3)
    assert first.entries[0].password == 10000002 and first.entries[0].count == 0
    assert first.entries[0].comment == "Verdict of the Silent Court"
    assert (second.name, second.whitelist) == ("Other", False)


@pytest.mark.parametrize(
    ("text", "message", "line"),
    [
        ("!A\n10000001 1\n10000001 2\n", "duplicate entry 10000001", 3),
        ("!A\n10000001 seven\n", "expected 'password count", 2),
        ("!A\n10000001 5\n", "count 5", 2),
        ("10000001 1\n!A\n", "before the first", 1),
    ],
)
def test_lflist_errors_name_the_line(text, message, line):
    with pytest.raises(IngestError, match=message) as err:
        parse_lflist(text, "x.lflist.conf")
    assert err.value.line == line


# ------------------------------------------------------------------ format detection


def test_detect_format(tmp_path: Path, sqlite_file: Path):
    assert detect_format(sqlite_file) == "sqlite"
    card = write_json(tmp_path / "10000001.json", yaml_yugi_card())
    assert detect_format(card) == "yaml-yugi"
    assert detect_format(tmp_path) == "yaml-yugi"  # a folder of yaml-yugi files
    other = write_json(tmp_path / "deck.json", {"main": [1, 2, 3]})
    with pytest.raises(IngestError, match="neither yaml-yugi nor YGOPRODeck"):
        detect_format(other)
    text = tmp_path / "notes.txt"
    text.write_text("just some notes\n", "utf-8")
    with pytest.raises(IngestError, match="unknown format"):
        detect_format(text)
    with pytest.raises(IngestError, match="file not found"):
        detect_format(tmp_path / "missing.json")
    assert write_sqlite(tmp_path / "again.db").exists()
