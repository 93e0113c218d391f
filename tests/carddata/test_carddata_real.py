"""The committed card table against the real card data in ../shared/carddata (skipped without it).

The table is regenerated into a temporary folder with the committed header's date and command;
it must equal the committed table byte for byte, and so must the agreement report.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from carddata_support import CARDDATA, REPO  # type: ignore[import-not-found]

from ingest.carddata.importer import ImportResult, import_cards
from ingest.carddata.regenerate import regenerate
from kb.cards.table import parse_table

TABLE = REPO / "corpus" / "carddb" / "cards.tsv"
REPORT = REPO / "corpus" / "carddb" / "agreement.md"
NOT_CARDS = {"fluff-token"}  # a Token: the card data lists cards only

pytestmark = pytest.mark.skipif(
    not (CARDDATA / "cards_en_pt.sqlite").is_file(), reason=f"card data not present at {CARDDATA}"
)


@pytest.fixture(scope="module")
def committed() -> tuple[dict[str, str], list]:
    return parse_table(TABLE.read_text("utf-8"), str(TABLE))


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory, committed) -> tuple[ImportResult, Path]:
    meta, _ = committed
    out = tmp_path_factory.mktemp("carddb") / "cards.tsv"
    result = regenerate(
        CARDDATA, out, REPO / "corpus", command=meta["command"], today=meta["generated"]
    )
    return result, out


def test_committed_table_equals_the_generated_one(committed, generated):
    result, out = generated
    assert out.read_text("utf-8") == TABLE.read_text("utf-8")
    assert out.with_name("agreement.md").read_text("utf-8") == REPORT.read_text("utf-8")
    assert result.records == committed[1]


def test_counts(committed):
    meta, records = committed
    assert len(records) >= 14000
    assert sum(1 for r in records if r.name_pt and r.name_en) >= 13900
    pool = sum(1 for r in records if r.edison_pool)
    assert abs(pool - 3701) <= 5
    statuses = [r.tcg_2010_03 for r in records if r.tcg_2010_03 is not None]
    assert (statuses.count(0), statuses.count(1), statuses.count(2)) == (45, 70, 20)
    assert meta["cards"] == str(len(records))
    assert "3469970500" in meta["source"] and meta["generated"] and meta["command"]


def test_agreement_with_the_curated_table(generated):
    result, _ = generated
    agreement = result.agreement
    assert agreement.rate("special_summon") >= 0.95
    assert agreement.rate("negation") >= 0.95
    assert set(agreement.missing) == NOT_CARDS


def test_curated_slugs_are_the_table_slugs(committed):
    _, records = committed
    by_slug = {r.slug: r for r in records}
    curated = yaml.safe_load((REPO / "corpus" / "cards.yaml").read_text("utf-8"))["cards"]
    for card in curated:
        if card["id"] in NOT_CARDS:
            continue
        assert card["id"] in by_slug, card["id"]
        assert by_slug[card["id"]].name_en == card["en"]


def test_slugs_are_unique_and_passwords_too(committed):
    _, records = committed
    assert len({r.slug for r in records}) == len(records)
    passwords = [r.password for r in records if r.password is not None]
    assert len(set(passwords)) == len(passwords)


def test_the_edopro_edison_list_imports_onto_the_table(tmp_path: Path):
    corpus = tmp_path / "corpus"
    (corpus / "carddb").mkdir(parents=True)
    (corpus / "carddb" / "cards.tsv").write_bytes(TABLE.read_bytes())
    lflist = CARDDATA / "raw" / "ProjectIgnis_LFLists" / "2010.03 Edison.lflist.conf"
    if not lflist.is_file():
        pytest.skip("no EDOPro list in the card data")
    report = import_cards([lflist], corpus)
    assert abs(report.edison_pool - 3701) <= 10
    assert report.cards == len(parse_table(TABLE.read_text("utf-8"))[1])
