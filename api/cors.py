"""CORS for the read-only routes wikis and other sites call from browsers.

Everything these routes serve is public and no request carries credentials, so any origin may
read them: every GET or HEAD answer gets `Access-Control-Allow-Origin: *` (with or without an
`Origin`, so a shared cache never keeps a copy without it; on errors too, so the page can read the
envelope) and the headers a client needs exposed (ETag, Retry-After …).
A preflight (`OPTIONS` with `Access-Control-Request-Method`) is answered 204 for GET and HEAD
with the request headers a reader may send; any other method is a 405 in the envelope. A plain
OPTIONS is 204 with `Allow` (every method the resource answers, POST /sparql too). Other routes (the page, the POST routes, /metrics, the docs) are
left as they are: no CORS headers, OPTIONS 405.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from starlette.datastructures import Headers, MutableHeaders
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api.contract import allowed_methods
from api.errors import envelope

# The read-only JSON, linked-data and wiki routes (exact paths, then path prefixes).
READ_ONLY_PATHS = frozenset(
    {
        "/search",
        "/link",
        "/stats",
        "/health",
        "/sparql",
        "/vocab",
        "/export.ttl",
        "/export.jsonld",
        "/context.jsonld",
        "/documents",
        "/catalog",
        "/catalog/page",
        "/briefs",
        "/cards",
        "/banlist",
        "/quiz",
        "/openapi.json",
    }
)
READ_ONLY_PREFIXES = ("/id/", "/rules/", "/cards/", "/documents/")
ALLOWED_METHODS = ("GET", "HEAD", "OPTIONS")
CROSS_METHODS = frozenset({"GET", "HEAD"})
ALLOWED_HEADERS = ("Accept", "Accept-Language", "Content-Language", "If-None-Match", "X-Request-ID")
EXPOSED_HEADERS = ("ETag", "Retry-After", "X-Request-ID", "Content-Length", "Vary")
PREFLIGHT_MAX_AGE = 86400  # seconds a browser may remember a preflight's answer


def read_only(path: str, exact: Iterable[str] = READ_ONLY_PATHS) -> bool:
    """Whether `path` is one of the read-only routes any origin may read."""
    return path in exact or path.startswith(READ_ONLY_PREFIXES)


def preflight_headers(allow: str) -> dict[str, str]:
    return {
        "Access-Control-Allow-Origin": "*",
        "Access-Control-Allow-Methods": ", ".join(ALLOWED_METHODS),
        "Access-Control-Allow-Headers": ", ".join(ALLOWED_HEADERS),
        "Access-Control-Max-Age": str(PREFLIGHT_MAX_AGE),
        "Allow": allow,
    }


def options_response(headers: Headers, allow: str) -> Response:
    """The answer to an OPTIONS request on a read-only route (a preflight or a plain one);
    `allow` lists every method the resource answers (POST too, where it has one)."""
    wanted = headers.get("access-control-request-method")
    if wanted is not None and wanted.strip().upper() not in CROSS_METHODS:
        refused = envelope(
            405,
            f"cross-origin requests may only {' or '.join(sorted(CROSS_METHODS))} this route, "
            f"not {wanted.strip()[:20]!r}",
        )
        refused.headers["Allow"] = allow
        return refused
    return Response(status_code=204, headers=preflight_headers(allow))


class ReadOnlyCors:
    """CORS on the read-only routes (`read_only`): GET/HEAD readable by any origin, OPTIONS
    answered here (its `Allow` from the app's `routes`)."""

    def __init__(self, app: ASGIApp, routes: Sequence[Any]) -> None:
        self.app = app
        self.routes = routes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not read_only(scope["path"]):
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        if scope["method"] == "OPTIONS":
            allow = ", ".join(sorted({*allowed_methods(self.routes, scope), "OPTIONS"}))
            await options_response(headers, allow)(scope, receive, send)
            return
        if scope["method"] not in CROSS_METHODS:
            await self.app(scope, receive, send)
            return

        async def send_shared(message: Message) -> None:
            if message["type"] == "http.response.start":
                out = MutableHeaders(scope=message)
                out["Access-Control-Allow-Origin"] = "*"
                out["Access-Control-Expose-Headers"] = ", ".join(EXPOSED_HEADERS)
            await send(message)

        await self.app(scope, receive, send_shared)
