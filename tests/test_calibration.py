"""Calibrated confidence: counts per (reasoner, raw band), smoothed, and no confidence without a
verdict."""

from __future__ import annotations

import json

from kb.answering.calibration import DOCUMENTS_TABLE, TABLE, Calibration, band_of, load, table_for
from kb.service import RulingsService


def test_band_of_is_exact_at_band_edges() -> None:
    assert band_of(0.7) == "0.7"
    assert band_of(0.79) == "0.7"
    assert band_of(0.8) == "0.8"
    assert band_of(1.15) == "1.1"  # claims' alignment scores run above 1
    assert band_of(-0.2) == "0.0"


def test_fitted_confidence_follows_the_counts_and_is_never_certain() -> None:
    outcomes = [("a", 0.9, True)] * 40 + [("a", 0.9, False)] * 10 + [("b", 0.8, False)] * 30
    fitted = Calibration.fit(outcomes + [("b", 0.8, True)] * 10)
    a, b = fitted.confidence("a", 0.9), fitted.confidence("b", 0.8)
    assert a is not None and b is not None
    assert 0.75 <= a <= 0.8  # 40 of 50 right
    assert 0.25 <= b <= 0.35  # 10 of 40 right
    assert fitted.confidence("a", None) is None
    sure = Calibration.fit([("s", 0.8, True)] * 500)
    assert sure.confidence("s", 0.8) == 0.99  # many right answers, still not certain
    # An unseen band borrows from its reasoner, an unseen reasoner from all answers.
    assert fitted.confidence("a", 0.3) == fitted.confidence("a", 0.35)
    unseen = fitted.confidence("c", 0.9)
    assert unseen is not None and 0.5 < unseen < 0.6  # 50 of 90 right overall


def test_table_round_trips_through_json() -> None:
    fitted = Calibration.fit([("a", 0.9, True), ("a", 0.5, False)], {"date": "x"})
    again = Calibration.from_json(json.loads(json.dumps(fitted.to_json())))
    assert again.confidence("a", 0.9) == fitted.confidence("a", 0.9)
    assert again.meta == {"date": "x"}


def test_committed_table_loads_and_unreadable_one_is_none(tmp_path) -> None:  # type: ignore[no-untyped-def]
    table = load(TABLE)
    assert table is not None and table.overall.n > 500
    documents = load(DOCUMENTS_TABLE)
    assert documents is not None and documents.overall.n > 500
    assert "--variant documents-alone" in documents.meta["fitted_by"]
    assert (table_for(True), table_for(False)) == (TABLE, DOCUMENTS_TABLE)
    bad = tmp_path / "c.json"
    bad.write_text("{not json", encoding="utf-8")
    assert load(bad) is None
    assert load(tmp_path / "missing.json") is None


def test_a_knowledge_base_with_claims_reads_the_curated_table(lite_service: RulingsService) -> None:
    calibration = lite_service.answerer.calibration
    assert lite_service.kg.of_type("Claim") and calibration is not None
    assert calibration.meta["fitted_by"] == "python -m bench.calibrate --write"


def test_null_verdict_has_null_confidence(lite_service: RulingsService) -> None:
    answer = lite_service.ask("Can Exodia play the piano?")
    assert answer["verdict"] is None and answer["confidence"] is None
    decided = lite_service.ask("Can Solemn Judgment negate the Special Summon of Cyber Dragon?")
    assert decided["verdict"] in ("yes", "no")
    assert isinstance(decided["confidence"], float) and 0 < decided["confidence"] < 1
