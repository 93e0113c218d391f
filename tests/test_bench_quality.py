"""bench.quality's measures on a scripted service, and the shape of the sets it reads.

The sets written before the card-database work (qa_cards, nonsense, pairs, decks) must stay
checkable: every cite an exact substring of a corpus document, nonsense without verdicts, deck
counts matching the deck files.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from bench.quality import RecordingService, find_sets, measure, reliability
from kb.evaluation import read_jsonl

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "tests" / "data"
DOCS = [p.read_text("utf-8") for p in sorted((REPO / "corpus").glob("0*.txt"))]


class Scripted:
    """Answers from a table (question -> verdict, confidence, top citation id); counts asks."""

    def __init__(self, table: dict[str, tuple[str | None, float | None, str | None]]) -> None:
        self.table = table
        self.asked = 0

    def ask(self, question: str, format: str | None = None, k: int = 5) -> dict[str, Any]:
        self.asked += 1
        verdict, conf, cite = self.table.get(question, (None, None, None))
        citations = [{"id": cite, "text": f"text of {cite}"}] if cite else []
        return {"verdict": verdict, "confidence": conf, "answer": "", "citations": citations}


def write_jsonl(path: Path, items: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(i) + "\n" for i in items), "utf-8")


def test_measure_reports_every_set_and_asks_each_question_once(tmp_path: Path) -> None:
    write_jsonl(
        tmp_path / "qa_x.jsonl",
        [
            {"id": "a", "q": "A?", "verdict": "yes", "cite": "text of p1"},
            {"id": "b", "q": "B?", "verdict": "no", "cite": "text of p2"},
        ],
    )
    write_jsonl(
        tmp_path / "nonsense.jsonl",
        [{"id": "n1", "q": "Piano?", "verdict": None}, {"id": "n2", "q": "A?", "verdict": None}],
    )
    write_jsonl(
        tmp_path / "pairs.jsonl",
        [
            {"id": "p1", "pt": "A pt?", "en": "A?", "verdict": "yes", "cite": "text of p1"},
            {"id": "p2", "pt": "B pt?", "en": "B?", "verdict": "no", "cite": "text of p2"},
        ],
    )
    service = Scripted(
        {
            "A?": ("yes", 0.95, "p1"),
            "B?": ("yes", 0.55, "p2"),
            "A pt?": ("yes", 0.9, "p1"),
            "B pt?": ("no", 0.9, "p3"),
        }
    )
    result = measure(service, find_sets(tmp_path, None))
    qa = result["sets"]["qa_x"]
    assert (qa["verdict_accuracy"], qa["cite_hit3"], qa["failures"]) == (0.5, 1.0, ["b"])
    assert result["nonsense_sets"]["nonsense"]["null_share"] == 0.5
    assert result["nonsense_sets"]["nonsense"]["answered"] == [{"id": "n2", "got": "yes"}]
    pairs = result["pairs"]
    assert (pairs["same_verdict"], pairs["agreeing"]) == (0.5, 0.5)
    assert pairs["verdict_accuracy"] == 0.75  # B? answered yes, the other three right
    assert service.asked == 5  # A?, B?, Piano?, A pt?, B pt?: each once across the sets
    bands = {row["band"]: (row["n"], row["share_correct"]) for row in result["reliability"]}
    assert bands == {"0.5": (1, 0.0), "0.9": (3, 1.0)}


def test_reliability_puts_a_missing_confidence_in_its_own_band() -> None:
    recorder = RecordingService(Scripted({"Q?": (None, None, None), "R?": ("no", 1.0, "x")}))
    rows = reliability(
        recorder,
        [{"q": "Q?", "verdict": "yes"}, {"q": "R?", "verdict": "no"}, {"q": "S?", "verdict": None}],
    )
    assert rows == [
        {"band": "0.9", "n": 1, "share_correct": 1.0},
        {"band": "none", "n": 1, "share_correct": 0.0},
    ]


def test_an_unknown_set_name_is_an_error(tmp_path: Path) -> None:
    write_jsonl(tmp_path / "qa_a.jsonl", [])
    with pytest.raises(SystemExit, match="qa_b"):
        find_sets(tmp_path, {"qa_b"})


def in_corpus(text: str) -> bool:
    return any(text in doc for doc in DOCS)


def test_card_questions_are_complete_and_cite_the_documents() -> None:
    items = read_jsonl(DATA / "qa_cards.jsonl")
    assert len(items) >= 45
    assert len({i["id"] for i in items}) == len(items)
    for item in items:
        assert re.fullmatch(r"card-\d{3}", item["id"])
        assert item["verdict"] in ("yes", "no"), item["id"]
        assert item["cards"] and item["why"], item["id"]
        assert in_corpus(item["cite"]), item["id"]


def test_nonsense_has_no_verdicts() -> None:
    items = read_jsonl(DATA / "nonsense.jsonl")
    assert len(items) >= 70
    assert all(i["verdict"] is None and i["contains"] == [] for i in items)
    assert {i["kind"] for i in items} == {"joke", "gibberish", "off-topic"}


def test_pairs_cite_the_documents_and_cover_all_three() -> None:
    pairs = read_jsonl(DATA / "pairs.jsonl")
    assert len(pairs) >= 55
    covered = set()
    for pair in pairs:
        assert pair["pt"] and pair["en"] and pair["pt"] != pair["en"], pair["id"]
        assert pair["verdict"] in ("yes", "no", None)
        hits = [i for i, doc in enumerate(DOCS) if pair["cite"] in doc]
        assert hits, pair["id"]
        covered.update(hits)
    assert covered == set(range(len(DOCS)))


SECTIONS = {
    "#main": "main",
    "#extra": "extra",
    "!side": "side",
    "main:": "main",
    "extra:": "extra",
    "side:": "side",
    "deck principal:": "main",
    "deck adicional:": "extra",
    "deck auxiliar:": "side",
}


def count_deck(path: Path) -> dict[str, int]:
    counts = {"main": 0, "extra": 0, "side": 0}
    section = "main"
    for raw in path.read_text("utf-8").splitlines():
        line = raw.strip()
        if line.lower() in SECTIONS:
            section = SECTIONS[line.lower()]
        elif not line or line.startswith("#"):
            continue
        elif path.suffix == ".ydk":
            counts[section] += 1
        else:
            match = re.match(r"(\d+)x?\s+\S", line)
            assert match, f"{path.name}: {line!r}"
            counts[section] += int(match.group(1))
    return counts


@pytest.mark.parametrize(
    "deck", sorted(p for p in (DATA / "decks").iterdir() if p.suffix in (".ydk", ".txt"))
)
def test_deck_counts_match_the_expected_file(deck: Path) -> None:
    expected = json.loads(deck.with_suffix(".expected.json").read_text("utf-8"))
    assert expected["format"] in ("edison", "tag")
    assert expected["ok"] == (not expected["violations"])
    assert count_deck(deck) == expected["counts"]


def test_new_documents_are_measured_one_process_each(monkeypatch: pytest.MonkeyPatch) -> None:
    """Several new documents: a child process each (a frozen service is never freed), their
    results merged in order; a child that fails names its document."""
    import argparse
    import subprocess

    from bench import quality

    calls: list[list[str]] = []
    real_run = subprocess.run

    def run(cmd: list[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
        if "--newdocs" not in cmd:
            return real_run(cmd, **kwargs)  # git, for the commit
        calls.append(cmd)
        name = cmd[cmd.index("--newdocs") + 1]
        if name == "broken":
            return subprocess.CompletedProcess(cmd, 1, "", "Traceback\nerror: no such thing")
        doc = {"n": 10, "right": len(name), "verdict_accuracy": 0.5, "cite_hit3": 1.0}
        return subprocess.CompletedProcess(cmd, 0, json.dumps({"docs": {name: doc}}), "")

    monkeypatch.setattr(subprocess, "run", run)
    args = argparse.Namespace(data=Path("data"), corpus=None, jobs=2)
    out = quality._newdocs_apart(["alpha", "be"], args)
    assert list(out["docs"]) == ["alpha", "be"] and out["docs"]["be"]["right"] == 2
    assert all("--json" in c and str(Path("data").resolve()) in c for c in calls)
    with pytest.raises(SystemExit, match="broken: error: no such thing"):
        quality._newdocs_apart(["alpha", "broken"], args)
