"""The CLI's foundation commands through Typer's runner: ingest, stats, show, export."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from typer.testing import CliRunner

from api.cli import app
from kb.service import RulingsService

if TYPE_CHECKING:
    from conftest import Built

runner = CliRunner()


@pytest.fixture(autouse=True)
def _no_environment_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    """Only the options given here configure the CLI."""
    for name in [k for k in os.environ if k.startswith("YGO_")]:
        monkeypatch.delenv(name)


def test_ingest_writes_a_build(tmp_path: Path, corpus_dir: Path) -> None:
    data = tmp_path / "data"
    result = runner.invoke(
        app, ["ingest", "--corpus", str(corpus_dir), "--data", str(data), "--json"]
    )
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["nodes"]["Rule"] == 13
    assert summary["unlinked_card_mentions"] == 0
    assert Path(summary["path"]).parent == data / "builds"
    assert (data / "current" / "graph.json").exists()


def test_stats_json(data_copy: Path, corpus_dir: Path) -> None:
    result = runner.invoke(
        app, ["stats", "--json", "--data", str(data_copy), "--corpus", str(corpus_dir)]
    )
    assert result.exit_code == 0, result.output
    stats = json.loads(result.stdout)
    assert {"nodes", "edges", "cards_bilingual", "unlinked_card_mentions"} <= set(stats)
    assert stats["nodes"]["Rule"] == 13
    assert stats["cards_bilingual"] >= 150
    assert stats["edges"]["summoned_by"] > 0
    assert stats["unlinked_card_mentions"] == 0


def test_show_json(data_copy: Path, corpus_dir: Path, documents: dict[str, str]) -> None:
    result = runner.invoke(
        app,
        ["show", "edison/rule-05", "--json", "--data", str(data_copy), "--corpus", str(corpus_dir)],
    )
    assert result.exit_code == 0, result.output
    node = json.loads(result.stdout)
    assert node["id"] == "edison/rule-05" and node["type"] == "Rule"
    assert node["props"]["number"] == 5
    span = node["span"]
    assert documents[span["document"]][span["start"] : span["end"]] == node["text"]
    assert "edison/rule-05/example-03" in node["children"]
    out = {(f["predicate"], f["object"]) for f in node["out"]}
    assert ("applies_in", "format/edison") in out
    assert ("differs_from", "format/general") in out


def test_show_unknown_id_suggests_close_ones(data_copy: Path, corpus_dir: Path) -> None:
    args = ["show", "nonexistent/x", "--data", str(data_copy), "--corpus", str(corpus_dir)]
    result = runner.invoke(app, args)
    assert result.exit_code == 1
    assert "Error: unknown id 'nonexistent/x'; did you mean: " in result.stderr
    suggestions = result.stderr.split("did you mean: ", 1)[1].split(", ")
    assert 1 <= len(suggestions) <= 5
    assert "Traceback" not in result.output


def test_export_turtle_to_a_file(
    lite_built: Built, lite_corpus: Path, tmp_path: Path, lite_service: RulingsService
) -> None:
    data_copy, corpus_dir, service = tmp_path / "data", lite_corpus, lite_service
    shutil.copytree(lite_built.data_dir, data_copy, symlinks=True)
    target = tmp_path / "kb.ttl"
    args = ["export", "--format", "ttl", "--out", str(target)]
    result = runner.invoke(app, [*args, "--data", str(data_copy), "--corpus", str(corpus_dir)])
    assert result.exit_code == 0, result.output
    assert result.stdout == ""
    assert f"wrote {target}" in result.stderr
    # The same bytes as the service's export (which test_rdf parses and compares with rdflib).
    assert target.read_bytes() == service.export("ttl").read_bytes()
    assert not list(tmp_path.glob("*.tmp"))


def test_export_unknown_format(data_copy: Path, corpus_dir: Path) -> None:
    result = runner.invoke(
        app, ["export", "--format", "xml", "--data", str(data_copy), "--corpus", str(corpus_dir)]
    )
    assert result.exit_code == 2
    assert "Error:" in result.stderr and "xml" in result.stderr


def test_ingest_of_a_broken_corpus_names_the_file(data_copy: Path, corpus_copy: Path) -> None:
    cards = corpus_copy / "cards.yaml"
    cards.write_text(
        cards.read_text("utf-8").replace("card_type: monster", "card_type: wizard", 1), "utf-8"
    )
    before = (data_copy / "current").resolve()
    result = runner.invoke(app, ["ingest", "--corpus", str(corpus_copy), "--data", str(data_copy)])
    assert result.exit_code != 0
    assert "Error:" in result.stderr
    assert "cards.yaml:" in result.stderr and "wizard" in result.stderr
    assert "Traceback" not in result.output
    assert (data_copy / "current").resolve() == before

    # The commands that read the KB keep serving the previous build, with a warning.
    stats = runner.invoke(
        app, ["stats", "--json", "--data", str(data_copy), "--corpus", str(corpus_copy)]
    )
    assert stats.exit_code == 0, stats.output
    assert json.loads(stats.stdout)["nodes"]["Rule"] == 13
    warning = "".join(stats.stderr.split())  # the console may wrap long paths
    assert "servingthepreviousbuild" in warning and "cards.yaml" in warning


def test_ingest_of_a_missing_corpus(tmp_path: Path) -> None:
    result = runner.invoke(
        app, ["ingest", "--corpus", str(tmp_path / "nowhere"), "--data", str(tmp_path / "d")]
    )
    assert result.exit_code == 1
    assert "Error:" in result.stderr and "manifest.yaml" in result.stderr
    assert "Traceback" not in result.output
