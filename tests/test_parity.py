"""One service method = one CLI command = one HTTP route, same JSON (DESIGN.md, "Contracts").

`TWINS` maps every public member of RulingsService to its CLI command and its HTTP routes, or
gives the reason it has none; a new method, command or route fails here until it is listed.
The pairs are then run both ways on the session's KB: the CLI (Typer's runner, `--data` and
`--corpus` pointing at a copy of it, the hash embedder) and the route (an app over a runtime
loaded from the same settings) must print the same JSON, or the same text for text results.
"""

from __future__ import annotations

import inspect
import json
import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient
from typer.main import get_command
from typer.testing import CliRunner

from api.app import create_app
from api.cli import app as cli_app
from api.runtime import load_runtime
from kb.config import Settings
from kb.service import RulingsService
from kb.training.service import TrainingService


@dataclass(frozen=True)
class Twin:
    """The CLI command and the HTTP routes ("METHOD /path") of one service method."""

    cli: str
    routes: tuple[str, ...]


TWINS: dict[str, Twin | str] = {
    "ask": Twin("ask", ("POST /ask",)),
    "search": Twin("search", ("GET /search",)),
    "link": Twin("link", ("GET /link",)),
    "stats": Twin("stats", ("GET /stats",)),
    "show": Twin("show", ("GET /id/{node_id}",)),
    "node_rdf": Twin("show", ("GET /id/{node_id}",)),  # show --as ttl|jsonld, ?as=ttl|jsonld
    "vocab": Twin("vocab", ("GET /vocab",)),
    "render": Twin("render", ("GET /rules/{node_id}", "GET /cards/{card_id}")),
    "quiz": Twin("quiz", ("GET /quiz",)),
    "quiz_check": Twin("quiz-check", ("POST /quiz/check",)),
    "quiz_topics": Twin("quiz-topics", ("GET /quiz/topics",)),
    "export": Twin("export", ("GET /export.ttl", "GET /export.jsonld")),
    "sparql": Twin("sparql", ("GET /sparql", "POST /sparql")),
    "cards": Twin("cards search", ("GET /cards",)),
    "card_legality": Twin("cards legality", ("GET /cards/{card_id}/legality",)),
    "banlist": Twin("banlist", ("GET /banlist",)),
    "lflist": Twin("banlist", ("GET /banlist",)),  # banlist --as lflist, ?as=lflist
    "deck_validate": Twin("deck check", ("POST /deck/validate",)),
    "card": Twin("cards report", ("GET /cards/{card_id}/report",)),
    "rules_about": Twin("rules-about", ("GET /rules-about",)),
    "resolve": "an internal lookup returning a Node; show, node_rdf and render expose it",
    "reasoner_status": "a part of stats (and of /health), not a query of its own",
    "whole_graph": "the RDF triples a missing or damaged SPARQL store is rewritten from",
    "close": "lifecycle: stops the SPARQL worker processes when the service is dropped",
    "question_bank": "the quiz's cached question bank, served by quiz and quiz_check",
    "sparql_endpoint": "the SPARQL backend, opened once, that sparql queries",
    "card_service": "the card facade (built once) that the card methods above delegate to",
    "card_page": "resolves a name in /cards/{card_id} to the card's page (a redirect); the CLI's "
    "render takes an id, and `cards search` finds it by name",
    "jsonld_context": "the JSON-LD context document GET /context.jsonld serves (HTTP_ONLY)",
    "training": "the judge-training facade (kb.training.service): its methods are in TRAINING_TWINS",
    "answerer": "the question answerer, built on first use, that ask delegates to",
    "index": "the search index, built on first use, that search and ask read",
    "linker": "the entity linker, built on first use, that link and ask read",
    "warm": "lifecycle: builds the parts built on first use before serve forks its workers",
    "PARTS": "lifecycle: the names of the parts a snapshot holds (kb.snapshot)",
    "built_parts": "lifecycle: the parts built so far, which a snapshot holds (api.runtime)",
    "restore": "lifecycle: takes the parts read from a snapshot instead of building them",
    "embedder": "the query embedder the service was loaded with (a snapshot names it)",
    "vectors": "the passages' vectors the service was loaded with (a snapshot holds them)",
}
# TrainingService's methods. The interactive `quiz --token` and `exam` commands answer, close and
# read a session through the methods twinned with them; tests/training/ runs them both ways.
TRAINING_TWINS: dict[str, Twin | str] = {
    "create_trainee": Twin("trainee", ("POST /trainees",)),
    "start_practice": Twin("quiz", ("POST /practice",)),
    "answer_practice": Twin("quiz", ("POST /practice/{session_id}/answers",)),
    "session": Twin("exam", ("GET /practice/{session_id}", "GET /exams/{exam_id}")),
    "start_exam": Twin("exam", ("POST /exams",)),
    "answer_exam": Twin("exam", ("POST /exams/{exam_id}/answers",)),
    "close_exam": Twin("exam", ("POST /exams/{exam_id}/close",)),
    "exam_result": Twin("exam", ("GET /exams/{exam_id}/result",)),
    "progress": Twin("progress", ("GET /progress",)),
    "export_history": Twin("history export", ("GET /history",)),
    "import_history": Twin("history import", ("POST /history",)),
    "bank": "the question bank of the loaded build, which the methods above draw from",
}
# Not run both ways below, and why.
COVERED_ELSEWHERE = {
    "export": "a whole-graph file download (the store's dump, written once per build): "
    "tests/test_api.py and tests/test_cli_foundation.py check that both serve service.export's file",
    "sparql": "its endpoint runs worker processes: tests/test_linked_data.py checks the CLI prints "
    "service.sparql's body and the route serves it",
}
# Routes that are no service method's twin.
HTTP_ONLY = {
    "GET /health": "the serving process's state (build, staleness, model): a CLI run serves nothing",
    "GET /documents": "a view of the loaded artifact for the web page (api/routes/web.py)",
    "GET /documents/{doc}": "a view of the loaded artifact for the web page (api/routes/web.py)",
    "GET /catalog": "a view of the loaded artifact for the web page (api/routes/web.py)",
    "GET /catalog/page": "the web page's paged card index (api/routes/web.py); the CLI searches "
    "with `cards search`",
    "GET /briefs": "labels and places of a few nodes for the web page (api/routes/web.py)",
    "GET /documents/{doc}/layout": "the web page's reading layout of a document (api/doc_layout.py)",
    "GET /metrics": "the serving process's request and answer counters (api/metrics.py)",
    "GET /context.jsonld": "the JSON-LD context the compacted JSON-LD names by URL: a document "
    "for JSON-LD processors, not a query",
}
# CLI commands that are no service method's twin.
CLI_ONLY = {
    "ingest": "builds the artifact the service loads (the server rebuilds a stale one itself)",
    "serve": "starts the HTTP server",
    "mcp": "serves the service methods as MCP tools over stdio (api/mcp_server.py; over HTTP "
    "at /mcp): tests/test_mcp.py checks them",
    "eval": "the answer evaluation over a JSONL file (kb/evaluation.py), calling ask",
    "eval-search": "the search evaluation over a JSONL file (kb/evaluation.py), calling search",
    "model prepare": "prepares the embedding model",
    "cards import": "merges card data files into the corpus (an input, not a query)",
    "cards fetch": "downloads card data into the corpus (an input, not a query)",
    "db migrate": "creates or upgrades the training database's tables (serve does it too)",
    "db backup": "copies the SQLite training database (operations, not a query)",
}


def public_members() -> set[str]:
    return {name for name, _ in inspect.getmembers(RulingsService) if not name.startswith("_")}


def app_routes(app: Any) -> set[str]:
    return {
        f"{method} {route.path_format}"
        for route in app.routes
        if isinstance(route, APIRoute) and route.include_in_schema
        for method in route.methods
    }


def cli_commands() -> set[str]:
    """Every command, a group's as "group command"."""

    def walk(command: Any, prefix: str) -> Iterator[str]:
        subcommands = getattr(command, "commands", None)  # a group (Typer vendors its click)
        if isinstance(subcommands, dict):
            for name, sub in subcommands.items():
                yield from walk(sub, f"{prefix}{name} ")
        else:
            yield prefix.strip()

    return set(walk(get_command(cli_app), ""))


# --- the listing -----------------------------------------------------------------------------


def test_every_service_method_is_listed() -> None:
    assert public_members() == set(TWINS), "list the new method in TWINS (or say why not)"
    training = {n for n, _ in inspect.getmembers(TrainingService) if not n.startswith("_")}
    assert training == set(TRAINING_TWINS), "list the new method in TRAINING_TWINS"


def test_every_twin_exists_and_every_route_and_command_is_accounted_for(
    hash_service: RulingsService,
) -> None:
    routes = app_routes(create_app(hash_service))
    commands = cli_commands()
    twins = [t for t in (*TWINS.values(), *TRAINING_TWINS.values()) if isinstance(t, Twin)]
    for twin in twins:
        assert twin.cli in commands, twin
        assert set(twin.routes) <= routes, twin
    assert routes == {r for t in twins for r in t.routes} | set(HTTP_ONLY)
    assert commands == {t.cli for t in twins} | set(CLI_ONLY)
    assert set(COVERED_ELSEWHERE) <= {m for m, t in TWINS.items() if isinstance(t, Twin)}


# --- both ways, same output ------------------------------------------------------------------


@pytest.fixture(scope="module")
def kb_dir(built: Any, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A private copy of the session build (the CLI writes its embedding cache there)."""
    target = tmp_path_factory.mktemp("parity") / "data"
    shutil.copytree(built.data_dir, target, symlinks=True)
    return target


@pytest.fixture(scope="module")
def client(kb_dir: Path, corpus_dir: Path) -> Iterator[TestClient]:
    """The app over a runtime loaded from the settings the CLI gets from its options."""
    settings = Settings.from_env({}, data_dir=kb_dir, corpus_dir=corpus_dir, embedder="hash")
    runtime = load_runtime(settings)
    yield TestClient(create_app(runtime.service), raise_server_exceptions=False)
    runtime.service.close()


def run_cli(args: list[str], kb_dir: Path, corpus_dir: Path) -> Any:
    """The CLI with only these options (no YGO_* variables of the environment)."""
    unset: dict[str, str | None] = {k: None for k in os.environ if k.startswith("YGO_")}
    where = ["--data", str(kb_dir), "--corpus", str(corpus_dir)]
    return CliRunner().invoke(cli_app, [*args, *where], env=unset)


# Each CLI run loads the KB anew (as a real run does), so the cases are few but varied.
SEARCHING = ["--embedder", "hash"]
ASK_VERDICT = "Can Divine Wrath negate the summon of Cyber Dragon?"
ASK_NONE = "Qual é a melhor pizza?"
JSON_CASES: list[tuple[str, list[str], str, str, dict[str, Any]]] = [
    (
        "ask",
        ["ask", ASK_VERDICT, "--k", "3", "--json"],
        "post",
        "/ask",
        {"json": {"question": ASK_VERDICT, "k": 3}},
    ),
    (
        "ask",
        ["ask", ASK_NONE, "--format", "edison", "--json"],
        "post",
        "/ask",
        {"json": {"question": ASK_NONE, "format": "edison"}},
    ),
    (
        "search",
        ["search", "corrente", "--k", "4", "--type", "Example", "--format", "edison", "--json"],
        "get",
        "/search",
        {"params": {"q": "corrente", "k": 4, "type": "Example", "format": "edison"}},
    ),
    (
        "link",
        ["link", "Solemn Judgement vs Dragão Cibernético"],
        "get",
        "/link",
        {"params": {"q": "Solemn Judgement vs Dragão Cibernético"}},
    ),
    ("stats", ["stats", "--json"], "get", "/stats", {}),
    ("show", ["show", "edison/rule-05", "--json"], "get", "/id/edison/rule-05", {}),
    (
        "quiz",
        ["quiz", "--n", "4", "--seed", "7", "--format", "edison", "--json"],
        "get",
        "/quiz",
        {"params": {"n": 4, "seed": 7, "format": "edison"}},
    ),
    (
        "quiz_topics",
        ["quiz-topics", "--format", "tag", "--json"],
        "get",
        "/quiz/topics",
        {"params": {"format": "tag"}},
    ),
    (
        "render",
        ["render", "edison/rule-05", "--as", "json"],
        "get",
        "/rules/edison/rule-05",
        {"params": {"as": "json"}},
    ),
    (
        "cards",
        ["cards", "search", "Jinzo", "--k", "3", "--json"],
        "get",
        "/cards",
        {"params": {"q": "Jinzo", "k": 3}},
    ),
    (
        "card_legality",
        ["cards", "legality", "card/jinzo", "--format", "edison", "--json"],
        "get",
        "/cards/card/jinzo/legality",
        {"params": {"format": "edison"}},
    ),
    (
        "card",
        ["cards", "report", "Cyber Dragon", "--json"],
        "get",
        "/cards/Cyber Dragon/report",
        {},
    ),
    (
        "rules_about",
        ["rules-about", "Union monster", "--format", "edison", "--k", "3", "--json"],
        "get",
        "/rules-about",
        {"params": {"subject": "Union monster", "format": "edison", "k": 3}},
    ),
    (
        "banlist",
        ["banlist", "--format", "edison", "--json"],
        "get",
        "/banlist",
        {"params": {"format": "edison"}},
    ),
]
TEXT_CASES: list[tuple[str, list[str], str, dict[str, Any]]] = [
    # node_rdf serializes the whole graph to RDF first: one case.
    ("node_rdf", ["show", "edison/rule-05", "--as", "ttl"], "/id/edison/rule-05", {"as": "ttl"}),
    ("vocab", ["vocab", "--as", "jsonld"], "/vocab", {"as": "jsonld"}),
    ("render", ["render", "edison/rule-08"], "/rules/edison/rule-08", {}),
    ("render", ["render", "card/jinzo", "--as", "markdown"], "/cards/jinzo", {"as": "markdown"}),
    (
        "render",
        ["render", "edison/rule-10", "--links", "wiki", "--template", "Card Rulings:{name_en}"],
        "/rules/edison/rule-10",
        {"links": "wiki", "template": "Card Rulings:{name_en}"},
    ),
    (
        "lflist",
        ["banlist", "--format", "edison", "--as", "lflist"],
        "/banlist",
        {"format": "edison", "as": "lflist"},
    ),
]


@pytest.mark.parametrize(
    ("method", "args", "verb", "url", "kwargs"),
    JSON_CASES,
    ids=[f"{c[0]}-{i}" for i, c in enumerate(JSON_CASES)],
)
def test_cli_json_equals_route_json(
    client: TestClient,
    kb_dir: Path,
    corpus_dir: Path,
    method: str,
    args: list[str],
    verb: str,
    url: str,
    kwargs: dict[str, Any],
) -> None:
    assert isinstance(TWINS[method], Twin)
    extra = SEARCHING if method in ("ask", "search") else []
    printed = run_cli([*args, *extra], kb_dir, corpus_dir)
    assert printed.exit_code == 0, printed.output
    served = getattr(client, verb)(url, **kwargs)
    assert served.status_code == 200, served.text
    assert json.loads(printed.stdout) == served.json()


@pytest.mark.parametrize(
    ("method", "args", "url", "params"),
    TEXT_CASES,
    ids=[f"{c[0]}-{i}" for i, c in enumerate(TEXT_CASES)],
)
def test_cli_text_equals_route_body(
    client: TestClient,
    kb_dir: Path,
    corpus_dir: Path,
    method: str,
    args: list[str],
    url: str,
    params: dict[str, Any],
) -> None:
    assert isinstance(TWINS[method], Twin)
    printed = run_cli(args, kb_dir, corpus_dir)
    assert printed.exit_code == 0, printed.output
    served = client.get(url, params=params)
    assert served.status_code == 200, served.text
    assert printed.stdout == served.text


def test_quiz_check_cli_equals_route(client: TestClient, kb_dir: Path, corpus_dir: Path) -> None:
    questions = client.get("/quiz", params={"n": 4, "seed": 3}).json()["questions"]
    answers: list[dict[str, Any]] = [{"id": q["id"], "answer": q["answer"]} for q in questions]
    answers[0]["answer"] = next(
        o["key"] for o in questions[0]["options"] if o["key"] != questions[0]["answer"]
    )
    answers.append({"id": questions[1]["id"], "answer": 1})  # a 1-based option number
    served = client.post("/quiz/check", json={"answers": answers})
    assert served.status_code == 200, served.text
    assert served.json()["correct"] < served.json()["total"]
    printed = run_cli(["quiz-check", json.dumps({"answers": answers})], kb_dir, corpus_dir)
    assert printed.exit_code == 0, printed.output
    assert json.loads(printed.stdout) == served.json()


def test_deck_check_cli_equals_route(
    client: TestClient, kb_dir: Path, corpus_dir: Path, tmp_path: Path
) -> None:
    deck = "3x Jinzo\n2 Cyber Dragon\nSolemn Judgment\n"
    served = client.post("/deck/validate", json={"format": "edison", "deck": deck})
    assert served.status_code == 200, served.text
    file = tmp_path / "deck.txt"
    file.write_text(deck, "utf-8")
    printed = run_cli(
        ["deck", "check", str(file), "--format", "edison", "--json"], kb_dir, corpus_dir
    )
    assert printed.exit_code == (0 if served.json()["ok"] else 1), printed.output
    assert json.loads(printed.stdout) == served.json()


@pytest.mark.parametrize(
    ("args", "verb", "url", "kwargs", "status", "code"),
    [
        (["show", "edison/rule-55"], "get", "/id/edison/rule-55", {}, 404, 1),
        (["link", " "], "get", "/link", {"params": {"q": " "}}, 422, 2),
        (["show", "edison", "--as", "pdf"], "get", "/id/edison", {"params": {"as": "pdf"}}, 422, 2),
        (
            ["quiz-check", '[{"id": "nope", "answer": "a"}]'],
            "post",
            "/quiz/check",
            {"json": {"answers": [{"id": "nope", "answer": "a"}]}},
            422,
            2,
        ),
    ],
)
def test_errors_say_the_same_both_ways(
    client: TestClient,
    kb_dir: Path,
    corpus_dir: Path,
    args: list[str],
    verb: str,
    url: str,
    kwargs: dict[str, Any],
    status: int,
    code: int,
) -> None:
    """The CLI's `Error: …` (exit 1, or 2 for a bad parameter) is the envelope's `error`."""
    printed = run_cli(args, kb_dir, corpus_dir)
    served = getattr(client, verb)(url, **kwargs)
    assert served.status_code == status, served.text
    assert printed.exit_code == code, printed.output
    message = served.json()["error"]
    assert printed.stderr.strip() == f"Error: {message}"
