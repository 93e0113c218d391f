"""Every input string is checked once, at the edge, before any route sees it.

A lone surrogate (JSON can spell one, `"\\ud800"`, though no UTF-8 text holds one), NUL, other
control characters than tab / line feed / carriage return, and the non-characters U+FFFE / U+FFFF
make a 422 naming the field, instead of a crash deeper in (a tokenizer, the JSON encoder of the
answer that echoes the question). Query values, path parameters and every string (key or value,
at any depth) of a route's JSON body are checked; `check_input_strings` is an app-wide dependency.
A field whose own name holds such a character is named with it escaped (`\\udfff`, `escaped`),
so the error can always be written. A route that reads a JSON body refuses another declared
content type with 415 (no content type at all is read as JSON, as FastAPI does).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException

UNSAFE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff\ufffe\uffff]")
Location = tuple[str | int, ...]


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


def escaped(text: str) -> str:
    """`text` with every unsafe character spelled as a JSON escape (`\\udfff`, `\\u0000`): what
    an error message may repeat of a client's string (UTF-8 cannot encode a lone surrogate)."""
    return UNSAFE.sub(lambda found: f"\\u{ord(found.group()):04x}", text)


Link = tuple[Any, str | int] | None  # (the parent's link, this key or index); None: the root


def unsafe_json_strings(value: Any) -> Iterator[tuple[Location, str]]:
    """(location, string) for every unsafe string of a parsed JSON value, keys included, at any
    depth, in document order. Walked with a stack of links to the parent, and a location is only
    spelled out for an unsafe string: neither deep nesting nor many strings costs more than one
    pass."""
    stack: list[tuple[Link, Any]] = [(None, value)]
    while stack:
        link, item = stack.pop()
        if isinstance(item, str):
            if UNSAFE.search(item):
                yield location(link), item
        elif isinstance(item, dict):
            for key, child in reversed(list(item.items())):
                named: Link = (link, str(key))
                stack.append((named, child))
                stack.append((named, str(key)))  # the key first, then its value
        elif isinstance(item, list):
            stack.extend(((link, i), child) for i, child in reversed(list(enumerate(item))))


def location(link: Link) -> Location:
    """The keys and indexes from the root down to `link`."""
    parts: list[str | int] = []
    while link is not None:
        link, part = link
        parts.append(part)
    return tuple(reversed(parts))


def input_strings(request: Request) -> Iterator[tuple[Location, str]]:
    """The request's path parameters and query values (and names) with where they are."""
    for name, value in request.path_params.items():
        if isinstance(value, str):
            yield ("path", name), value
    for name, value in request.query_params.multi_items():
        yield ("query", name), name
        yield ("query", name), value


async def check_input_strings(request: Request) -> None:
    """Refuse a request with an unsafe string anywhere the route reads (422 naming the field),
    or a JSON route's body of another declared content type (415)."""
    found = list(input_strings(request))
    route = request.scope.get("route")
    if getattr(route, "body_field", None) is not None and request.method not in BODYLESS:
        refuse_other_media(request)
        refuse_other_encodings(await request.body())
        try:
            body = await request.json()  # parsed (and cached) already by FastAPI
        except (ValueError, RecursionError):
            body = None  # FastAPI reports malformed JSON itself
        found.extend((("body", *loc), text) for loc, text in unsafe_json_strings(body))
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


BODYLESS = frozenset({"GET", "HEAD", "OPTIONS"})


def media_type(request: Request) -> str:
    """The request's content type without parameters, lower case ("" when none is declared)."""
    return request.headers.get("content-type", "").split(";")[0].strip().lower()


def refuse_other_media(request: Request) -> None:
    """A JSON route reads JSON: any other declared content type is a 415 naming it."""
    kind = media_type(request)
    if kind and kind != "application/json" and not kind.endswith("+json"):
        raise HTTPException(
            415,
            f"unsupported content type {escaped(kind)!r}: {request.url.path} reads "
            "application/json",
        )


def not_utf8(position: int) -> str:
    """What is wrong with a body that is not UTF-8, and where."""
    return f"not UTF-8 (byte {position}); send JSON encoded as UTF-8"


def first_non_utf8_byte(raw: bytes) -> int | None:
    """Where `raw` stops being UTF-8 JSON: its first invalid byte, or its first NUL byte (which
    no JSON text holds, and which makes Python's parser read UTF-16 or UTF-32); None if it is."""
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return exc.start
    nul = raw.find(b"\x00")
    return nul if nul >= 0 else None


def refuse_other_encodings(raw: bytes) -> None:
    """JSON is exchanged as UTF-8 (RFC 8259; a leading BOM is tolerated): a UTF-16 or UTF-32
    body, which Python's parser would also read, is refused like any other non-UTF-8 one."""
    position = first_non_utf8_byte(raw)
    if position is not None:
        problem = {
            "type": "json_invalid",
            "loc": ("body",),
            "msg": "JSON decode error",
            "input": None,
            "ctx": {"error": not_utf8(position), "position": position},
        }
        raise RequestValidationError([problem])
