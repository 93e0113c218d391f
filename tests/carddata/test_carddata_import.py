"""Importing into the card-facts table: merging, conflicts, limits, atomicity, fetch and CLI."""

from __future__ import annotations

import json
import urllib.error
from pathlib import Path

import pytest
import typer
from carddata_support import (  # type: ignore[import-not-found]
    CARDS,
    write_json,
    write_sqlite,
    yaml_yugi_card,
    ygoprodeck_card,
)
from typer.testing import CliRunner

from api.cli_cards import cards_app
from ingest.carddata import fetch_cards, import_cards
from kb.cards.table import parse_table
from kb.errors import IngestError


def table_of(corpus: Path) -> dict[str, object]:
    _, records = parse_table((corpus / "carddb" / "cards.tsv").read_text("utf-8"))
    return {r.slug: r for r in records}


def test_import_writes_the_table_with_mechanics(corpus: Path, sqlite_file: Path):
    report = import_cards([sqlite_file], corpus)
    assert report.cards == 4 and report.added == 4 and report.updated == 0
    assert report.edison_pool == 2
    assert report.tcg_2010_03 == {"forbidden": 0, "limited": 1, "semi_limited": 0}
    assert report.conflicts == []
    assert report.agreement["agreement"] == {"special_summon": 1.0, "negation": 1.0}
    cards = table_of(corpus)
    wisp = cards["lantern-wisp"]
    assert wisp.special_summon == "inherent" and wisp.effect_types == ("trigger",)
    assert wisp.datasets == ("cards_en_pt.sqlite",)
    verdict = cards["verdict-of-the-silent-court"]
    assert verdict.negates == ("summon", "spell-activation", "trap-activation")
    assert verdict.spell_speeds == (3,)
    assert (verdict.lp_cost_amount, verdict.lp_cost_kind) == (1500, "activation")
    herald = cards["clockwork-herald"]
    assert herald.special_summon == "inherent" and herald.negates == ("monster-effect-activation",)
    text = (corpus / "carddb" / "cards.tsv").read_text("utf-8")
    assert "Special Summon this card" not in text  # no card text in the table
    assert text.startswith("# source: ")


def test_sources_merge_by_password_konami_id_and_name(
    corpus: Path, sqlite_file: Path, tmp_path: Path
):
    import_cards([sqlite_file], corpus)
    yugi = write_json(tmp_path / "10000001.json", yaml_yugi_card())
    en = write_json(
        tmp_path / "cardinfo.json",
        {
            "data": [
                ygoprodeck_card(
                    10000011, "Ember Page", desc="You can discard this card; draw 1 card."
                ),
                # the same card as the Verdict (its Konami id), under another password
                ygoprodeck_card(
                    10000012,
                    "Verdict of the Silent Court",
                    type="Trap Card",
                    frameType="trap",
                    race="Counter",
                    misc_info=[{"konami_id": 90002, "tcg_date": "2015-01-01"}],
                ),
            ]
        },
    )
    pt = write_json(
        tmp_path / "cardinfo.pt.json",
        {"data": [ygoprodeck_card(10000011, "Página de Brasa", name_en="Ember Page")]},
    )
    report = import_cards([yugi, en, pt], corpus)
    cards = table_of(corpus)
    assert report.added == 1 and report.cards == 5
    assert cards["lantern-wisp"].aliases[0] == "Laternenirrlicht"
    assert cards["lantern-wisp"].datasets == ("cards_en_pt.sqlite", "yaml-yugi")
    page = cards["ember-page"]
    assert (page.name_pt, page.effect_types) == ("Página de Brasa", ("ignition",))
    # the earlier printing keeps its password; the other one is reported
    assert cards["verdict-of-the-silent-court"].password == 10000002
    assert report.alternate_passwords == {"Verdict of the Silent Court": [10000012]}


def test_conflicts_with_the_curated_table_are_reported(corpus: Path, tmp_path: Path):
    changed = list(CARDS)
    row = list(changed[0])
    row[3], row[8], row[9] = "Chama da Lanterna", "WIND", 5
    changed[0] = tuple(row)
    report = import_cards([write_sqlite(tmp_path / "c.sqlite", changed)], corpus)
    got = {(c.card, c.field, c.curated, c.imported) for c in report.conflicts}
    assert got == {
        ("lantern-wisp", "name_pt", "Fogo-Fátuo da Lanterna", "Chama da Lanterna"),
        ("lantern-wisp", "attribute", "FIRE", "WIND"),
        ("lantern-wisp", "level", "4", "5"),
    }


def test_shared_slugs_keep_the_curated_card_bare(corpus: Path, tmp_path: Path):
    twins = [
        *CARDS,
        (
            10000000,
            90099,
            "Lantern-Wisp",
            None,
            "Spell",
            "Normal",
            [],
            None,
            None,
            None,
            None,
            None,
            "Draw 1 card.",
            None,
        ),
    ]
    import_cards([write_sqlite(tmp_path / "c.sqlite", twins)], corpus)
    cards = table_of(corpus)
    assert cards["lantern-wisp"].name_en == "Lantern Wisp"  # named by the curated table
    assert cards["lantern-wisp-10000000"].name_en == "Lantern-Wisp"  # despite its lower password


def test_lflist_sets_the_pool_and_resolves_alternate_artworks_by_name(
    corpus: Path, sqlite_file: Path, tmp_path: Path
):
    lflist = tmp_path / "edison.lflist.conf"
    lflist.write_text(
        "!Invented Edison\n$whitelist\n10000002 0 --Verdict\n19999999 2 --Lantern Wisp\n", "utf-8"
    )
    report = import_cards([sqlite_file, lflist], corpus)
    cards = table_of(corpus)
    assert report.edison_pool == 2
    assert (cards["lantern-wisp"].edison_pool, cards["lantern-wisp"].edison_limit) == (True, 2)
    assert cards["verdict-of-the-silent-court"].edison_limit == 0
    assert cards["moss-golem"].edison_pool is False
    assert "edopro-lflist" in cards["lantern-wisp"].datasets


def test_a_bad_file_leaves_the_table_unchanged(corpus: Path, sqlite_file: Path, tmp_path: Path):
    import_cards([sqlite_file], corpus)
    table = corpus / "carddb" / "cards.tsv"
    before = table.read_bytes()
    bad_json = tmp_path / "broken.json"
    bad_json.write_text('{"data": [', "utf-8")
    unknown = tmp_path / "unknown.lflist.conf"
    unknown.write_text(
        "!Invented Edison\n$whitelist\n10000001 3 --Lantern Wisp\n12345678 1 --Nobody\n", "utf-8"
    )
    other = tmp_path / "readme.md"
    other.write_text("# Notes\n", "utf-8")
    folder = tmp_path / "dupes"
    folder.mkdir()
    write_json(folder / "a.json", yaml_yugi_card())
    write_json(folder / "b.json", yaml_yugi_card())
    cases = [
        (bad_json, "malformed JSON"),
        (unknown, r"unknown password 12345678 \(Nobody\)"),
        (other, "unknown format"),
        (folder, "duplicate entry for password 10000001"),
    ]
    for path, message in cases:
        with pytest.raises(IngestError, match=message) as err:
            import_cards([sqlite_file, path], corpus)
        assert str(path) in str(err.value)
        assert table.read_bytes() == before
    assert sorted(p.name for p in table.parent.iterdir()) == ["cards.tsv"]  # no temporary files


def test_fetch_offline_is_a_clear_error_and_changes_nothing(corpus: Path, sqlite_file: Path):
    import_cards([sqlite_file], corpus)
    before = (corpus / "carddb" / "cards.tsv").read_bytes()

    def offline(url: str) -> bytes:
        raise urllib.error.URLError("Name or service not known")

    with pytest.raises(IngestError, match="cannot download the card data"):
        fetch_cards(corpus, fetch=offline)
    assert (corpus / "carddb" / "cards.tsv").read_bytes() == before


def test_fetch_downloads_english_and_portuguese(corpus: Path):
    asked: list[str] = []

    def fake(url: str) -> bytes:
        asked.append(url)
        card = ygoprodeck_card(
            10000011, "Ember Page", desc="You can discard this card; draw 1 card."
        )
        if "language=pt" in url:
            card = ygoprodeck_card(10000011, "Página de Brasa", name_en="Ember Page")
        return json.dumps({"data": [card]}).encode()

    report = fetch_cards(corpus, "https://example.invalid/cardinfo.php", fetch=fake)
    assert report.cards == 1
    assert asked == [
        "https://example.invalid/cardinfo.php?misc=yes",
        "https://example.invalid/cardinfo.php?misc=yes&language=pt",
    ]
    assert table_of(corpus)["ember-page"].name_pt == "Página de Brasa"


# ------------------------------------------------------------------ CLI


def _app() -> typer.Typer:
    app = typer.Typer()
    app.add_typer(cards_app, name="cards")
    return app


def test_cli_import_summary_and_json(corpus: Path, sqlite_file: Path):
    runner = CliRunner()
    result = runner.invoke(_app(), ["cards", "import", str(sqlite_file), "--corpus", str(corpus)])
    assert result.exit_code == 0, result.output
    assert "4 cards" in result.output
    result = runner.invoke(
        _app(), ["cards", "import", str(sqlite_file), "--corpus", str(corpus), "--json"]
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["cards"] == 4 and data["updated"] == 0 and data["conflicts"] == []


def test_cli_import_error_exits_1(corpus: Path, tmp_path: Path):
    bad = tmp_path / "broken.json"
    bad.write_text("{", "utf-8")
    result = CliRunner().invoke(_app(), ["cards", "import", str(bad), "--corpus", str(corpus)])
    assert result.exit_code == 1
    assert "Error:" in result.output and "malformed JSON" in result.output
