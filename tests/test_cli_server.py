"""`--server URL` / `YGO_SERVER`: every query command prints the same thing in process and
through a running server.

Each case runs once with the KB loaded in this process (`api.cli.load_service`, memoized for
the module) and once against a real `ygo-rulings serve` started here on a copy of the session
build (hash embedder both ways); stdout is compared as JSON (or as text for `--as ttl`,
`--as lflist`), the exit status and the first line of stderr as they are. Errors: the server's
error envelope is passed on, an unreachable server or one that answers without an envelope is
named, and exits non-zero.
"""

from __future__ import annotations

import json
import os
import shutil
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from tests_support import REPO, free_port, running_server  # type: ignore[import-not-found]
from typer.testing import CliRunner, Result

import api.cli
from api.cli import app as cli_app
from api.remote import RemoteService, ServerError, check_url
from kb.config import Settings

pytestmark = pytest.mark.e2e

CORPUS = REPO / "corpus"
HASH_ENV: dict[str, str | None] = {
    **{k: None for k in os.environ if k.startswith("YGO_")},
    "YGO_EMBEDDER": "hash",
}
YES = "Julgamento Solene pode negar a Invocação do Dragão Cibernético?"
VALUE = "Quantas cópias de Pote da Ganância posso usar no Edison?"
DECK = "3x Pot of Greed\n40x Jinzo\n"

# (arguments, stdout is JSON): each is run in process and with --server.
PARITY: dict[str, tuple[tuple[str, ...], bool]] = {
    "ask yes": (("ask", YES, "--json"), True),
    "ask value": (("ask", VALUE, "--format", "edison", "--k", "3", "--json"), True),
    "ask text": (("ask", YES), False),
    "search": (("search", "corrente", "--k", "3", "--json"), True),
    "search format": (("search", "Dragao Negro Armdo", "--format", "tag", "--json"), True),
    "link": (("link", "Solemn Judgment vs Dragão Cibernético"), True),
    "show": (("show", "edison/rule-05", "--json"), True),
    "show ttl": (("show", "card/jinzo", "--as", "ttl"), False),
    "stats": (("stats", "--json"), True),
    "rules-about": (("rules-about", "concept/inherent-special-summon", "--k", "2", "--json"), True),
    "cards search": (("cards", "search", "dragao negro armdo", "--k", "3", "--json"), True),
    "cards legality": (
        ("cards", "legality", "card/pot-of-greed", "--format", "edison", "--json"),
        True,
    ),
    "cards report": (
        ("cards", "report", "card/pot-of-greed", "--format", "edison", "--json"),
        True,
    ),
    "banlist": (("banlist", "--format", "edison", "--json"), True),
    "banlist lflist": (("banlist", "--format", "edison", "--as", "lflist"), False),
    "deck check": (("deck", "check", "DECK", "--format", "edison", "--json"), True),
    # errors: the same message and exit status both ways
    "bad k": (("search", "corrente", "--k", "0", "--json"), True),
    "unknown id": (("show", "nothing/here", "--json"), True),
    "unknown card": (("cards", "legality", "card/no-such-card-at-all", "--json"), True),
    "unknown format": (("cards", "search", "Jinzo", "--format", "nope", "--json"), True),
}


@pytest.fixture(scope="module")
def kb_dir(built: Any, tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("cli-server") / "data"
    shutil.copytree(built.data_dir, target, symlinks=True)
    return target


@pytest.fixture(scope="module")
def server(kb_dir: Path) -> Iterator[str]:
    with running_server(kb_dir) as base:
        yield base


@pytest.fixture(scope="module", autouse=True)
def one_load_per_settings() -> Iterator[None]:
    """The in-process runs load the KB once per settings (the server runs are untouched)."""
    from api.runtime import load_runtime

    loaded: dict[Settings, Any] = {}

    def load_service(s: Settings, **_: bool) -> Any:
        if s not in loaded:
            loaded[s] = load_runtime(s).service
        return loaded[s]

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(api.cli, "load_service", load_service)
        yield
    for svc in loaded.values():
        svc.close()


def run(args: list[str], kb_dir: Path, server: str | None = None, **env: str) -> Result:
    where = ["--data", str(kb_dir), "--corpus", str(CORPUS)]
    via = ["--server", server] if server else []
    return CliRunner().invoke(cli_app, [*args, *where, *via], env={**HASH_ENV, **env})


def first_line(text: str) -> str:
    return text.splitlines()[0] if text else ""


@pytest.mark.parametrize("name", sorted(PARITY))
def test_same_output_in_process_and_through_the_server(
    name: str, kb_dir: Path, server: str, tmp_path: Path
) -> None:
    args, as_json = PARITY[name]
    deck = tmp_path / "deck.txt"
    deck.write_text(DECK, "utf-8")
    argv = [str(deck) if a == "DECK" else a for a in args]
    local = run(argv, kb_dir)
    remote = run(argv, kb_dir, server)
    assert "Traceback" not in local.output + remote.output
    assert remote.exit_code == local.exit_code, (local.output[-800:], remote.output[-800:])
    if as_json and local.stdout.strip():
        assert json.loads(remote.stdout) == json.loads(local.stdout)
    else:
        assert remote.stdout == local.stdout
    assert first_line(remote.stderr) == first_line(local.stderr)
    if remote.stderr.startswith("Error"):
        # the API's envelope follows the message, with the status the exit code comes from
        envelope = json.loads(remote.stderr.splitlines()[1])
        assert envelope["ok"] is False and envelope["error"] in remote.stderr.splitlines()[0]
        assert (envelope["status"] in (400, 422)) == (remote.exit_code == 2)


def test_ygo_server_names_the_server(kb_dir: Path, server: str) -> None:
    remote = run(["cards", "search", "Jinzo", "--k", "1", "--json"], kb_dir, YGO_SERVER=server)
    assert remote.exit_code == 0, remote.output
    assert json.loads(remote.stdout)["hits"][0]["id"] == "card/jinzo"


def test_an_unreachable_server_is_named(kb_dir: Path) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    result = run(["ask", YES, "--json"], kb_dir, url)
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr.startswith(f"Error: cannot reach the server at {url}:")


def test_a_url_that_is_not_http_is_refused(kb_dir: Path) -> None:
    result = run(["stats"], kb_dir, "ftp://127.0.0.1/")
    assert result.exit_code == 2
    assert "Error: server: 'ftp://127.0.0.1/' is not an http:// or https:// URL" in result.stderr
    with pytest.raises(ValueError):
        check_url("127.0.0.1:8000")
    assert check_url(" http://127.0.0.1:8000/ ") == "http://127.0.0.1:8000"


class Stub(BaseHTTPRequestHandler):
    """A server that answers every request with the status and body of its path."""

    answers = {  # noqa: RUF012 - fixed table of the stub
        "/ask": (503, b'{"ok": false, "error": "busy: retry", "status": 503}', "application/json"),
        "/search": (502, b"<html>Bad Gateway</html>", "text/html"),
        "/stats": (200, b"not json", "text/plain"),
    }

    def do_GET(self) -> None:
        if self.path.startswith("/link"):
            time.sleep(1.0)  # past the client's timeout in test_a_silent_server_is_named
        status, body, media = self.answers.get(self.path.split("?")[0], (404, b"", "text/plain"))
        self.send_response(status)
        self.send_header("content-type", media)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_POST = do_GET

    def log_message(self, *_: Any) -> None:
        pass


@pytest.fixture
def stub() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Stub)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_server_errors_are_passed_on(stub: str, kb_dir: Path) -> None:
    busy = run(["ask", YES, "--json"], kb_dir, stub)
    assert busy.exit_code == 1 and busy.stdout == ""
    assert busy.stderr.splitlines()[0] == "Error: busy: retry"
    assert json.loads(busy.stderr.splitlines()[1]) == {
        "ok": False,
        "error": "busy: retry",
        "status": 503,
    }
    gateway = run(["search", "corrente"], kb_dir, stub)
    assert gateway.exit_code == 1
    assert f"the server at {stub} answered 502 Bad Gateway without an error envelope" in (
        gateway.stderr
    )
    garbled = run(["stats"], kb_dir, stub)
    assert garbled.exit_code == 1
    assert "answered /stats with something other than JSON" in garbled.stderr


def test_remote_service_errors_carry_the_status(stub: str) -> None:
    with pytest.raises(ServerError) as refused:
        RemoteService(stub).ask(YES)
    assert refused.value.status == 503 and refused.value.exit_code == 1
    assert refused.value.envelope is not None


def test_a_silent_server_is_named(stub: str) -> None:
    with pytest.raises(ServerError, match=r"did not answer within 0\.2 s"):
        RemoteService(stub, timeout=0.2).link("Jinzo")
