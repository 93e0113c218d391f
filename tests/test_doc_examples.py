"""Every runnable example of README.md and docs/*.md runs, with the status and output documented.

The convention is in tests/doc_examples.py (and docs/development.md). CLI examples run through
Typer's runner (`--data` and `--corpus` added where the command takes them, the working directory
a temporary folder that sees the repository's `tests/` and `corpus/`); `curl` and SPARQL examples
run through FastAPI's TestClient over the app of the same settings. Both use the session build
and the real embedding model, since the documented answers are the model's: one KB load per
distinct settings for the whole module.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from doc_examples import (  # type: ignore[import-not-found]
    Command,
    Example,
    examples,
    expected_http_status,
    missing_output,
    read_blocks,
    unrunnable,
)
from fastapi.testclient import TestClient
from tests_support import REPO  # type: ignore[import-not-found]
from typer.main import get_command
from typer.testing import CliRunner

import api.cli
from api.app import create_app
from api.cli import app as cli_app
from kb.config import Settings

pytestmark = pytest.mark.model

PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
EXAMPLES = [e for page in PAGES for e in examples(read_blocks(page, REPO))]
BASE = "http://127.0.0.1:8000"


@pytest.fixture(scope="module")
def kb_dir(built: Any, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A private copy of the session build, with the prepared model when the repo has one."""
    target = tmp_path_factory.mktemp("doc-examples") / "data"
    shutil.copytree(built.data_dir, target, symlinks=True)
    models = REPO / "data" / "models"
    if models.is_dir() and not (target / "models").exists():
        (target / "models").symlink_to(models.resolve())
    return target


class Loaded:
    """One loaded service (and one app) per distinct settings, shared by the CLI and HTTP."""

    def __init__(self) -> None:
        self.services: dict[Settings, Any] = {}
        self.clients: dict[Settings, TestClient] = {}

    def service(self, s: Settings, **_: bool) -> Any:
        """Stands in for `api.cli.service` (which loads the KB anew on every call)."""
        from api.runtime import load_runtime

        if s not in self.services:
            self.services[s] = load_runtime(s).service
        return self.services[s]

    def client(self, s: Settings) -> TestClient:
        if s not in self.clients:
            self.clients[s] = TestClient(create_app(self.service(s)))
        return self.clients[s]


@pytest.fixture(scope="module")
def loaded() -> Iterator[Loaded]:
    kb = Loaded()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(api.cli, "service", kb.service)
        yield kb
    for svc in kb.services.values():
        svc.close()


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where examples run: files they write stay here; `tests/` and `corpus/` are the repo's."""
    root = tmp_path_factory.mktemp("doc-examples-cwd")
    for name in ("tests", "corpus"):
        (root / name).symlink_to(REPO / name)
    return root


def settings_for(kb_dir: Path, env: dict[str, str]) -> Settings:
    return Settings.from_env(env, data_dir=kb_dir, corpus_dir=REPO / "corpus")


def run_cli(command: Command, kb_dir: Path) -> tuple[int, str]:
    """Exit status and output (stdout then stderr) of a `ygo-rulings` example."""
    args = command.argv[1:]
    target: Any = get_command(cli_app)
    for word in args:
        subcommands = getattr(target, "commands", None)
        if not isinstance(subcommands, dict) or word not in subcommands:
            break
        target = subcommands[word]
    takes = {opt for p in getattr(target, "params", []) for opt in p.opts}
    for option, value in (("--data", kb_dir), ("--corpus", REPO / "corpus")):
        if option in takes and option not in args:
            args += [option, str(value)]
    env: dict[str, str | None] = {k: None for k in os.environ if k.startswith("YGO_")}
    env.update(command.env)
    result = CliRunner().invoke(cli_app, args, env=env)
    return result.exit_code, result.stdout + result.stderr


def curl_request(words: list[str]) -> tuple[str, str, dict[str, str], bytes | None, bool]:
    """(method, path and query, headers, body, show headers) of a `curl` example."""
    method: str | None = None
    headers: dict[str, str] = {}
    data: list[str] = []
    url = ""
    get = head = include = False
    rest = iter(words[1:])
    for word in rest:
        if word in ("-X", "--request"):
            method = next(rest)
        elif word in ("-H", "--header"):
            name, _, value = next(rest).partition(":")
            headers[name.strip().lower()] = value.strip()
        elif word in ("-d", "--data", "--data-raw"):
            data.append(next(rest))
        elif word == "--data-urlencode":
            name, eq, value = next(rest).partition("=")
            if not eq or "@" in name:
                raise ValueError(f"unsupported --data-urlencode form: {name}")
            data.append(f"{name}={quote(value, safe='')}" if name else quote(value, safe=""))
        elif word.startswith(BASE):
            url = word[len(BASE) :]
        elif word.startswith("-") and not word.startswith("--") and set(word[1:]) <= set("sSGiI"):
            get |= "G" in word
            include |= "i" in word or "I" in word
            head |= "I" in word
        else:
            raise ValueError(f"unsupported curl argument in a documented example: {word}")
    if not url:
        raise ValueError(f"no {BASE} URL in the curl example")
    body: bytes | None = None
    if data and (get or head):
        url += ("&" if "?" in url else "?") + "&".join(data)
    elif data:
        body = "&".join(data).encode()
        headers.setdefault("content-type", "application/x-www-form-urlencoded")
    verb = method or ("HEAD" if head else "POST" if body is not None else "GET")
    return verb, url, headers, body, include


def run_http(example: Example, command: Command, client: TestClient) -> tuple[int, str]:
    """Status and text of a `curl` or SPARQL example (with `-i`: the status line and headers
    first, as curl prints them)."""
    if example.block.info == "sparql":
        response = client.get(
            "/sparql", params={"query": command.words[1]}, headers={"accept": "text/csv"}
        )
        return response.status_code, response.text
    method, url, headers, body, include = curl_request(command.argv)
    # as curl does without -L: a redirect is the answer
    response = client.request(method, url, headers=headers, content=body, follow_redirects=False)
    if not include:
        return response.status_code, response.text
    lines = [f"HTTP/1.1 {response.status_code} {response.reason_phrase}"]
    lines += [f"{k}: {v}" for k, v in response.headers.items()]
    return response.status_code, "\n".join(lines) + "\n\n" + response.text


@pytest.mark.parametrize("example", EXAMPLES, ids=[e.where for e in EXAMPLES])
def test_example_runs_as_documented(
    example: Example, kb_dir: Path, loaded: Loaded, workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert not unrunnable(example), (
        f"{example.where}: these commands cannot run in tests: {unrunnable(example)}; mark the "
        "block with <!-- no-test: why --> on the line before it"
    )
    monkeypatch.chdir(workdir)
    for command in example.commands:
        where = f"{example.block.path}:{command.line}"
        if example.block.info == "sparql" or command.argv[0] == "curl":
            client = loaded.client(settings_for(kb_dir, command.env))
            status, shown = run_http(example, command, client)
            expected = expected_http_status(command.output)
            if expected is None:
                assert 200 <= status < 300, f"{where}: HTTP {status}\n{shown[:1000]}"
            else:
                assert status == expected, f"{where}: HTTP {status}, documented {expected}"
        else:
            code, shown = run_cli(command, kb_dir)
            assert code == command.status, (
                f"{where}: exit {code}, documented {command.status}\n{shown[:2000]}"
            )
        lacking = missing_output(command.output, shown)
        assert not lacking, (
            f"{where}: documented output not in the real one: {lacking}\n--- real:\n{shown[:3000]}"
        )
