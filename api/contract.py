"""The input constraints OpenAPI shows, named once and filled in from the loaded app.

Some constraints are fixed (a markup is one of four names); others only the running app knows:
the format ids the manifest declares, the card attributes the card data holds, the quiz topics,
the limits of its Settings. A parameter or body field names its constraint with `mark(name)`
(a `json_schema_extra` marker); `install(app, service)` replaces every marker in the generated
schema with the values of that app. The service keeps validating (the CLI shares its checks and
messages); these fragments describe exactly what it accepts, and the schemathesis test
(tests/test_contract.py) holds them to that: anything the schema forbids must be refused.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from fastapi import FastAPI
from pydantic import BaseModel, Field
from starlette.routing import Match, Route
from starlette.types import Scope

from kb.cards.search import type_choices
from kb.cards.service import Need
from kb.model import RETRIEVABLE_TYPES
from kb.presentation.quiz import MAX_QUESTIONS, MAX_SEED
from kb.service import RulingsService

MARK = "x-constraint"
# Response bodies that are not JSON models: RDF text, and compacted JSON-LD.
TEXT_BODY: dict[str, Any] = {"schema": {"type": "string"}}
# Compacted JSON-LD: `@context` (the URL of /context.jsonld, or the context itself there) and
# the node objects in `@graph`.
JSON_LD_BODY: dict[str, Any] = {
    "schema": {
        "type": "object",
        "required": ["@context"],
        "properties": {
            "@context": {"type": ["string", "object"]},
            "@graph": {"type": "array", "items": {"type": "object"}},
        },
    }
}
TEXT = r"\S"  # at least one character that is not white space (the service strips)
Fragment = dict[str, Any]


def mark(name: str) -> dict[str, Any]:
    """The `json_schema_extra` naming one of `constraints()` (filled in by `install`)."""
    return {MARK: name}


def fixed(**fragment: Any) -> dict[str, Any]:
    """The `json_schema_extra` of a constraint every app shares (`fixed(enum=[...])`), placed
    like a named one (on the non-null branch of a `T | None`)."""
    return {MARK: fragment}


def any_case(word: str) -> str:
    """A regex matching `word` in any letter case (JSON Schema patterns have no flags)."""
    return "".join(f"[{c.upper()}{c.lower()}]" if c.isalpha() else _escape(c) for c in word)


def _escape(c: str) -> str:
    return "\\" + c if c in r".^$*+?()[]{}|\\" else c


def one_of_words(words: Iterable[str], *, listed: bool = False) -> Fragment:
    """A pattern for one of `words` in any case with blanks around it, or the empty string (no
    filter); `listed`: a comma-separated list of them (empty items skipped)."""
    names = sorted(words)
    if not names:
        return {"pattern": "^$"}
    word = "(?:" + "|".join(any_case(w) for w in names) + ")"
    one = rf"[\s,]*{word}(?:\s*,[\s,]*{word})*[\s,]*" if listed else rf"\s*{word}\s*"
    return {"pattern": f"^(?:{one})?$"}


class AskRequest(BaseModel):
    """The body of POST /ask (and the arguments of the MCP tool `ask`)."""

    question: str = Field(
        description="The ruling question, pt or en.", json_schema_extra=mark("text")
    )
    format: str | None = Field(
        default=None,
        description="A format id declared in the manifest (see /stats); detected when null.",
        json_schema_extra=mark("format"),
    )
    k: int = Field(
        default=5,
        strict=True,
        description="Citations to return (1..max_k).",
        json_schema_extra=mark("k"),
    )


def constraints(service: RulingsService) -> dict[str, Callable[[], Fragment]]:
    """Each named constraint as JSON Schema, from this app's KB and settings."""
    s = service.settings

    def formats() -> Fragment:
        return {"enum": ["", *service.formats.ids]}  # "" is no format (the default)

    def card_formats(need: Need | None) -> Callable[[], Fragment]:
        def fragment() -> Fragment:
            # "" is the default: the first accepted format (a search: no filter; with no
            # accepted format, a 422 naming what no format declares).
            return {"enum": ["", *service.card_service.accepted_formats(need)]}

        return fragment

    def attributes() -> Fragment:
        return one_of_words(service.card_service.index.attributes)

    def deck() -> Fragment:
        limit = service.card_service.max_deck_chars
        return {"minLength": 1, "maxLength": limit, "pattern": r"^[^\x00]*[^\x00\s][^\x00]*$"}

    return {
        "text": lambda: {"minLength": 1, "maxLength": s.max_query_chars, "pattern": TEXT},
        "k": lambda: {"minimum": 1, "maximum": s.max_k},
        "format": formats,
        "card-format": card_formats(None),
        "card-format-rules": card_formats("rules"),
        "card-format-deck": card_formats("deck"),
        "card-format-list": card_formats("list"),
        "hit-types": lambda: one_of_words(RETRIEVABLE_TYPES, listed=True),
        "card-type": lambda: one_of_words(type_choices()),
        "attribute": attributes,
        "quiz-n": lambda: {"minimum": 1, "maximum": MAX_QUESTIONS},
        "quiz-seed": lambda: {"minimum": 0, "maximum": MAX_SEED},
        "quiz-topic": lambda: {"enum": ["", *service.question_bank.topics]},
        "deck": deck,
        "sparql": lambda: {"pattern": TEXT},
    }


def resolve(node: Any, values: dict[str, Callable[[], Fragment]]) -> None:
    """Replace every marker under `node` by its fragment (on the non-null branch of a
    `T | None` union, so null stays allowed where it was)."""
    if isinstance(node, list):
        for item in node:
            resolve(item, values)
        return
    if not isinstance(node, dict):
        return
    name = node.pop(MARK, None)
    if name is not None:
        fragment = name if isinstance(name, dict) else values[name]()
        branches = [b for b in node.get("anyOf", []) if b.get("type") != "null"]
        (branches[0] if len(branches) == 1 else node).update(fragment)
    for value in node.values():
        resolve(value, values)


def install(app: FastAPI, service: RulingsService) -> None:
    """Fill the markers of the app's OpenAPI schema (once: it is generated on first request)."""
    build = app.openapi
    values = constraints(service)

    def openapi() -> dict[str, Any]:
        schema = build()
        resolve(schema, values)
        return schema

    app.openapi = openapi  # type: ignore[method-assign]


def allowed_methods(routes: Iterable[Any], scope: Scope) -> list[str]:
    """Every method some route serves at this request's path (the `Allow` header of a 405)."""
    methods: set[str] = set()
    for route in routes:
        if isinstance(route, Route) and route.methods:
            match, _ = route.matches(scope)
            if match is not Match.NONE:
                methods |= route.methods
    if "GET" in methods:
        methods.add("HEAD")  # the caching layer answers HEAD on every GET route
    return sorted(methods)
