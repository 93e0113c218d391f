"""The HTTP edge's security headers, CORS, the metrics token and honest SPARQL errors (lite KB).

- Every response: nosniff, Referrer-Policy, X-Frame-Options; every HTML page a
  Content-Security-Policy that allows exactly its own inline blocks (by hash), checked on the
  served pages and in headless Chromium (no violation, the page still answers).
- CORS on the read-only routes only (GET/HEAD, preflight 204), OPTIONS elsewhere 405.
- /metrics behind `metrics_token` when set, public when not.
- SPARQL: a result past `sparql_max_result_bytes`, a worker that died: which status, which
  Retry-After.
- docs/security.md names every setting and header it documents.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from fastapi.testclient import TestClient
from tests_support import free_port  # type: ignore[import-not-found]

from api.app import create_app
from api.cors import READ_ONLY_PATHS
from api.security_headers import CSP, inline_blocks, source_hash
from kb.adapters.sparql_workers import worker_lost
from kb.config import Settings
from kb.errors import ERROR_CODES
from kb.linked_data.sparql import QueryTooLarge, ResultTooLarge, WorkerRestarting
from kb.linked_data.sparql_results import within_bytes
from kb.service import RulingsService

REPO = Path(__file__).resolve().parents[1]
SECURITY_DOC = REPO / "docs" / "security.md"


@pytest.fixture(scope="module")
def client(lite_service: RulingsService) -> TestClient:
    return TestClient(create_app(lite_service), raise_server_exceptions=False)


def directives(policy: str) -> dict[str, list[str]]:
    """A Content-Security-Policy as directive → sources."""
    out: dict[str, list[str]] = {}
    for part in policy.split(";"):
        name, *sources = part.split()
        out[name] = sources
    return out


# --- headers ---------------------------------------------------------------------------------

PAGES = [
    "/",
    "/doc/edison",
    "/vocab",
    "/rules/edison/rule-05?as=html",
    "/cards/jinzo?as=html&links=local",
    "/docs",
    "/redoc",
]


@pytest.mark.parametrize("path", PAGES)
def test_every_html_page_has_a_policy_allowing_exactly_its_inline_blocks(
    client: TestClient, path: str
) -> None:
    r = client.get(path)
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    policy = directives(r.headers[CSP])
    assert policy["default-src"] == ["'none'"] and policy["frame-ancestors"] == ["'none'"]
    assert policy["object-src"] == ["'none'"] and policy["base-uri"] == ["'none'"]
    assert "'unsafe-inline'" not in policy["script-src"] and "'unsafe-eval'" not in str(policy)
    assert not [s for s in policy["script-src"] if s.startswith(("http", "*", "data:"))]
    for kind, text in inline_blocks(r.text):
        sources = policy["script-src" if kind == "script" else "style-src"]
        assert source_hash(text) in sources or "'unsafe-inline'" in sources, (kind, text[:80])
    if "'unsafe-inline'" in policy["style-src"]:
        assert path in ("/docs", "/redoc")  # their bundles write styles at run time
    assert r.headers["x-frame-options"] == "DENY"
    assert r.headers["x-content-type-options"] == "nosniff"
    assert r.headers["referrer-policy"] == "same-origin"


def test_a_style_the_templates_do_not_hold_is_not_allowed(client: TestClient) -> None:
    styles = directives(client.get("/vocab").headers[CSP])["style-src"]
    assert source_hash("body{background:red}") not in styles
    assert len(styles) == 3  # 'self', the vocabulary page's and the wiki page's style


OTHER_RESPONSES = [
    ("get", "/stats", {}, 200),
    ("get", "/export.ttl", {}, 200),
    ("get", "/id/edison/rule-05", {"headers": {"accept": "text/turtle"}}, 200),
    ("get", "/id/edison/rule-99", {}, 404),
    ("get", "/search", {"params": {"q": "x\x00"}}, 422),
    (
        "post",
        "/ask",
        {"content": b"x" * 70_000, "headers": {"content-type": "application/json"}},
        413,
    ),
    ("get", "/static/app.js", {}, 200),
    ("get", "/metrics", {}, 200),
]


@pytest.mark.parametrize(("method", "path", "kwargs", "status"), OTHER_RESPONSES)
def test_every_response_is_nosniff_and_unframed(
    client: TestClient, method: str, path: str, kwargs: dict[str, Any], status: int
) -> None:
    r = getattr(client, method)(path, **kwargs)
    assert r.status_code == status
    assert r.headers["x-content-type-options"] == "nosniff"
    assert r.headers["x-frame-options"] == "DENY"
    assert r.headers["referrer-policy"] == "same-origin"
    assert CSP not in r.headers  # not a page: nothing in it runs


def test_a_304_keeps_the_headers(client: TestClient) -> None:
    etag = client.get("/stats").headers["etag"]
    again = client.get("/stats", headers={"if-none-match": etag})
    assert again.status_code == 304 and again.headers["x-content-type-options"] == "nosniff"
    assert again.headers["access-control-allow-origin"] == "*"


# --- CORS ------------------------------------------------------------------------------------

READ_ONLY = [
    "/search?q=Jinzo",
    "/link?q=Jinzo",
    "/stats",
    "/id/edison/rule-05",
    "/id/edison/rule-05?as=jsonld",
    "/sparql?query=ASK%20%7B%7D",
    "/vocab?as=ttl",
    "/rules/edison/rule-05",
    "/cards/jinzo",
    "/documents",
    "/id/edison/rule-99",  # an error is readable too
]


@pytest.mark.parametrize("path", READ_ONLY)
def test_read_only_routes_are_readable_from_any_origin(client: TestClient, path: str) -> None:
    r = client.get(path, headers={"origin": "https://wiki.example"})
    assert r.status_code in (200, 404)
    assert r.headers["access-control-allow-origin"] == "*"
    assert "ETag" in r.headers["access-control-expose-headers"]
    assert "access-control-allow-credentials" not in r.headers
    plain = client.get(path)  # the same without Origin: a shared cache's copy works for all
    assert plain.headers["access-control-allow-origin"] == "*"


@pytest.mark.parametrize("path", ["/search", "/id/edison/rule-05", "/sparql", "/export.ttl"])
def test_a_preflight_for_get_is_answered(client: TestClient, path: str) -> None:
    r = client.options(
        path,
        headers={
            "origin": "https://wiki.example",
            "access-control-request-method": "GET",
            "access-control-request-headers": "if-none-match, x-request-id",
        },
    )
    assert r.status_code == 204, r.text
    assert r.headers["access-control-allow-origin"] == "*"
    assert r.headers["access-control-allow-methods"] == "GET, HEAD, OPTIONS"
    allowed = r.headers["access-control-allow-headers"].lower()
    assert "if-none-match" in allowed and "x-request-id" in allowed
    plain = client.options(path)  # a plain OPTIONS: every method of the resource
    assert plain.status_code == 204
    methods = "GET, HEAD, OPTIONS, POST" if path == "/sparql" else "GET, HEAD, OPTIONS"
    assert plain.headers["allow"] == methods


@pytest.mark.parametrize(
    ("method", "path"),
    [("post", "/ask"), ("get", "/"), ("get", "/metrics"), ("get", "/docs"), ("post", "/sparql")],
)
def test_other_routes_get_no_cors(client: TestClient, method: str, path: str) -> None:
    kwargs: dict[str, Any] = {"headers": {"origin": "https://evil.example"}}
    if method == "post":
        kwargs["data"] = {"query": "ASK {}"} if path == "/sparql" else None
        kwargs["json"] = None if path == "/sparql" else {"question": "Jinzo?"}
    r = getattr(client, method)(path, **kwargs)
    assert "access-control-allow-origin" not in r.headers
    if method == "get":
        assert client.options(path).status_code == 405


def test_every_read_only_path_is_a_route(client: TestClient) -> None:
    routes = set(client.get("/openapi.json").json()["paths"]) | {"/openapi.json"}
    assert routes >= READ_ONLY_PATHS, READ_ONLY_PATHS - routes


# --- the metrics token -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def guarded(lite_service: RulingsService) -> TestClient:
    settings = replace(lite_service.settings, metrics_token="s3cret-token")
    service = RulingsService(lite_service.artifact, settings)
    return TestClient(create_app(service), raise_server_exceptions=False)


@pytest.mark.parametrize(
    "authorization",
    [None, "", "Bearer", "Bearer wrong", "Basic czNjcmV0LXRva2Vu", "Bearer s3cret-token-and-more"],
)
def test_metrics_without_the_token_is_401(guarded: TestClient, authorization: str | None) -> None:
    headers = {} if authorization is None else {"authorization": authorization}
    r = guarded.get("/metrics", headers=headers)
    assert r.status_code == 401 and r.json()["code"] == "unauthorized"
    assert r.headers["www-authenticate"].startswith("Bearer")
    assert "s3cret" not in r.text and "ygo_answers" not in r.text


def test_metrics_with_the_token_and_without_a_setting(
    guarded: TestClient, client: TestClient
) -> None:
    for value in ("Bearer s3cret-token", "bearer  s3cret-token "):
        r = guarded.get("/metrics", headers={"authorization": value})
        assert r.status_code == 200 and "http_requests_total" in r.text
    assert client.get("/metrics").status_code == 200  # no token set: public, as before
    assert "401" in client.get("/openapi.json").json()["paths"]["/metrics"]["get"]["responses"]


def test_the_token_never_reaches_a_response(guarded: TestClient, client: TestClient) -> None:
    """Not even through the ETag, whose seed hashes the settings that shape bodies."""
    assert guarded.get("/stats").headers["etag"] == client.get("/stats").headers["etag"]


# --- SPARQL: honest errors ---------------------------------------------------------------------


def test_a_body_is_measured_in_utf8_bytes() -> None:
    assert within_bytes("a" * 10, 10) == "a" * 10
    assert within_bytes("ção", 5) == "ção"
    with pytest.raises(ResultTooLarge) as raised:
        within_bytes("ção" * 2, 5)
    assert raised.value.params == {"limit": 5, "size": 10}
    assert within_bytes("x" * 100, None) == "x" * 100


def test_how_a_worker_died_decides_the_error() -> None:
    memory = worker_lost(-6)  # SIGABRT: the engine could not allocate past the cap
    assert isinstance(memory, QueryTooLarge) and "more memory" in str(memory)
    for code in (-9, -15, 1, None):
        lost = worker_lost(code)
        assert isinstance(lost, WorkerRestarting) and "starting" in str(lost)


def test_a_restarting_worker_is_a_503_with_retry_after_and_counted(
    lite_service: RulingsService, monkeypatch: pytest.MonkeyPatch
) -> None:
    service = RulingsService(lite_service.artifact, lite_service.settings)
    c = TestClient(create_app(service), raise_server_exceptions=False)

    def died(*_: object) -> None:
        raise worker_lost(-9)

    monkeypatch.setattr(service, "sparql", died)
    r = c.get("/sparql", params={"query": "ASK {}"})
    assert r.status_code == 503 and r.json()["code"] == "worker_restarting"
    assert r.headers["retry-after"] == "2"
    assert 'ygo_sparql_stops_total{reason="restart"} 1.0' in c.get("/metrics").text


def test_the_new_codes_are_documented() -> None:
    for code in ("result_too_large", "worker_restarting", "unauthorized"):
        assert code in ERROR_CODES


# --- docs/security.md stays true -------------------------------------------------------------


def test_the_security_page_names_every_setting_and_header() -> None:
    text = SECURITY_DOC.read_text("utf-8")
    for setting in ("metrics_token", "sparql_max_result_bytes", "max_body_bytes"):
        env = "YGO_" + setting.upper()
        assert f"`{env}`" in text, env
        default = str(Settings.__dataclass_fields__[setting].default)
        assert default in text, (setting, default)
    for header in (
        "Content-Security-Policy",
        "X-Content-Type-Options",
        "X-Frame-Options",
        "Referrer-Policy",
        "Access-Control-Allow-Origin",
        "Retry-After",
        "WWW-Authenticate",
    ):
        assert header in text, header
    for path in sorted(READ_ONLY_PATHS):
        assert f"`{path}`" in text, path


# --- in a browser: the pages still work under their policy ---------------------------------------

CHROMIUM = Path("/usr/bin/chromium")


@pytest.fixture(scope="module")
def live(lite_service: RulingsService) -> Iterator[str]:
    settings = replace(lite_service.settings, log_json=False)
    app = create_app(RulingsService(lite_service.artifact, settings))
    config = uvicorn.Config(
        app, host="127.0.0.1", port=free_port(), log_level="critical", lifespan="off"
    )
    served = uvicorn.Server(config)
    thread = threading.Thread(target=served.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not served.started:
        assert thread.is_alive() and time.monotonic() < deadline
        time.sleep(0.05)
    yield f"http://127.0.0.1:{config.port}"
    served.should_exit = True
    thread.join(timeout=10)


RECORD_VIOLATIONS = """
window.__csp = [];
document.addEventListener('securitypolicyviolation',
  e => window.__csp.push(e.violatedDirective + ' ' + e.blockedURI));
"""


@pytest.mark.e2e
def test_the_pages_run_under_their_policy_in_chromium(live: str) -> None:
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is missing")
    sync_playwright = pytest.importorskip("playwright.sync_api").sync_playwright
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=["--no-sandbox", "--disable-gpu"]
        )
        try:
            context = browser.new_context()
            context.add_init_script(RECORD_VIOLATIONS)
            page = context.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            for path, ready in (
                ("/", "#ask-form"),
                ("/vocab", "table"),
                ("/rules/edison/rule-05?as=html&links=local", "main h1"),
                ("/docs", ".opblock"),
                ("/redoc", "[data-section-id^=operation]"),
            ):
                page.goto(live + path)
                page.wait_for_selector(ready, timeout=30_000)
                seen = [v for v in page.evaluate("window.__csp") if "redoc.ly" not in v]
                assert not seen, (path, seen)  # (ReDoc's footer logo is a CDN image: refused)
            styled = page.goto(live + "/vocab")
            assert styled is not None and styled.status == 200
            assert page.evaluate("getComputedStyle(document.body).marginTop") == "32px"
            page.goto(live + "/")
            page.fill("#q", "Jinzo pode ser Invocado por Invocação-Especial?")
            page.press("#q", "Enter")
            page.wait_for_selector(".answer", timeout=30_000)
            assert not page.evaluate("window.__csp")
            assert not errors, errors
        finally:
            browser.close()


def test_inline_blocks_are_found_in_any_case() -> None:
    html = "<SCRIPT>a()</SCRIPT><script src=x.js></script><style media=print>p{}</style>"
    assert inline_blocks(html) == [("script", "a()"), ("style", "p{}")]
    assert re.fullmatch(r"'sha256-[A-Za-z0-9+/]+=*'", source_hash("a()"))
