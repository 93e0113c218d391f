"""bench.peer without the model or txtai: its ranking metrics, and a clean skip without txtai."""

from __future__ import annotations

import json
import sys

import pytest

from bench import peer


def test_ranking_metrics_on_hand_made_rankings() -> None:
    rankings = [
        ["a", "x", "y"],  # first relevant at rank 1
        ["x", "y", "b"],  # rank 3
        ["x", "y", "z", "w", "v", "c"],  # rank 6: outside Recall@5, still in MRR
        ["x", "y"],  # none
        [*"pqrstuvwxy", "d"],  # rank 11: past the first 10, counts for nothing
        ["x", "e", "e2"],  # rank 2; only the first relevant id counts
    ]
    relevant = [{"a"}, {"b"}, {"c"}, {"d"}, {"d"}, {"e", "e2"}]
    got = peer.ranking_metrics(rankings, relevant)
    assert set(got) == {"recall@1", "recall@5", "mrr"}
    assert got["recall@1"] == pytest.approx(1 / 6)
    assert got["recall@5"] == pytest.approx(3 / 6)
    assert got["mrr"] == pytest.approx((1 + 1 / 3 + 1 / 6 + 0 + 0 + 1 / 2) / 6)


def test_ranking_metrics_of_nothing_is_zero() -> None:
    assert peer.ranking_metrics([], []) == {"recall@1": 0.0, "recall@5": 0.0, "mrr": 0.0}


def test_without_txtai_the_run_is_skipped(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "txtai", None)  # `import txtai` now fails
    assert not peer.available()
    peer.main(["--data", "/nonexistent", "--json"])  # returns before reading the data
    out, err = capsys.readouterr()
    assert json.loads(out) == {"skipped": "txtai is not installed"}
    assert "txtai" in err


def test_without_txtai_the_table_run_prints_only_the_reason(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "txtai", None)
    peer.main(["--data", "/nonexistent"])
    out, err = capsys.readouterr()
    assert out == ""
    assert "skipped" in err
