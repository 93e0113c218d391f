"""Every `ygo-rulings` command through Typer's runner, in its text output as well as its JSON.

The text output formats what the JSON leaves raw, so this is where a null (an answer without a
verdict has no confidence, no format may be given, a value may be stated) would crash a command.
`ask` runs on answers with and without a verdict; the other commands once each on the session's
KB. `CASES` must name every command of the app (`test_every_command_has_a_case`).

The KB is loaded once per settings for the whole module (`api.cli.service` memoized; loading is
tested by tests/test_cli_foundation.py), with the hash embedder.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests_support import REPO, running_server  # type: ignore[import-not-found]
from typer.main import get_command
from typer.testing import CliRunner, Result

import api.cli
from api.cli import answer_details
from api.cli import app as cli_app
from api.version import package_version
from kb.config import Settings

CORPUS = REPO / "corpus"
HASH_ENV: dict[str, str | None] = {
    **{k: None for k in os.environ if k.startswith("YGO_")},
    "YGO_EMBEDDER": "hash",
}


@pytest.fixture(scope="module")
def kb_dir(built: Any, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A private copy of the session build (a searching CLI writes its embedding cache there)."""
    target = tmp_path_factory.mktemp("cli") / "data"
    shutil.copytree(built.data_dir, target, symlinks=True)
    return target


@pytest.fixture(scope="module", autouse=True)
def one_service_per_settings() -> Iterator[None]:
    """`api.cli.service` loads the KB once per settings in this module, then reuses it."""
    from api.runtime import load_runtime

    loaded: dict[Settings, Any] = {}

    def service(s: Settings, **_: bool) -> Any:
        if s not in loaded:
            loaded[s] = load_runtime(s).service
        return loaded[s]

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(api.cli, "service", service)
        yield
    for svc in loaded.values():
        svc.close()


def run(args: list[str], kb_dir: Path | None = None, stdin: str | None = None) -> Result:
    """The CLI with these arguments (plus `--data` and `--corpus` when `kb_dir` is given)."""
    where = ["--data", str(kb_dir), "--corpus", str(CORPUS)] if kb_dir else []
    return CliRunner().invoke(cli_app, [*args, *where], env=HASH_ENV, input=stdin)


def commands() -> set[str]:
    """Every command of the app, a group's as "group command"."""

    def walk(command: Any, prefix: str) -> Iterator[str]:
        subcommands = getattr(command, "commands", None)
        if isinstance(subcommands, dict):
            for name, sub in subcommands.items():
                yield from walk(sub, f"{prefix}{name} ")
        else:
            yield prefix.strip()

    return set(walk(get_command(cli_app), ""))


# --- the version ----------------------------------------------------------------------------


def test_version_is_the_package_metadata() -> None:
    result = run(["--version"])
    assert result.exit_code == 0, result.output
    assert result.stdout == f"ygo-rulings {package_version()}\n"
    assert package_version() != "unknown"  # the test environment has the package installed


# --- ask: answers with and without a verdict ------------------------------------------------

YES = "Julgamento Solene pode negar a Invocação do Dragão Cibernético?"  # summon-negation
NO = "Can Divine Wrath negate the summon of Cyber Dragon?"  # summon-negation
NO_RULING = "In Edison, can Fake Trap save a trap monster from Heavy Storm?"  # the crash
VALUE = "Quantas cópias de Pote da Ganância posso usar no Edison?"  # card-limit: 0 copies
DEFINITION = "What is a Chain?"  # definition: a passage, no verdict


@pytest.mark.parametrize(
    ("question", "verdict", "shown"),
    [
        (YES, "yes", "YES"),
        (NO, "no", "NO"),
        (NO_RULING, None, "no verdict, format edison"),
        (VALUE, None, "value 0 copies"),
        (DEFINITION, None, "no verdict, format none given"),
    ],
)
def test_ask_text_and_json(kb_dir: Path, question: str, verdict: str | None, shown: str) -> None:
    answer = run(["ask", question, "--json"], kb_dir)
    assert answer.exit_code == 0, answer.output
    body = json.loads(answer.stdout)
    assert body["verdict"] == verdict
    assert (body["confidence"] is None) == (verdict is None)
    text = run(["ask", question], kb_dir)
    assert text.exit_code == 0, text.output
    assert "Traceback" not in text.output
    first = text.stdout.splitlines()[0]
    assert shown in first and body["answer"][:40] in first
    if verdict is not None:
        assert f"confidence {body['confidence']:.2f}" in first


def test_ask_says_which_card_a_half_remembered_name_may_mean(kb_dir: Path) -> None:
    question = "Dragão Gaia, o Cavaleiro do Trovão pode atacar duas vezes?"
    body = json.loads(run(["ask", question, "--json"], kb_dir).stdout)
    assert body["verdict"] is None and body["suggestions"]
    card = body["suggestions"][0]
    text = run(["ask", question], kb_dir)
    assert text.exit_code == 0 and f"did you mean: {card['name_en']}" in text.stdout


@pytest.mark.parametrize(
    ("answer", "details"),
    [
        ({"confidence": 0.921, "format": "tag", "value": None}, "confidence 0.92, format tag"),
        ({"confidence": None, "format": None, "value": None}, "no verdict, format none given"),
        (
            {
                "confidence": None,
                "format": "tag",
                "value": {"kind": "number", "value": 16000, "unit": "lp"},
            },
            "no verdict, format tag, value 16000 lp",
        ),
        (
            {
                "confidence": None,
                "format": None,
                "value": {"kind": "step", "value": "3", "unit": None},
            },
            "no verdict, format none given, value 3",
        ),
    ],
)
def test_answer_details_on_every_kind_of_answer(answer: dict[str, Any], details: str) -> None:
    """What the line after an answer says, including the shapes the hash embedder never gives
    (the formats disagreeing: verdict and confidence null, no format)."""
    assert answer_details(answer) == details


def test_eval_on_answers_with_and_without_a_verdict(kb_dir: Path, tmp_path: Path) -> None:
    items = [
        {"id": "y", "q": YES, "verdict": "yes", "topic": "summon"},
        {"id": "n", "q": NO_RULING, "format": "edison", "verdict": None, "topic": "scope"},
        {"id": "v", "q": VALUE, "verdict": None, "contains": ["0"], "topic": "limits"},
    ]
    file = tmp_path / "qa.jsonl"
    file.write_text("".join(json.dumps(i) + "\n" for i in items), "utf-8")
    text = run(["eval", str(file)], kb_dir)
    assert text.exit_code == 0, text.output
    assert "verdict accuracy 1.000 (n=1)" in text.stdout and "per topic" in text.stdout
    body = json.loads(run(["eval", str(file), "--json"], kb_dir).stdout)
    assert body["overall"]["yes_no"] == 1


# --- every other command, in text -----------------------------------------------------------


@dataclass(frozen=True)
class Case:
    """A command's arguments, the exit status and what its output must contain."""

    args: tuple[str, ...]
    expect: tuple[str, ...]
    status: int = 0
    stdin: str | None = None
    needs_kb: bool = True


QUERY = "PREFIX ygo: <https://w3id.org/ygo-rulings/vocab#> SELECT ?r WHERE { ?r a ygo:Rule } ORDER BY ?r LIMIT 2"
CASES: dict[str, Case] = {
    "stats": Case(("stats",), ("rules: ", "unlinked card mentions: 0")),
    "show": Case(
        ("show", "edison/rule-05"),
        # the span in brackets is printed, not read as a style tag
        ("edison/rule-05 (Rule)", "  [edison ", "→ applies_in format/edison"),
    ),
    "link": Case(("link", "Solemn Judgment vs Dragão Cibernético"), ('"card/cyber-dragon"',)),
    "sparql": Case(("sparql", QUERY, "--format", "csv"), ("r\nhttps://", "/id/edison/rule-01")),
    "vocab": Case(("vocab", "--as", "ttl"), ("ygo:Rule a owl:Class",)),
    "search": Case(("search", "corrente", "--k", "2"), ("1. ", "dense ")),
    "render": Case(("render", "edison/rule-10"), ("'''Regra #10",)),
    "quiz": Case(("quiz", "--n", "2", "--seed", "3"), ("[1/2]", "[2/2]"), stdin="1\n1\n"),
    "quiz-check": Case(
        ("quiz-check", '[{"id": "summon:card/cyber-dragon", "answer": "inherent"}]'),
        ('"correct": 1',),
    ),
    "quiz-topics": Case(("quiz-topics", "--format", "tag"), (" questions (tag",)),
    "banlist": Case(("banlist", "--format", "edison"), ("Forbidden", "Semi-Limited")),
    "cards search": Case(("cards", "search", "Jinzo", "--k", "1"), ("1. Jinzo",)),
    "cards legality": Case(
        ("cards", "legality", "card/pot-of-greed", "--format", "edison"),
        ("not legal in edison (limit 0)",),
    ),
    "cards report": Case(
        ("cards", "report", "card/pot-of-greed", "--format", "edison"),
        ("Pot of Greed / Pote da Ganância (card/pot-of-greed)", "edison: forbidden, limit 0"),
    ),
    "rules-about": Case(
        ("rules-about", "concept/inherent-special-summon", "--k", "2"),
        ("inherent Special Summon (concept/inherent-special-summon)", "rulings "),
    ),
    "cards fetch": Case(
        ("cards", "fetch", "--url", "http://127.0.0.1:9/cardinfo.php"),
        ("Error:",),
        status=1,
        needs_kb=False,
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_command_prints_text(name: str, kb_dir: Path, tmp_path: Path) -> None:
    case = CASES[name]
    args = list(case.args)
    if not case.needs_kb:  # a corpus of its own, which the command must leave as it was
        (tmp_path / "cards.yaml").write_text("version: 1\ncards: []\n", "utf-8")
        args += ["--corpus", str(tmp_path)]
    result = run(args, kb_dir if case.needs_kb else None, case.stdin)
    assert result.exit_code == case.status, result.output
    assert "Traceback" not in result.output
    for text in case.expect:
        assert text in result.output, (text, result.output[:2000])
    if not case.needs_kb:
        assert [p.name for p in tmp_path.iterdir()] == ["cards.yaml"]


def test_ingest_text(lite_corpus: Path, tmp_path: Path) -> None:
    result = run(["ingest", "--corpus", str(lite_corpus), "--data", str(tmp_path / "data")])
    assert result.exit_code == 0, result.output
    assert "Rule" in result.stdout and "unlinked card mentions: 0" in result.stdout


def test_export_to_stdout(kb_dir: Path) -> None:
    result = run(["export", "--format", "jsonld"], kb_dir)
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)  # the whole graph, compacted JSON-LD
    assert document["@context"].endswith("/context.jsonld") and document["@graph"]


def test_eval_search_text(kb_dir: Path, tmp_path: Path) -> None:
    file = tmp_path / "retrieval.jsonl"
    item = {
        "q": "Trap Monster zone",
        "relevant": ["edison/rule-05/p-01"],
        "lang": "en",
        "kind": "t",
    }
    file.write_text(json.dumps(item) + "\n", "utf-8")
    result = run(["eval-search", str(file)], kb_dir)
    assert result.exit_code == 0, result.output
    assert "Recall@1" in result.stdout and "fused" in result.stdout


def test_deck_check_text(kb_dir: Path, tmp_path: Path) -> None:
    deck = tmp_path / "deck.txt"
    deck.write_text("3x Pot of Greed\n", "utf-8")
    result = run(["deck", "check", str(deck), "--format", "edison"], kb_dir)
    assert result.exit_code == 1, result.output  # the deck breaks a rule
    assert "not legal in edison" in result.stdout and "✗" in result.stdout


def test_cards_import_text(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "cards.yaml").write_text("version: 1\ncards: []\n", "utf-8")
    card = {
        "id": 10000011, "name": "Ember Page", "type": "Effect Monster", "frameType": "effect",
        "desc": "", "race": "Warrior", "attribute": "DARK", "atk": 1000, "def": 1000, "level": 4,
        "misc_info": [{"konami_id": 11, "tcg_date": "2009-05-05", "formats": ["TCG"]}],
    }  # fmt: skip
    info = tmp_path / "cardinfo.json"
    info.write_text(json.dumps({"data": [card]}), "utf-8")
    result = run(["cards", "import", str(info), "--corpus", str(corpus)])
    assert result.exit_code == 0, result.output
    assert "1 cards (1 added" in result.stdout
    assert (corpus / "carddb" / "cards.tsv").exists()


def test_model_prepare_reuses_a_prepared_model(tmp_path: Path) -> None:
    """Against a data directory whose model is already prepared: nothing is converted again."""
    (tmp_path / "models").symlink_to((REPO / "data" / "models").resolve())
    if not (tmp_path / "models" / "multilingual-e5-small").exists():
        pytest.skip("no prepared model in data/models (make install prepares it)")
    result = run(["model", "prepare", "--data", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "model ready:" in result.stderr


def test_serve_refuses_a_bad_setting(kb_dir: Path) -> None:
    env = {**HASH_ENV, "YGO_ANSWER_CACHE": "-1"}
    result = CliRunner().invoke(cli_app, ["serve", "--data", str(kb_dir)], env=env)
    assert result.exit_code == 2, result.output
    assert "Error: answer cache size must be 0 or more" in result.stderr


@pytest.mark.e2e
def test_serve_answers_health_with_the_version(kb_dir: Path) -> None:
    with running_server(kb_dir) as base:
        health = httpx.get(base + "/health", timeout=10).json()
    assert health["ok"] is True and health["version"] == package_version()


def test_every_command_has_a_case() -> None:
    covered = {
        *CASES,
        *("ask", "eval", "ingest", "export", "eval-search", "deck check", "cards import"),
        *("model prepare", "serve", "mcp"),  # mcp: tests/test_mcp.py drives it over stdio
        # judge training: tests/training/test_cli.py drives them with a trainee's token
        *("trainee", "exam", "progress", "history export", "history import"),
        *("db migrate", "db backup"),
    }
    missing = sorted(commands() - covered)
    assert not missing, f"commands without a test in tests/test_cli.py: {', '.join(missing)}"
