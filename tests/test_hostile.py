"""One hostile suite: what a careless or malicious client sends, each answered with a clean 4xx (or
a documented 503) in the JSON envelope, never a 5xx.

Through the ASGI app (lite KB): hostile JSON keys and values at any depth (lone surrogates, NUL,
control characters, non-characters), sizes, encodings and content types, traversal in URL paths,
SPARQL (updates, syntax errors, results past the row and byte bounds, a worker dying under a
query), methods and concurrency. Through a real uvicorn server on loopback (raw sockets): what
only a server shows, a request its HTTP parser rejects and paths no client library would send.
And a corpus manifest naming a file outside the corpus folder is refused at ingest.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
import uvicorn
from fastapi.testclient import TestClient
from tests_support import free_port, running_server  # type: ignore[import-not-found]
from typer.testing import CliRunner

from api.app import create_app
from api.cli import app as cli_app
from api.http_protocol import EnvelopeH11Protocol
from ingest.corpus import load_manifest
from kb.errors import ERROR_CODES, IngestError
from kb.service import RulingsService

if TYPE_CHECKING:
    from conftest import Built

ASK = "Julgamento Solene pode negar o Dragão Cibernético?"
JSON = {"content-type": "application/json"}
SPARQL_BODY = {"content-type": "application/sparql-query"}
FORM = {"content-type": "application/x-www-form-urlencoded"}
# What a host file or the source tree would show if a traversal reached it.
LEAKS = ("root:", "[project]", "import ", "PRETTY_NAME", "def ")


@pytest.fixture(scope="module")
def client(lite_service: RulingsService) -> TestClient:
    return TestClient(create_app(lite_service), raise_server_exceptions=False)


def clean(r: Any, *statuses: int) -> dict[str, Any]:
    """The envelope of a clean refusal: one of `statuses` (a 4xx, or 503), JSON, a known code,
    a field that can be written (no lone surrogate), and nothing of a host file."""
    assert r.status_code in statuses, f"{r.status_code}: {r.text[:500]}"
    assert r.status_code < 500 or r.status_code == 503
    assert r.headers["content-type"].startswith("application/json"), r.headers
    assert r.headers.get("x-content-type-options") == "nosniff"
    body: dict[str, Any] = r.json()
    assert body["ok"] is False and body["status"] == r.status_code
    assert body["code"] in ERROR_CODES and isinstance(body["error"], str) and body["error"]
    for text in (body["error"], body.get("field") or ""):
        text.encode("utf-8")  # escaped: no lone surrogate survives into the envelope
        assert "\x00" not in text
    assert not any(leak in r.text for leak in LEAKS), r.text[:500]
    return body


# --- hostile JSON keys, on every JSON POST route -------------------------------------------------

ROUTES = {
    "/ask": b'"question": "Jinzo?"',
    "/deck/validate": b'"deck": "3 Jinzo"',
    "/quiz/check": b'"answers": [{"id": "x", "answer": "a"}]',
}
# (the key as JSON spells it, the field the envelope names: escaped)
HOSTILE_KEYS = [
    (rb"\udfff", r"\udfff"),
    (rb"\ud800", r"\ud800"),
    (rb"\udc00\ud800", r"\udc00\ud800"),  # a surrogate pair the wrong way round
    (rb"a\u0000b", r"a\u0000b"),
    (rb"\u001b[31m", r"\u001b[31m"),
    (rb"\u007f", r"\u007f"),
    (rb"\uffff", r"\uffff"),
    (rb"\ufffe", r"\ufffe"),
]


@pytest.mark.parametrize("route", list(ROUTES))
@pytest.mark.parametrize(("key", "field"), HOSTILE_KEYS)
def test_a_hostile_key_is_a_422_naming_it_escaped(
    client: TestClient, route: str, key: bytes, field: str
) -> None:
    body = b"{" + ROUTES[route] + b', "' + key + b'": 1}'
    envelope = clean(client.post(route, content=body, headers=JSON), 422)
    assert envelope["code"] == "unsafe_string" and envelope["field"] == field
    assert envelope["error"].startswith(f"{field}: contains ")


NESTED_KEYS = [
    ("/ask", b'{"question": "ok?", "meta": {"\\udfff": 1}}', r"meta.\udfff"),
    ("/ask", b'{"question": "ok?", "a": [[{"b": {"\\u0000": 1}}]]}', r"a.0.0.b.\u0000"),
    ("/deck/validate", b'{"deck": "3 Jinzo", "x": {"y": [{"\\ud800z": 0}]}}', r"x.y.0.\ud800z"),
    (
        "/quiz/check",
        b'{"answers": [{"id": "x", "answer": "a", "why": {"\\udfff": 1}}]}',
        r"answers.0.why.\udfff",
    ),
    ("/ask", b'{"question": "ok?", "d": ' + b"[" * 60 + b'{"\\ud800": 1}' + b"]" * 60 + b"}", None),
    ("/ask", b'{"question": "ok?", "\\udfff": {"\\ud800": "\\u0000"}}', r"\udfff"),
]


@pytest.mark.parametrize(("route", "body", "field"), NESTED_KEYS)
def test_a_hostile_key_at_any_depth_is_a_422(
    client: TestClient, route: str, body: bytes, field: str | None
) -> None:
    envelope = clean(client.post(route, content=body, headers=JSON), 422)
    assert envelope["code"] == "unsafe_string"
    if field is not None:
        assert envelope["field"] == field
    else:
        assert envelope["field"].startswith("d.0.0.") and envelope["field"].endswith(r"\ud800")


# --- hostile values --------------------------------------------------------------------------

VALUE_SLOTS = [
    ("/ask", '{{"question": "{v}"}}', "question"),
    ("/ask", '{{"question": "ok?", "format": "{v}"}}', "format"),
    ("/deck/validate", '{{"deck": "3 Jinzo{v}"}}', "deck"),
    ("/quiz/check", '{{"answers": [{{"id": "{v}", "answer": "a"}}]}}', "answers.0.id"),
    ("/quiz/check", '{{"answers": [{{"id": "x", "answer": "{v}"}}]}}', "answers.0.answer"),
]
HOSTILE_VALUES = [r"\ud800", r"\u0000", r"\u0007", r"\ufffe"]


@pytest.mark.parametrize(("route", "template", "field"), VALUE_SLOTS)
@pytest.mark.parametrize("value", HOSTILE_VALUES)
def test_a_hostile_value_is_a_422_naming_its_field(
    client: TestClient, route: str, template: str, field: str, value: str
) -> None:
    body = template.format(v=value).encode("ascii")
    envelope = clean(client.post(route, content=body, headers=JSON), 422)
    assert envelope["code"] == "unsafe_string" and envelope["field"] == field


# --- sizes -----------------------------------------------------------------------------------

SIZES = [
    ("post", "/ask", {"json": {"question": "x" * 1001}}, 422, "too_long"),
    ("post", "/ask", {"json": {"question": "x" * 60_000}}, 422, "too_long"),
    (
        "post",
        "/ask",
        {"content": json.dumps({"question": "x" * 70_000}), "headers": JSON},
        413,
        None,
    ),
    ("post", "/deck/validate", {"json": {"deck": "Jinzo\n" * 20_000}}, 413, None),
    (
        "post",
        "/quiz/check",
        {"json": {"answers": [{"id": "x" * 70_000, "answer": "a"}]}},
        413,
        None,
    ),
    ("get", "/search", {"params": {"q": "x" * 1001}}, 422, "too_long"),
    ("get", "/search", {"params": {"q": "x" * 50_000}}, 422, "too_long"),
    ("get", "/link", {"params": {"q": "Jinzo " * 1000}}, 422, "too_long"),
    ("get", "/briefs", {"params": {"id": [f"x{i}" for i in range(200)]}}, 422, None),
    ("get", "/search", {"params": {"q": "x", "k": "9" * 40}}, 422, "out_of_range"),
    ("post", "/sparql", {"content": "# " + "x" * 300_000, "headers": SPARQL_BODY}, 413, None),
    (
        "post",
        "/ask",
        {"content": b'{"question": "x", "k": ' + b"9" * 5000 + b"}", "headers": JSON},
        422,
        "bad_json",
    ),
]


@pytest.mark.parametrize(("method", "url", "kwargs", "status", "code"), SIZES)
def test_sizes_past_a_limit_are_refused(
    client: TestClient, method: str, url: str, kwargs: dict[str, Any], status: int, code: str | None
) -> None:
    envelope = clean(getattr(client, method)(url, **kwargs), status)
    if code is not None:
        assert envelope["code"] == code


# --- encodings and content types -------------------------------------------------------------

NOT_UTF8 = [
    '{"question": "coração?"}'.encode("latin-1"),
    '{"question": "x"}'.encode("utf-16"),
    '{"question": "x"}'.encode("utf-16-le"),
    '{"question": "x"}'.encode("utf-32"),
    b'{"question": "\xc0\xa2"}',  # an overlong encoding
    b'{"question": "\xed\xa0\x80"}',  # a surrogate encoded in UTF-8 (CESU-8)
    b'{"question": "\xe2\x82"}',  # a truncated sequence
    b'{"question": "\xff"}',
]


@pytest.mark.parametrize("body", NOT_UTF8)
def test_a_body_that_is_not_utf8_is_a_422(client: TestClient, body: bytes) -> None:
    envelope = clean(client.post("/ask", content=body, headers=JSON), 422)
    assert envelope["code"] == "bad_json" and envelope["field"] == "body"
    assert "UTF-8" in envelope["error"]


NOT_JSON = [
    (b'{"question": "ok?"', "Expecting ',' delimiter at line 1, column 19"),
    (b'{"question": "ok?",\n "k": 3,}', "line 2, column 9"),
    (b"{'question': 'ok?'}", "line 1, column 2"),
    (b"\x00\x00\x00", "line 1, column 1"),
    (b"[" * 5000 + b"]" * 5000, "nested too deeply"),
    (b"", "Field required"),
    (b"[]", "valid dictionary"),
    (b'"ok?"', "valid dictionary"),
    (b"null", "valid dictionary"),
]


@pytest.mark.parametrize(("body", "said"), NOT_JSON)
def test_a_body_that_is_not_a_json_object_names_the_body(
    client: TestClient, body: bytes, said: str
) -> None:
    """The field is `body`, never a character offset; the position is a line and column."""
    envelope = clean(client.post("/ask", content=body, headers=JSON), 422)
    assert envelope["field"] == "body" and said in envelope["error"], envelope


WRONG_TYPES = [
    ("/ask", "text/plain"),
    ("/ask", "application/x-www-form-urlencoded"),
    ("/ask", "multipart/form-data; boundary=x"),
    ("/ask", "application/xml"),
    ("/ask", "application/json-seq"),
    ("/ask", "garbage"),
    ("/deck/validate", "text/csv"),
    ("/quiz/check", "text/html"),
    ("/sparql", "application/json"),
    ("/sparql", "text/plain"),
]


@pytest.mark.parametrize(("route", "kind"), WRONG_TYPES)
def test_a_body_of_another_content_type_is_a_415(client: TestClient, route: str, kind: str) -> None:
    body = b'{"question": "ok?", "deck": "3 Jinzo", "answers": []}'
    envelope = clean(client.post(route, content=body, headers={"content-type": kind}), 415)
    assert envelope["code"] == "unsupported_media_type"


def test_a_bom_astral_characters_and_json_variants_stay_welcome(client: TestClient) -> None:
    for body, kind in (
        ('\ufeff{"question": "Jinzo?"}'.encode(), "application/json"),
        (b'{"question": "Jinzo \\ud83d\\ude00?"}', "application/json"),
        (b'{"question": "Jinzo?"}', "application/json; charset=utf-8"),
        (b'{"question": "Jinzo?"}', "application/vnd.example+json"),
    ):
        r = client.post("/ask", content=body, headers={"content-type": kind})
        assert r.status_code == 200, (body, r.text)


# --- paths -----------------------------------------------------------------------------------

TRAVERSALS = [
    "/static/..%2f..%2fapp.py",
    "/static/%2e%2e/%2e%2e/api/app.py",
    "/static/%2e%2e%2f%2e%2e%2fpyproject.toml",
    "/static/%252e%252e/%252e%252e/pyproject.toml",
    "/static/....//....//pyproject.toml",
    "/docs/assets/..%2f..%2f..%2f..%2fetc%2fpasswd",
    "/documents/..%2F..%2F..%2Fetc%2Fpasswd",
    "/documents/%2e%2e",
    "/documents/..%2fmanifest/layout",
    "/id/..%2F..%2Fetc%2Fpasswd",
    "/id/%2e%2e/%2e%2e/etc/passwd?as=ttl",
    "/rules/..%2f..%2fetc%2fpasswd?as=html",
    "/cards/..%2f..%2fetc%2fos-release",
    "/%2e%2e/%2e%2e/etc/passwd",
    "/export.ttl/..%2f..%2fpyproject.toml",
    "/id/%00/etc/passwd",
    "/cards/%00",
    "/static/app.js%00.txt",
]


@pytest.mark.parametrize("path", TRAVERSALS)
def test_traversal_in_a_path_reaches_no_file(client: TestClient, path: str) -> None:
    clean(client.get(path), 404, 422)


# --- SPARQL ----------------------------------------------------------------------------------

UPDATES = [
    "INSERT DATA { <urn:a> <urn:b> <urn:c> }",
    "DELETE DATA { <urn:a> <urn:b> <urn:c> }",
    "DELETE WHERE { ?s ?p ?o }",
    "WITH <urn:g> DELETE { ?s ?p ?o } INSERT { ?s ?p 1 } WHERE { ?s ?p ?o }",
    "LOAD <file:///etc/passwd>",
    "CLEAR ALL",
    "DROP GRAPH <urn:g>",
    "CREATE GRAPH <urn:g>",
    "COPY DEFAULT TO <urn:g>",
]


@pytest.mark.parametrize("update", UPDATES)
@pytest.mark.parametrize("how", ["get", "update-body", "form"])
def test_sparql_updates_are_refused(client: TestClient, update: str, how: str) -> None:
    if how == "get":
        r = client.get("/sparql", params={"query": update})
    elif how == "update-body":
        r = client.post(
            "/sparql", content=update, headers={"content-type": "application/sparql-update"}
        )
    else:
        r = client.post("/sparql", data={"update": update})
    assert clean(r, 400)["code"] == "sparql_update"


SPARQL_REFUSALS = [
    ("SELECT", 400, "malformed_query"),
    ("SELECT * WHERE {", 400, "malformed_query"),
    ("ASK { ?s ?p }", 400, "malformed_query"),
    ("SELEC * { ?s ?p ?o }", 400, "malformed_query"),
    ("SELECT * WHERE { ?s ?p ?o }}}}", 400, "malformed_query"),
    ('SELECT * WHERE { ?s ?p "\\uD800" }', 400, "malformed_query"),
    ("SELECT * WHERE {" + "{" * 3000 + "}" * 3000 + "}", 400, None),
    ("SELECT * WHERE { ?s nope:p ?o }", 400, "invalid_query"),
    ("SELECT * WHERE { SERVICE <http://127.0.0.1:9/> { ?s ?p ?o } }", 422, "query_refused"),
    ("SELECT * FROM <file:///etc/passwd> WHERE { ?s ?p ?o }", 422, "query_refused"),
    ("SELECT * WHERE { GRAPH ?g { ?s ?p ?o } }", 422, "query_refused"),
    ("ASK {}\x00", 422, "unsafe_string"),
    ("ASK { ?s ?p ?o }\x07", 422, "unsafe_string"),
    ("   ", 422, "empty"),
    ("SELECT * WHERE { ?s ?p ?o }", 503, "too_many_results"),
    ("CONSTRUCT WHERE { ?s ?p ?o }", 503, "too_many_results"),
]


@pytest.mark.parametrize(("query", "status", "code"), SPARQL_REFUSALS)
def test_sparql_that_cannot_be_answered_is_refused_cleanly(
    client: TestClient, query: str, status: int, code: str | None
) -> None:
    r = client.get("/sparql", params={"query": query})
    envelope = clean(r, status)
    if code is not None:
        assert envelope["code"] == code
    if status == 503:
        assert "retry-after" not in r.headers  # the same query fails again: narrow it


def test_sparql_nothing_acceptable_is_a_406(client: TestClient) -> None:
    r = client.get("/sparql", params={"query": "ASK {}"}, headers={"accept": "image/png"})
    assert clean(r, 406)["code"] == "not_acceptable"


@pytest.fixture(scope="module")
def small_results(lite_built: Built, lite_corpus: Path) -> Iterator[TestClient]:
    """An app whose SPARQL results may be at most 20,000 bytes (its own worker processes)."""
    settings = replace(_settings(lite_built, lite_corpus), sparql_max_result_bytes=20_000)
    service = RulingsService(lite_built.artifact, settings)
    yield TestClient(create_app(service), raise_server_exceptions=False)
    service.close()


def _settings(built: Built, corpus: Path) -> Any:
    from kb.config import Settings

    return Settings(data_dir=built.data_dir, corpus_dir=corpus)


HUGE = [
    ("SELECT (GROUP_CONCAT(STR(?o)) AS ?x) WHERE { ?s ?p ?o }", None),
    ("SELECT ?s (GROUP_CONCAT(STR(?o)) AS ?x) WHERE { ?s ?p ?o } GROUP BY ?s", "text/csv"),
    ("CONSTRUCT WHERE { ?s ?p ?o } LIMIT 2000", "application/ld+json"),
    ("SELECT * WHERE { ?s ?p ?o } LIMIT 5000", "application/sparql-results+xml"),
]


@pytest.mark.parametrize(("query", "accept"), HUGE)
def test_a_result_past_the_byte_bound_is_a_503_naming_it(
    small_results: TestClient, query: str, accept: str | None
) -> None:
    headers = {"accept": accept} if accept else {}
    r = small_results.get("/sparql", params={"query": query}, headers=headers)
    envelope = clean(r, 503)
    assert envelope["code"] == "result_too_large" and envelope["params"]["limit"] == 20_000
    assert envelope["params"]["size"] > 20_000 and "sparql_max_result_bytes" in envelope["error"]
    assert "retry-after" not in r.headers
    small = small_results.get("/sparql", params={"query": "SELECT ?s WHERE { ?s ?p ?o } LIMIT 3"})
    assert small.status_code == 200, small.text


@pytest.fixture
def own_workers(lite_built: Built, lite_corpus: Path) -> Iterator[tuple[TestClient, Any]]:
    """An app with its own SPARQL workers (this test kills them), and its endpoint."""
    service = RulingsService(lite_built.artifact, _settings(lite_built, lite_corpus))
    client = TestClient(create_app(service), raise_server_exceptions=False)
    assert client.get("/sparql", params={"query": "ASK {}"}).status_code == 200
    yield client, service.sparql_endpoint()
    service.close()


def _idle_pids(endpoint: Any) -> list[int]:
    with endpoint._cond:
        return [w.process.pid for w in endpoint._idle]


def test_a_worker_killed_while_idle_is_replaced_before_the_next_query(
    own_workers: tuple[TestClient, Any],
) -> None:
    client, endpoint = own_workers
    for pid in _idle_pids(endpoint):
        os.kill(pid, signal.SIGKILL)  # a worker this test's app started
    time.sleep(0.2)
    r = client.get("/sparql", params={"query": "ASK { ?s ?p ?o }"})
    assert r.status_code == 200 and r.json()["boolean"] is True, r.text


# a cross product of two patterns: runs until stopped, holding one side (a third pattern
# would hold the product of two and may meet the memory cap before the time limit)
RUNAWAY = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f }"


def test_a_worker_killed_under_a_query_is_a_503_with_retry_after(
    own_workers: tuple[TestClient, Any],
) -> None:
    """Was: 503 query_too_large "probably needs more memory", without Retry-After."""
    client, endpoint = own_workers
    idle = set(_idle_pids(endpoint))
    outcome: dict[str, Any] = {}
    thread = threading.Thread(
        target=lambda: outcome.update(r=client.get("/sparql", params={"query": RUNAWAY}))
    )
    thread.start()
    deadline = time.monotonic() + 5
    busy: set[int] = set()
    while not busy and time.monotonic() < deadline:
        time.sleep(0.1)
        busy = idle - set(_idle_pids(endpoint))  # the idle worker that took the query
    assert busy, "no worker took the query"
    os.kill(busy.pop(), signal.SIGKILL)  # a worker this test's app started
    thread.join(30)
    r = outcome["r"]
    envelope = clean(r, 503)
    assert envelope["code"] == "worker_restarting" and "starting" in envelope["error"]
    assert int(r.headers["retry-after"]) >= 1
    after = client.get("/sparql", params={"query": "ASK { ?s ?p ?o }"})
    assert after.status_code == 200, after.text


# --- methods ---------------------------------------------------------------------------------

METHODS = [
    ("PUT", "/ask"),
    ("DELETE", "/ask"),
    ("PATCH", "/ask"),
    ("GET", "/ask"),
    ("OPTIONS", "/ask"),
    ("POST", "/search"),
    ("DELETE", "/search"),
    ("PUT", "/id/edison/rule-05"),
    ("DELETE", "/sparql"),
    ("TRACE", "/stats"),
    ("FOO", "/stats"),
    ("POST", "/metrics"),
    ("PUT", "/deck/validate"),
]


@pytest.mark.parametrize(("method", "path"), METHODS)
def test_an_undeclared_method_is_a_405_with_allow(
    client: TestClient, method: str, path: str
) -> None:
    r = client.request(method, path)
    assert clean(r, 405)["code"] == "method_not_allowed"
    assert method not in r.headers["allow"].split(", ")


def test_a_cross_origin_preflight_for_a_write_is_refused(client: TestClient) -> None:
    r = client.options(
        "/sparql",
        headers={"origin": "https://evil.example", "access-control-request-method": "POST"},
    )
    assert clean(r, 405)["code"] == "method_not_allowed"
    assert "access-control-allow-origin" not in r.headers


# --- concurrency -----------------------------------------------------------------------------

MIXES = {
    "keys": lambda c, i: c.post(
        "/ask", content=b'{"question": "ok", "\\udfff%d": 1}' % i, headers=JSON
    ),
    "values": lambda c, i: c.post(
        "/quiz/check",
        content=b'{"answers": [{"id": "\\u0000%d", "answer": "a"}]}' % i,
        headers=JSON,
    ),
    "encodings": lambda c, i: c.post(
        "/ask", content='{"question": "x"}'.encode("utf-16"), headers=JSON
    ),
    "sparql": lambda c, i: c.get("/sparql", params={"query": f"DROP GRAPH <urn:g{i}>"}),
    "paths": lambda c, i: c.get(f"/static/..%2f..%2f{i}.py"),
}


@pytest.mark.parametrize("mix", list(MIXES))
def test_hostile_requests_at_once_stay_clean_and_the_api_answers(
    client: TestClient, mix: str
) -> None:
    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(lambda i: MIXES[mix](client, i), range(24)))
    for r in answers:
        clean(r, 400, 404, 422)
    assert client.get("/search", params={"q": "Jinzo", "k": "2"}).status_code == 200


# --- a real server: what only a server shows -----------------------------------------------------


@pytest.fixture(scope="module")
def server(lite_service: RulingsService) -> Iterator[tuple[str, int]]:
    """The app served by uvicorn with `serve`'s protocol (api.http_protocol), in a thread,
    without its lifespan."""
    settings = replace(lite_service.settings, log_json=False)
    app = create_app(RulingsService(lite_service.artifact, settings))
    config = uvicorn.Config(
        app,
        host="127.0.0.1",
        port=free_port(),
        log_level="critical",
        lifespan="off",
        http=EnvelopeH11Protocol,
    )
    served = uvicorn.Server(config)
    thread = threading.Thread(target=served.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not served.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    yield "127.0.0.1", config.port
    served.should_exit = True
    thread.join(timeout=10)


def exchange(address: tuple[str, int], raw: bytes) -> tuple[int, dict[str, str], bytes]:
    """Send raw bytes on a fresh connection; read one whole response."""
    with socket.create_connection(address, timeout=10) as sock:
        sock.sendall(raw)
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = sock.recv(65536)
            assert chunk, f"closed before a response: {data!r}"
            data += chunk
        head, body = data.split(b"\r\n\r\n", 1)
        status_line, *lines = head.decode("latin-1").split("\r\n")
        headers = {k.lower(): v.strip() for k, v in (ln.split(":", 1) for ln in lines)}
        while len(body) < int(headers.get("content-length", "0")):
            chunk = sock.recv(65536)
            if not chunk:
                break
            body += chunk
    return int(status_line.split()[1]), headers, body


def clean_raw(answer: tuple[int, dict[str, str], bytes], *statuses: int) -> dict[str, Any]:
    status, headers, body = answer
    assert status in statuses, (status, body[:300])
    assert headers["content-type"].startswith("application/json"), headers
    assert headers.get("x-content-type-options") == "nosniff"
    envelope: dict[str, Any] = json.loads(body)
    assert envelope["ok"] is False and envelope["status"] == status
    assert envelope["code"] in ERROR_CODES
    assert not any(leak.encode() in body for leak in LEAKS), body[:300]
    return envelope


HOST = b"Host: 127.0.0.1\r\n"
MALFORMED_HTTP = [
    b"GARBAGE\r\n\r\n",
    b"GET /stats HTTP/1.1\r\n\r\n",  # HTTP/1.1 without Host
    b"GET /stats HTTP/1.1\r\n" + HOST + b"Bad Header\r\n\r\n",
    b"GET /st\xffats HTTP/1.1\r\n" + HOST + b"\r\n",
    b"POST /ask HTTP/1.1\r\n" + HOST + b"Content-Length: abc\r\n\r\n",
    b"POST /ask HTTP/1.1\r\n" + HOST + b"Content-Length: 5\r\nContent-Length: 6\r\n\r\n",
    b"POST /ask HTTP/1.1\r\n" + HOST + b"Transfer-Encoding: chunked\r\n\r\nzz\r\n",
    b"GET /stats HTTP/1.1\r\n" + HOST + b"X: a\x00b\r\n\r\n",
    b"GET /stats HTTP/1.1\r\n" + HOST + b": no name\r\n\r\n",
]


@pytest.mark.parametrize("raw", MALFORMED_HTTP)
def test_malformed_http_is_a_400_envelope(server: tuple[str, int], raw: bytes) -> None:
    """Was: uvicorn's plain-text "Invalid HTTP request received."."""
    assert clean_raw(exchange(server, raw), 400)["code"] == "bad_request"


RAW_PATHS = [
    b"/static/../../../../etc/passwd",
    b"/static/../api/app.py",
    b"/static/./../../pyproject.toml",
    b"//etc/passwd",
    b"/documents/../../../etc/passwd",
    b"/id/../../etc/passwd",
    b"/docs/assets/../../../../../etc/passwd",
    b"http://127.0.0.1/static/../../etc/passwd",
]


@pytest.mark.parametrize("target", RAW_PATHS)
def test_raw_traversal_reaches_no_file(server: tuple[str, int], target: bytes) -> None:
    """Paths no client library sends as they are (dot segments unnormalised)."""
    raw = b"GET " + target + b" HTTP/1.1\r\n" + HOST + b"Connection: close\r\n\r\n"
    clean_raw(exchange(server, raw), 404)


def test_a_real_server_stays_clean_under_concurrent_hostile_requests(
    server: tuple[str, int],
) -> None:
    raws = [*MALFORMED_HTTP, *(b"GET " + t + b" HTTP/1.1\r\n" + HOST + b"\r\n" for t in RAW_PATHS)]
    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(lambda raw: exchange(server, raw), raws * 3))
    assert all(400 <= status < 500 for status, _, _ in answers)
    body = b'{"question": "Jinzo pode ser Invocado-Especial?"}'
    fine = b"POST /ask HTTP/1.1\r\n" + HOST + JSON_HEAD + b"Content-Length: %d\r\n\r\n" % len(body)
    assert exchange(server, fine + body)[0] == 200


JSON_HEAD = b"Content-Type: application/json\r\n"


def test_the_serve_command_answers_malformed_http_in_the_envelope(
    lite_built: Built, lite_corpus: Path, tmp_path: Path
) -> None:
    """`ygo-rulings serve` itself runs the envelope protocol (not only this test's server)."""
    data = tmp_path / "data"
    shutil.copytree(lite_built.data_dir, data, symlinks=True)
    env = {"PYTHONPATH": str(Path(__file__).resolve().parents[1]), "YGO_LOG_JSON": "false"}
    with running_server(data, extra_env=env, corpus=lite_corpus) as base:
        host, port = base.removeprefix("http://").split(":")
        assert clean_raw(exchange((host, int(port)), b"GARBAGE\r\n\r\n"), 400)


# --- a manifest naming a file outside the corpus -------------------------------------------------


@pytest.fixture
def small_corpus(lite_corpus: Path, tmp_path: Path) -> Path:
    target = tmp_path / "corpus"
    shutil.copytree(lite_corpus, target, ignore=shutil.ignore_patterns("claims"))
    return target


def _point_last_document_at(corpus: Path, file: str) -> None:
    manifest = corpus / "manifest.yaml"
    text = manifest.read_text("utf-8")
    last = text.rsplit("file: ", 1)
    name = last[1].split("\n", 1)
    manifest.write_text(f"{last[0]}file: {file}\n{name[1]}", "utf-8")


OUTSIDE = [
    ("../../../../../../../../etc/hostname", "with '..'"),
    ("/etc/os-release", "absolute path"),
    ("sub/../../outside.txt", "with '..'"),
    ("escape.txt", "through a symlink"),
]


@pytest.mark.parametrize(("file", "said"), OUTSIDE)
def test_a_manifest_file_outside_the_corpus_is_an_ingest_error(
    small_corpus: Path, tmp_path: Path, file: str, said: str
) -> None:
    (tmp_path / "outside.txt").write_text("Regra secreta do host.\n", "utf-8")
    (small_corpus / "escape.txt").symlink_to(tmp_path / "outside.txt")
    (small_corpus / "sub").mkdir()
    _point_last_document_at(small_corpus, file)
    with pytest.raises(IngestError) as raised:
        load_manifest(small_corpus)
    message = str(raised.value)
    assert "manifest.yaml" in message and "document 'tag'" in message and said in message
    assert f"field file {file!r}" in message


def test_the_ingest_command_exits_non_zero_naming_the_entry(
    small_corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Was: exit 0, and GET /documents/tag served /etc/hostname."""
    for name in [k for k in os.environ if k.startswith("YGO_")]:
        monkeypatch.delenv(name)
    _point_last_document_at(small_corpus, "../../../../../../../../etc/hostname")
    data = tmp_path / "data"
    result = CliRunner().invoke(
        cli_app, ["ingest", "--corpus", str(small_corpus), "--data", str(data)]
    )
    assert result.exit_code == 1, result.output
    assert "document 'tag': field file '../../../../../../../../etc/hostname'" in result.output
    assert "outside the corpus folder" in result.output
    assert not (data / "current").exists()


def test_a_symlink_inside_the_corpus_stays_allowed(small_corpus: Path) -> None:
    manifest = (small_corpus / "manifest.yaml").read_text("utf-8")
    original = manifest.rsplit("file: ", 1)[1].split("\n", 1)[0]
    (small_corpus / "alias.txt").symlink_to(small_corpus / original)
    _point_last_document_at(small_corpus, "alias.txt")
    assert load_manifest(small_corpus).documents[-1].file == "alias.txt"
