"""The HTTP edge through the ASGI app (lite KB, hash embedder): caching, limits, unsafe strings,
metrics and request ids. The body cap through a real server is in test_http_limits_server.py."""

from __future__ import annotations

import asyncio
import io
import json
import logging
import threading
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from api.app import create_app
from api.limits import TimeBudget
from api.logs import REQUEST_ID, install_json_logging
from api.routes.linked_data import SparqlGate
from kb.config import Settings
from kb.linked_data.sparql import QueryStopped
from kb.search.embedding import HashEmbedder
from kb.search.index import claim_texts, clause_texts, index_texts
from kb.service import RulingsService

if TYPE_CHECKING:
    from pathlib import Path

    from conftest import Built

ASK = "Julgamento Solene pode negar o Dragão Cibernético?"
SELECT = "SELECT ?s WHERE { ?s a ygo:Rule } LIMIT 2"
JSON = {"content-type": "application/json"}


def lite_hash_service(built: Built, corpus: Path, **settings: Any) -> RulingsService:
    emb = HashEmbedder()
    kg = built.kg
    return RulingsService(
        built.artifact,
        replace(Settings(data_dir=built.data_dir, corpus_dir=corpus), **settings),
        emb,
        emb.embed_passages(index_texts(kg)),
        emb.embed_passages(clause_texts(kg)),
        emb.embed_passages(claim_texts(kg)),
    )


@pytest.fixture(scope="module")
def service(lite_service: RulingsService) -> RulingsService:
    """The session's lite service (its RDF caches shared with other modules), searching by
    BM25 and the graph (no embedder); settings as the default."""
    return lite_service


@pytest.fixture(scope="module")
def client(service: RulingsService) -> TestClient:
    return TestClient(create_app(service), raise_server_exceptions=False)


def envelope(r: Any, status: int) -> dict[str, Any]:
    assert r.status_code == status, r.text
    body: dict[str, Any] = r.json()
    assert body["ok"] is False and body["status"] == status
    return body


# --- ETag, Cache-Control, 304, HEAD -------------------------------------------------------------

CACHED_GETS = [
    ("/stats", {}),
    ("/search", {"q": "Cyber Dragon", "k": "3"}),
    ("/id/edison/rule-05", {}),
    ("/id/edison/rule-05", {"as": "ttl"}),
    ("/rules/edison/rule-05", {"as": "html"}),
    ("/documents", {}),
    ("/sparql", {"query": SELECT}),
    ("/quiz", {"n": "2", "seed": "7"}),
]


@pytest.mark.parametrize(("path", "params"), CACHED_GETS)
def test_every_get_has_an_etag_a_304_and_a_head(
    client: TestClient, path: str, params: dict[str, str]
) -> None:
    full = client.get(path, params=params)
    assert full.status_code == 200, full.text
    etag = full.headers["etag"]
    build_id = client.get("/health").json()["build_id"]
    assert etag.startswith(f'"{build_id}-') and etag.endswith('"')
    assert full.headers["cache-control"] == "public, max-age=300"

    again = client.get(path, params=params, headers={"if-none-match": etag})
    assert again.status_code == 304 and again.content == b""
    assert again.headers["etag"] == etag and "cache-control" in again.headers
    weak = client.get(path, params=params, headers={"if-none-match": f'"other", W/{etag}'})
    assert weak.status_code == 304
    stale = client.get(path, params=params, headers={"if-none-match": '"someone-else"'})
    assert stale.status_code == 200 and stale.content == full.content

    head = client.head(path, params=params)
    assert head.status_code == 200 and head.content == b""
    assert head.headers["etag"] == etag
    assert head.headers["content-length"] == str(len(full.content))
    assert head.headers["content-type"] == full.headers["content-type"]


def test_different_bodies_never_share_an_etag(client: TestClient) -> None:
    tags = {
        client.get("/id/edison/rule-05").headers["etag"],
        client.get("/id/edison/rule-05", headers={"accept": "text/turtle"}).headers["etag"],
        client.get("/id/edison/rule-05", params={"as": "jsonld"}).headers["etag"],
        client.get("/id/edison/rule-06").headers["etag"],
        client.get("/search", params={"q": "Jinzo"}).headers["etag"],
        client.get("/search", params={"q": "Jinzo", "k": "2"}).headers["etag"],
    }
    assert len(tags) == 6


def test_a_304_is_answered_without_running_the_route(
    client: TestClient, service: RulingsService, monkeypatch: pytest.MonkeyPatch
) -> None:
    etag = client.get("/stats").headers["etag"]

    def boom() -> None:
        raise AssertionError("the route ran")

    monkeypatch.setattr(service, "stats", boom)
    assert client.get("/stats", headers={"if-none-match": etag}).status_code == 304
    assert client.get("/stats").status_code == 500  # the route does run without the header


def test_live_state_and_errors_are_not_cached(client: TestClient) -> None:
    for path, params in (("/health", {}), ("/metrics", {}), ("/quiz", {"n": "2"})):
        r = client.get(path, params=params)
        assert r.status_code == 200 and r.headers["cache-control"] == "no-store", path
        assert "etag" not in r.headers, path
    missing = client.get("/id/edison/rule-99")
    assert missing.status_code == 404 and "etag" not in missing.headers
    assert client.head("/id/edison/rule-99").status_code == 404


def test_head_is_answered_on_the_page_and_static_files(client: TestClient) -> None:
    for path in ("/", "/static/app.js", "/vocab"):
        r = client.head(path)
        assert r.status_code == 200 and r.content == b"", path
        assert int(r.headers["content-length"]) > 0


def test_openapi_declares_the_edge_statuses(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    assert {"304", "422", "504"} <= set(paths["/search"]["get"]["responses"])
    assert {"413", "422", "504"} <= set(paths["/ask"]["post"]["responses"])
    assert "413" in paths["/sparql"]["post"]["responses"]
    assert "304" not in paths["/health"]["get"]["responses"]
    assert "304" in paths["/quiz"]["get"]["responses"]  # a seeded quiz is cached
    assert "content" not in paths["/stats"]["get"]["responses"]["304"]


# --- limits -------------------------------------------------------------------------------------


def test_a_body_over_the_cap_is_413_with_and_without_content_length(client: TestClient) -> None:
    big = json.dumps({"question": "x" * 70_000}).encode()
    body = envelope(client.post("/ask", content=big, headers=JSON), 413)
    assert "65536 bytes" in body["error"] and str(len(big)) in body["error"]

    def chunks() -> Any:  # no Content-Length: counted while it streams
        yield b'{"question": "'
        for _ in range(70):
            yield b"x" * 1000
        yield b'"}'

    body = envelope(client.post("/ask", content=chunks(), headers=JSON), 413)
    assert "65536 bytes" in body["error"]
    deck = json.dumps({"deck": "Jinzo\n" * 20_000}).encode()
    envelope(client.post("/deck/validate", content=deck, headers=JSON), 413)
    assert client.post("/ask", json={"question": ASK}).status_code == 200


def test_sparql_posts_have_their_own_larger_cap(client: TestClient) -> None:
    query = "# " + "x" * 100_000 + "\nASK { ?s ?p ?o }"
    r = client.post("/sparql", content=query, headers={"content-type": "application/sparql-query"})
    assert r.status_code == 200 and r.json()["boolean"] is True
    huge = "# " + "x" * 300_000 + "\nASK { ?s ?p ?o }"
    body = envelope(
        client.post("/sparql", content=huge, headers={"content-type": "application/sparql-query"}),
        413,
    )
    assert "262144 bytes" in body["error"]


def test_a_request_over_its_time_budget_is_504_and_others_go_on() -> None:
    release = threading.Event()
    app = FastAPI()

    @app.get("/slow")
    def slow() -> dict[str, bool]:  # a sync route: it runs in the thread pool
        return {"released": release.wait(30)}

    @app.get("/fast")
    def fast() -> dict[str, bool]:
        return {"ok": True}

    @app.get("/download")
    def download() -> dict[str, bool]:  # exempt: it may take longer than the budget
        return {"released": threading.Event().wait(0.3)}

    app.add_middleware(TimeBudget, seconds=0.2, exempt=frozenset({"/download"}))
    with TestClient(app) as c:
        r = c.get("/slow")
        release.set()
        body = envelope(r, 504)
        assert "0.2 s" in body["error"] and "request_timeout" in body["error"]
        assert c.get("/fast").json() == {"ok": True}
        assert c.get("/download").json() == {"released": False}


# --- unsafe strings -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "url", "kwargs", "field"),
    [
        ("post", "/ask", {"content": b'{"question": "\\ud800"}', "headers": JSON}, "question"),
        ("post", "/ask", {"content": b'{"question": "a\\udc00b"}', "headers": JSON}, "question"),
        ("post", "/ask", {"json": {"question": ASK, "format": "edi\x00son"}}, "format"),
        ("post", "/ask", {"json": {"question": "Jinzo\x1b[31m"}}, "question"),
        (
            "post",
            "/quiz/check",
            {"content": b'{"answers": [{"id": "x", "answer": "\\udfff"}]}', "headers": JSON},
            "answers.0.answer",
        ),
        ("post", "/deck/validate", {"json": {"deck": "3 Jinzo\x00"}}, "deck"),
        ("get", "/search", {"params": {"q": "Jinzo\x00"}}, "q"),
        ("get", "/link", {"params": {"q": "\x07Jinzo"}}, "q"),
        ("get", "/cards", {"params": {"q": "jin\ufffe"}}, "q"),
        ("get", "/id/edison%00/rule-05", {}, "node_id"),
        ("get", "/rules/edison/rule-05", {"params": {"as": "html\x00"}}, "as"),
        ("get", "/sparql", {"params": {"query": "ASK {}\x00"}}, "query"),
    ],
)
def test_unsafe_strings_are_422_naming_the_field(
    client: TestClient, method: str, url: str, kwargs: dict[str, Any], field: str
) -> None:
    body = envelope(getattr(client, method)(url, **kwargs), 422)
    assert body["error"].startswith(f"{field}: contains "), body["error"]
    assert "U+" in body["error"]


def test_astral_characters_and_line_breaks_stay_welcome(client: TestClient) -> None:
    emoji = b'{"question": "Jinzo \\ud83d\\ude00 pode ser Invocado?\\n"}'
    assert client.post("/ask", content=emoji, headers=JSON).status_code == 200
    assert client.get("/search", params={"q": "Jinzo\tTrap\r\n"}).status_code == 200


# --- metrics and logs ---------------------------------------------------------------------------


def test_metrics_count_routes_answers_and_sparql_stops(
    service: RulingsService, monkeypatch: pytest.MonkeyPatch
) -> None:
    c = TestClient(create_app(service), raise_server_exceptions=False)
    for rule in ("rule-05", "rule-06", "rule-07"):
        assert c.get(f"/id/edison/{rule}").status_code == 200
    answer = c.post("/ask", json={"question": ASK}).json()
    assert c.get("/search", params={"q": "Jinzo"}).status_code == 200

    def stopped(*_: object) -> None:
        raise QueryStopped("the query was stopped after 5 s (sparql_timeout)")

    monkeypatch.setattr(service, "sparql", stopped)
    assert c.get("/sparql", params={"query": SELECT}).status_code == 503

    r = c.get("/metrics")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/plain")
    text = r.text
    assert 'http_requests_total{handler="/id/{node_id:path}",method="GET",status="200"} 3.0' in text
    assert "edison/rule-05" not in text  # per route template, never per raw path
    assert 'http_request_duration_seconds_bucket{handler="/search",le="0.1",method="GET"}' in text
    verdict = answer["verdict"] or "none"
    assert f'ygo_answers_total{{reasoner="{answer["reasoner"]}",verdict="{verdict}"}} 1.0' in text
    assert 'ygo_sparql_stops_total{reason="timeout"} 1.0' in text
    assert 'handler="/metrics"' not in text


def test_request_ids_go_out_and_into_every_log_line(service: RulingsService) -> None:
    app = create_app(service)
    noted = logging.getLogger("tests.edges")

    def noisy() -> dict[str, str]:  # sync: logs from the thread pool
        noted.warning("inside the route")
        return {"ok": "yes"}

    app.add_api_route("/noisy", noisy)
    stream = io.StringIO()
    handler = install_json_logging(stream)
    try:
        c = TestClient(app)
        given = c.get("/noisy", headers={"x-request-id": "wiki-bot.42"})
        made = c.get("/stats", headers={"x-request-id": "not a valid id"})
    finally:
        logging.getLogger().removeHandler(handler)
    assert given.headers["x-request-id"] == "wiki-bot.42"
    new_id = made.headers["x-request-id"]
    assert new_id != "not a valid id" and len(new_id) == 32
    lines = [json.loads(line) for line in stream.getvalue().splitlines()]
    mine = [line for line in lines if line.get("request_id") == "wiki-bot.42"]
    assert {line["logger"] for line in mine} == {"tests.edges", "api.access"}
    access = next(line for line in mine if line["logger"] == "api.access")
    assert access["route"] == "/noisy" and access["status"] == 200 and access["duration_ms"] >= 0
    assert any(line["request_id"] == new_id and line.get("route") == "/stats" for line in lines)
    assert all({"ts", "level", "logger", "message"} <= set(line) for line in lines)


def test_sparql_gate_threads_see_the_request_id() -> None:
    gate = SparqlGate(size=1)

    async def in_a_request() -> str | None:
        REQUEST_ID.set("req-7")
        return await gate.run(REQUEST_ID.get)

    assert asyncio.run(in_a_request()) == "req-7"


def test_the_access_line_of_a_client_that_left_before_an_answer_is_499() -> None:
    """A stalled body cut off at its deadline: the app sends nothing, and the access line says the
    client left (499), not that the server failed (500); an error raised is still a 500."""
    from api.logs import RequestLog

    async def left(scope: Any, receive: Any, send: Any) -> None:
        await receive()  # the client is gone: nothing to answer

    async def broken(scope: Any, receive: Any, send: Any) -> None:
        raise RuntimeError("boom")

    async def run(app: Any) -> None:
        async def receive() -> dict[str, Any]:
            return {"type": "http.disconnect"}

        async def send(message: Any) -> None:
            raise AssertionError(message)

        scope = {"type": "http", "method": "POST", "path": "/ask", "headers": [], "client": None}
        await RequestLog(app)(scope, receive, send)

    stream = io.StringIO()
    handler = install_json_logging(stream)
    try:
        asyncio.run(run(left))
        with pytest.raises(RuntimeError):
            asyncio.run(run(broken))
    finally:
        logging.getLogger().removeHandler(handler)
    access = [json.loads(line) for line in stream.getvalue().splitlines()]
    assert [a["status"] for a in access if a["logger"] == "api.access"] == [499, 500]
