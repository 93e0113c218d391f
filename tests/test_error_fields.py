"""Every error envelope's `field` is a field of the request: a parameter the route declares in its
OpenAPI (query or path), a property path of its JSON body (`answers.0.id`, `decks.1`), or `body`
for a body that is not a JSON object; never a character offset or a name the route does not take.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from kb.service import RulingsService

JSON = {"content-type": "application/json"}

BAD = [
    ("post", "/ask", {"content": b'{"question": "x",, }', "headers": JSON}),
    ("post", "/ask", {"content": b'{"question": "ok?"', "headers": JSON}),
    ("post", "/ask", {"json": {"question": 5}}),
    ("post", "/ask", {"json": {"question": "x", "format": "pauper"}}),
    ("post", "/deck/validate", {"content": b'{"deck": "3 Sangan"', "headers": JSON}),
    ("post", "/deck/validate", {"json": {"decks": ["3 Sangan", ""]}}),
    ("post", "/deck/validate", {"json": {"decks": ["3 Sangan", "???"], "format": "tag"}}),
    ("post", "/deck/validate", {"json": {"decks": ["3 Sangan", "3 Sangan"]}}),
    ("post", "/deck/validate", {"json": {"deck": "\n\n"}}),
    ("post", "/deck/validate", {"json": {}}),
    ("post", "/quiz/check", {"content": b"[1, 2", "headers": JSON}),
    ("post", "/quiz/check", {"json": {"answers": [{"id": "nope", "answer": "a"}]}}),
    ("post", "/quiz/check", {"json": {"answers": []}}),
    ("get", "/rules/concept/chain", {}),
    ("get", "/rules/edison/rule-10?links=bogus", {}),
    ("get", "/cards/sangan?template=x", {}),
    ("get", "/id/edison?as=foo", {}),
    ("get", "/cards/card%2Fsangan/legality?format=general", {}),
    ("get", "/banlist?format=general", {}),
    ("get", "/banlist?as=csv", {}),
    ("get", "/catalog/page?lang=fr", {}),
    ("get", "/catalog/page?offset=-1", {}),
    ("get", "/briefs", {}),
    ("get", "/quiz?topic=zz", {}),
    ("get", "/rules-about?subject=edison/rule-10/p-01", {}),
    ("get", "/search?q=chain&k=0", {}),
]


def body_paths(schema: dict[str, Any], components: dict[str, Any], prefix: str = "") -> set[str]:
    """Every property path of a JSON schema (array items as a `N` segment)."""
    if "$ref" in schema:
        schema = components[schema["$ref"].rsplit("/", 1)[-1]]
    paths: set[str] = set()
    for key in ("anyOf", "oneOf", "allOf"):
        for part in schema.get(key, []):
            paths |= body_paths(part, components, prefix)
    for name, sub in schema.get("properties", {}).items():
        path = f"{prefix}{name}"
        paths.add(path)
        paths |= body_paths(sub, components, path + ".")
    if "items" in schema:
        paths.add(prefix + "N")
        paths |= body_paths(schema["items"], components, prefix + "N.")
    return paths


@pytest.fixture(scope="module")
def client(hash_service: RulingsService) -> TestClient:
    return TestClient(create_app(hash_service), raise_server_exceptions=False)


@pytest.fixture(scope="module")
def real_fields(client: TestClient) -> dict[tuple[str, str], set[str]]:
    """(method, path template) -> the fields the route takes."""
    spec = client.get("/openapi.json").json()
    components = spec.get("components", {}).get("schemas", {})
    out: dict[tuple[str, str], set[str]] = {}
    for path, operations in spec["paths"].items():
        for method, op in operations.items():
            names = {p["name"] for p in op.get("parameters", [])}
            body = op.get("requestBody", {}).get("content", {}).get("application/json")
            if body:
                names |= {"body"} | body_paths(body["schema"], components)
            out[method, path] = names
    return out


def template_of(url: str, templates: list[str]) -> str:
    path = url.split("?")[0]
    for template in sorted(templates, key=lambda t: (t.count("{"), -len(t))):
        pattern = re.sub(r"\\\{[^}]+\\\}", ".+", re.escape(template))
        if re.fullmatch(pattern, path):
            return template
    raise AssertionError(f"no route for {url}")


@pytest.mark.parametrize(("method", "url", "kwargs"), BAD)
def test_the_field_of_an_error_is_a_field_of_the_request(
    client: TestClient,
    real_fields: dict[tuple[str, str], set[str]],
    method: str,
    url: str,
    kwargs: dict[str, Any],
) -> None:
    r = getattr(client, method)(url, **kwargs)
    assert 400 <= r.status_code < 500, r.text
    envelope = r.json()
    field = envelope.get("field")
    if field is None:
        return
    template = template_of(url, [p for m, p in real_fields if m == method])
    shape = re.sub(r"(?<=\.)\d+(?=\.|$)", "N", field)
    assert shape in real_fields[method, template], (field, sorted(real_fields[method, template]))
    assert envelope["error"].startswith(f"{field}: "), envelope


def test_malformed_json_names_the_body_and_where_parsing_failed(client: TestClient) -> None:
    for route in ("/ask", "/deck/validate", "/quiz/check"):
        envelope = client.post(route, content=b'{"a": 1,\n "b": }', headers=JSON).json()
        assert (envelope["code"], envelope["field"]) == ("bad_json", "body")
        assert "line 2, column 7" in envelope["error"]
