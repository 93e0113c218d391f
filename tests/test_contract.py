"""The OpenAPI contract holds: schemathesis drives every operation of the app through ASGI.

Its checks: no server error; every status, content type, body and header the app sends is the
one /openapi.json documents; what the schema forbids (constraints, strict types) is refused; an
undeclared method gets 405 with an `Allow` header naming the path's methods. The generation is
deterministic (derandomised, fixed seed, a few examples per operation), so a failure replays.

Not checked: `positive_data_acceptance` — a schema cannot say which SPARQL text parses, which
card a deck names or which question id exists, so some schema-valid requests are rightly 400,
404 or 422 (documented on those operations).
"""

from __future__ import annotations

import re
from typing import Any

import pytest
import schemathesis
import schemathesis.engine
from fastapi.testclient import TestClient
from schemathesis.engine.events import FatalError, NonFatalError, ScenarioFinished

from api.app import create_app
from api.contract import allowed_methods
from kb.service import RulingsService

CHECKS = {
    "not_a_server_error": True,
    "status_code_conformance": True,
    "content_type_conformance": True,
    "response_schema_conformance": True,
    "response_headers_conformance": True,
    "negative_data_rejection": True,
    "unsupported_method": True,
    "allow_header_conformance": True,
    "positive_data_acceptance": False,
    # Stateful and auth checks: the API is read-only and has no authentication.
    "use_after_free": False,
    "ensure_resource_availability": False,
    "ignored_auth": False,
    "object_level_authorization": False,
    "missing_required_header": False,
}
CONFIG = schemathesis.Config.from_dict(
    {
        "seed": 20261202,
        "checks": {name: {"enabled": on} for name, on in CHECKS.items()},
        "generation": {"max-examples": 5, "deterministic": True},
        "phases": {"stateful": {"enabled": False}},
    }
)


@pytest.fixture(scope="module")
def app(lite_service: RulingsService) -> Any:
    """The app over the KB without the card table (its dumps are the session's cached ones)."""
    return create_app(lite_service)


def run_schemathesis(app: Any) -> tuple[list[str], dict[str, int]]:
    """Schemathesis's engine (what `schemathesis run` drives) over the app: each failed check
    or error, described with its curl reproduction; and the cases sent per operation."""
    schema = schemathesis.openapi.from_asgi("/openapi.json", app, config=CONFIG)
    found: list[str] = []
    cases: dict[str, int] = {}
    for event in schemathesis.engine.from_schema(schema).execute():
        if isinstance(event, ScenarioFinished) and event.label:
            cases[event.label] = cases.get(event.label, 0) + len(event.recorder.cases)
            for checks in event.recorder.checks.values():
                for check in checks:
                    info = check.failure_info
                    if info is not None:
                        found.append(
                            f"{event.label}: {check.name}: {info.failure.title}\n"
                            f"{info.failure.message}\n{info.code_sample}"
                        )
        elif isinstance(event, (NonFatalError, FatalError)):
            found.append(f"{getattr(event, 'label', 'run')}: error: {event.info.message}")
    return found, cases


def test_every_operation_keeps_the_contract(app: Any, spec: dict[str, Any]) -> None:
    """Examples, coverage (boundaries, each constraint broken, undeclared methods) and fuzzing
    of every operation, with zero failures."""
    found, cases = run_schemathesis(app)
    assert not found, "\n\n".join(found)
    operations = {f"{m.upper()} {p}" for p, ops in spec["paths"].items() for m in ops}
    assert set(cases) == operations
    assert all(n >= 5 for n in cases.values()), cases


# --- what the schema says --------------------------------------------------------------------


@pytest.fixture(scope="module")
def client(app: Any) -> TestClient:
    return TestClient(app)


@pytest.fixture(scope="module")
def spec(client: TestClient) -> dict[str, Any]:
    return client.get("/openapi.json").json()


def test_every_422_is_the_envelope(spec: dict[str, Any]) -> None:
    assert "HTTPValidationError" not in spec["components"]["schemas"]
    for path, operations in spec["paths"].items():
        for method, operation in operations.items():
            for status, response in operation["responses"].items():
                if status.startswith(("4", "5")):
                    media = response["content"]["application/json"]["schema"]
                    assert media == {"$ref": "#/components/schemas/ErrorEnvelope"}, (
                        method,
                        path,
                        status,
                    )


def test_constraints_come_from_the_loaded_app(
    spec: dict[str, Any], lite_service: RulingsService
) -> None:
    text = re.compile("x-constraint")
    assert not text.search(str(spec)), "a marker was left unresolved"
    params = {p["name"]: p["schema"] for p in spec["paths"]["/search"]["get"]["parameters"]}
    assert params["q"]["maxLength"] == lite_service.settings.max_query_chars
    assert params["k"]["maximum"] == lite_service.settings.max_k
    assert params["format"]["anyOf"][0]["enum"] == ["", *lite_service.formats.ids]
    ask = spec["components"]["schemas"]["AskRequest"]["properties"]
    assert ask["question"]["pattern"] == r"\S" and ask["k"]["minimum"] == 1


@pytest.mark.parametrize(
    "body",
    [
        {"question": "pode?", "k": True},
        {"question": "pode?", "k": "5"},
        {"question": "pode?", "k": 5.5},
    ],
)
def test_ask_takes_strict_ints(client: TestClient, body: dict[str, Any]) -> None:
    r = client.post("/ask", json=body)
    assert r.status_code == 422 and r.json()["ok"] is False and "k" in r.json()["error"]


def test_a_405_names_every_method_of_the_path(client: TestClient) -> None:
    r = client.request("TRACE", "/sparql")
    assert r.status_code == 405 and r.json()["status"] == 405
    assert {m.strip() for m in r.headers["allow"].split(",")} == {"GET", "HEAD", "POST"}
    assert client.request("PUT", "/health").headers["allow"] == "GET, HEAD"


def test_allowed_methods_of_an_unknown_path_is_empty(app: Any) -> None:
    scope = {"type": "http", "path": "/nowhere", "method": "GET", "root_path": ""}
    assert allowed_methods(app.router.routes, scope) == []


# --- the documentation pages, offline --------------------------------------------------------

URL = re.compile(r"""(?:src|href)\s*=\s*["']([^"']+)["']|(?:url|specUrl)\s*:\s*["']([^"']+)["']""")


@pytest.mark.parametrize("page", ["/docs", "/redoc"])
def test_docs_pages_load_only_local_assets(client: TestClient, page: str) -> None:
    r = client.get(page)
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    urls = [a or b for a, b in URL.findall(r.text)]
    assert urls, r.text
    for url in urls:
        assert url.startswith("/") and not url.startswith("//"), f"{page} loads {url}"
        asset = client.get(url)
        assert asset.status_code == 200 and asset.content, url
    assert "http://" not in r.text and "https://" not in r.text
