"""Every input string is checked once, at the edge, before any route sees it.

A lone surrogate (JSON can spell one, `"\\ud800"`, though no UTF-8 text holds one), NUL, other
control characters than tab / line feed / carriage return, and the non-characters U+FFFE / U+FFFF
make a 422 naming the field, instead of a crash deeper in (a tokenizer, the JSON encoder of the
answer that echoes the question). Query values, path parameters and every string (key or value)
of a route's JSON body are checked; `check_input_strings` is an app-wide dependency.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from fastapi import Request
from fastapi.exceptions import RequestValidationError

UNSAFE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff\ufffe\uffff]")


def string_problem(text: str) -> str | None:
    """What makes `text` unsafe (the first offending character), or None."""
    found = UNSAFE.search(text)
    if found is None:
        return None
    code = ord(found.group())
    if 0xD800 <= code <= 0xDFFF:
        kind = "a lone surrogate"
    elif code == 0:
        kind = "a NUL character"
    elif code >= 0xFFFE:
        kind = "a non-character"
    else:
        kind = "a control character"
    return f"contains {kind} (U+{code:04X}) at position {found.start()}"


def unsafe_position(text: str) -> int:
    """Where the first unsafe character of `text` is (-1: none)."""
    found = UNSAFE.search(text)
    return found.start() if found else -1


def json_strings(
    value: Any, loc: tuple[str | int, ...] = ()
) -> Iterator[tuple[tuple[str | int, ...], str]]:
    """(location, string) for every string of a parsed JSON value, keys included."""
    if isinstance(value, str):
        yield loc, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield (*loc, str(key)), str(key)
            yield from json_strings(item, (*loc, str(key)))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from json_strings(item, (*loc, i))


def input_strings(request: Request) -> Iterator[tuple[tuple[str | int, ...], str]]:
    """The request's path parameters and query values (and names) with where they are."""
    for name, value in request.path_params.items():
        if isinstance(value, str):
            yield ("path", name), value
    for name, value in request.query_params.multi_items():
        yield ("query", name), name
        yield ("query", name), value


async def check_input_strings(request: Request) -> None:
    """Refuse a request with an unsafe string anywhere the route reads (422 naming the field)."""
    found = list(input_strings(request))
    route = request.scope.get("route")
    if getattr(route, "body_field", None) is not None and _is_json(request):
        try:
            body = await request.json()  # parsed (and cached) already by FastAPI
        except ValueError:
            body = None  # FastAPI reports malformed JSON itself
        found.extend((("body", *loc), text) for loc, text in json_strings(body))
    errors = [
        {
            "type": "string_unsafe",
            "loc": loc,
            "msg": problem,
            "input": None,
            "ctx": {"position": unsafe_position(text)},
        }
        for loc, text in found
        if (problem := string_problem(text)) is not None
    ]
    if errors:
        raise RequestValidationError(errors)


def _is_json(request: Request) -> bool:
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    return kind == "application/json" or kind.endswith("+json")
