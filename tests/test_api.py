"""The HTTP API through the ASGI app: the documented JSON, one error envelope, never a 500."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from api.version import package_version
from kb.service import RulingsService


@pytest.fixture(scope="module")
def client(hash_service: RulingsService) -> TestClient:
    return TestClient(create_app(hash_service), raise_server_exceptions=False)


def test_health(client: TestClient) -> None:
    body = client.get("/health").json()
    assert body["ok"] is True and body["build_id"] and body["stale"] is False
    assert (
        body["version"]
        == package_version()
        == client.get("/openapi.json").json()["info"]["version"]
    )


def test_search_and_cli_share_the_service_json(
    client: TestClient, hash_service: RulingsService
) -> None:
    r = client.get(
        "/search", params={"q": "Jinzo Monstro de Armadilha", "k": 3, "format": "edison"}
    )
    assert r.status_code == 200
    assert r.json() == hash_service.search("Jinzo Monstro de Armadilha", k=3, format="edison")


def test_link(client: TestClient) -> None:
    body = client.get("/link", params={"q": "Solemn Judgement vs Dragão Cibernético"}).json()
    ids = {e["id"] for e in body["entities"]}
    assert {"card/solemn-judgment", "card/cyber-dragon"} <= ids
    for e in body["entities"]:
        assert set(e) == {"id", "type", "label", "span", "matched", "score"}


def test_ask(client: TestClient) -> None:
    r = client.post("/ask", json={"question": "Julgamento Solene pode negar o Dragão Cibernético?"})
    assert r.status_code == 200
    body = r.json()
    assert body["verdict"] == "yes" and body["citations"]


def test_id_lookup_and_not_found(client: TestClient) -> None:
    assert client.get("/id/edison/rule-05").json()["type"] == "Rule"
    r = client.get("/id/edison/rule-55")
    assert r.status_code == 404
    body = r.json()
    assert body["ok"] is False and body["status"] == 404 and body["suggestions"]


@pytest.mark.parametrize(
    ("method", "url", "kwargs", "needle"),
    [
        ("get", "/search", {"params": {"q": ""}}, "q"),
        ("get", "/search", {"params": {}}, "q"),
        ("get", "/search", {"params": {"q": "x" * 1001}}, "q"),
        ("get", "/search", {"params": {"q": "chain", "k": 0}}, "k"),
        ("get", "/search", {"params": {"q": "chain", "k": "many"}}, "k"),
        ("get", "/search", {"params": {"q": "chain", "format": "pauper"}}, "format"),
        ("get", "/search", {"params": {"q": "chain", "type": "Nope"}}, "type"),
        ("get", "/link", {"params": {"q": " "}}, "q"),
        ("post", "/ask", {"json": {"question": ""}}, "question"),
        ("post", "/ask", {"json": {"question": "x", "format": "pauper"}}, "format"),
        ("post", "/ask", {"json": {"question": "x", "k": 500}}, "k"),
        ("post", "/ask", {"json": {}}, "question"),
        (
            "post",
            "/ask",
            {"content": b"{not json", "headers": {"content-type": "application/json"}},
            "JSON",
        ),
    ],
)
def test_bad_input_is_a_422_envelope(
    client: TestClient, method: str, url: str, kwargs: dict, needle: str
) -> None:
    r = getattr(client, method)(url, **kwargs)
    assert r.status_code == 422, r.text
    body = r.json()
    assert body["ok"] is False and body["status"] == 422
    assert needle.lower() in body["error"].lower()


@pytest.mark.parametrize(
    ("method", "url", "kwargs", "expected"),
    [
        ("post", "/ask", {"json": {"question": " "}}, {"code": "empty", "field": "question"}),
        (
            "post",
            "/ask",
            {"json": {"question": "x" * 1001}},
            {"code": "too_long", "field": "question", "params": {"length": 1001, "limit": 1000}},
        ),
        (
            "get",
            "/search",
            {"params": {"q": "chain", "k": 0}},
            {"code": "out_of_range", "field": "k", "params": {"min": 1, "max": 100, "value": 0}},
        ),
        (
            "get",
            "/search",
            {"params": {"q": "chain", "format": "pauper"}},
            {"code": "unknown_value", "field": "format", "params": {"value": "pauper"}},
        ),
        ("post", "/ask", {"json": {}}, {"code": "missing", "field": "question"}),
        ("get", "/search", {"params": {"q": "a", "k": "many"}}, {"code": "bad_type", "field": "k"}),
        (
            "get",
            "/search",
            {"params": {"q": "a\x00"}},
            {"code": "unsafe_string", "field": "q", "params": {"position": 1}},
        ),
        (
            "post",
            "/ask",
            {"content": b"{not json", "headers": {"content-type": "application/json"}},
            {"code": "bad_json"},
        ),
        (
            "get",
            "/id/edison/rule-55",
            {},
            {"code": "not_found", "params": {"what": "id", "key": "edison/rule-55"}},
        ),
        ("get", "/no-such-route", {}, {"code": "route_not_found"}),
        ("delete", "/ask", {}, {"code": "method_not_allowed"}),
        (
            "get",
            "/sparql",
            {"params": {"query": "SELECT ?s WHERE { ?s ?p }"}},
            {
                "code": "malformed_query",
                "params": {"line": 1, "column": 19},
            },
        ),
        ("get", "/sparql", {"params": {"query": "DROP ALL"}}, {"code": "sparql_update"}),
        (
            "post",
            "/sparql",
            {"content": b"DROP ALL", "headers": {"content-type": "application/sparql-update"}},
            {"code": "sparql_update"},
        ),
        ("get", "/sparql", {}, {"code": "empty", "field": "query"}),
    ],
)
def test_the_envelope_says_what_went_wrong_as_a_code(
    client: TestClient, method: str, url: str, kwargs: dict, expected: dict
) -> None:
    """`code`, `field` and `params` carry what the English `error` says (a client words it)."""
    from kb.errors import ERROR_CODES

    body = getattr(client, method)(url, **kwargs).json()
    assert body["ok"] is False and body["error"]  # the English message stays
    assert body["code"] in ERROR_CODES
    assert {k: body.get(k) for k in expected} == expected


def test_exports(lite_service: RulingsService) -> None:
    """The dumps through the app, on the KB without the card table (their cost with every card
    is a benchmark's, bench/cards_scale.py)."""
    client = TestClient(create_app(lite_service))
    ttl = client.get("/export.ttl")
    assert ttl.status_code == 200 and ttl.headers["content-type"].startswith("text/turtle")
    assert ttl.content == lite_service.export("ttl").read_bytes()
    jsonld = client.get("/export.jsonld")
    assert jsonld.status_code == 200 and jsonld.headers["content-type"] == "application/ld+json"
    assert jsonld.content == lite_service.export("jsonld").read_bytes()
    assert ttl.headers["etag"] != jsonld.headers["etag"], "one ETag, the cache's, per route"


def test_openapi_docs(client: TestClient) -> None:
    assert client.get("/docs").status_code == 200
    paths = client.get("/openapi.json").json()["paths"]
    assert {"/search", "/link", "/ask", "/health"} <= set(paths)
