"""HTTP caching for wikis and CDNs: ETag, Cache-Control and 304 on every GET; HEAD everywhere.

The API serves one read-only build, so a GET's body is a function of the build, the settings that
shape output, the URL and the Accept header (content negotiation), nothing else. Its ETag is the
build id plus a digest of exactly those (`"<build id>-<digest>"`): two different bodies never share
one, and the tag is known before the route runs, so a matching `If-None-Match` is answered `304`
at once without doing the work. A 200 gets `Cache-Control: public, max-age=<cache_max_age>` unless
its route set its own (live state such as /health, /metrics or an unseeded /quiz says `no-store`,
and gets no ETag); a request carrying `Authorization` (a trainee's) is passed through untouched.
`HEAD` runs the GET route and drops the body, keeping its headers.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import Any

from starlette.datastructures import Headers, MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

CACHED_METHODS = frozenset({"GET", "HEAD"})
# What a 304 repeats of the 200 it stands for (RFC 9110 §15.4.5).
NOT_MODIFIED_KEEPS = ("cache-control", "etag", "vary", "content-location", "expires")


def tags_of(header: str | None) -> set[str]:
    """The entity tags of an If-None-Match header, weak markers dropped (weak comparison)."""
    if not header:
        return set()
    return {t.strip().removeprefix("W/") for t in header.split(",") if t.strip()}


def cache_seed(build_id: str, settings: Iterable[tuple[str, Any]], version: str) -> str:
    """What, besides the request, decides a body: the build, the code version, the settings."""
    digest = hashlib.sha256(repr((version, sorted(settings))).encode("utf-8")).hexdigest()
    return f"{build_id}:{digest[:16]}"


class HttpCaching:
    """ETag / Cache-Control / 304 for GET and HEAD; HEAD answered as GET without the body."""

    def __init__(self, app: ASGIApp, build_id: str, seed: str, max_age: int) -> None:
        self.app = app
        self.build_id = build_id
        self.seed = seed
        self.cache_control = f"public, max-age={max_age}"

    def etag(self, scope: Scope) -> str:
        accept = Headers(scope=scope).get("accept", "")
        key = "\n".join(
            (self.seed, scope["path"], scope.get("query_string", b"").decode("latin-1"), accept)
        )
        return f'"{self.build_id}-{hashlib.sha256(key.encode("utf-8")).hexdigest()[:16]}"'

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] not in CACHED_METHODS:
            await self.app(scope, receive, send)
            return
        head = scope["method"] == "HEAD"
        inner = {**scope, "method": "GET"} if head else scope  # the server's own scope stays HEAD
        # A request with credentials gets a personal answer: no ETag, no 304 (HEAD still works).
        personal = "authorization" in Headers(scope=scope)
        etag = self.etag(scope)
        wanted = set() if personal else tags_of(Headers(scope=scope).get("if-none-match"))
        if etag in wanted:
            await not_modified(
                send, [(b"etag", etag.encode()), (b"cache-control", self.cache_control.encode())]
            )
            return
        drop_body = head

        async def send_cached(message: Message) -> None:
            nonlocal drop_body
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                if message["status"] == 200 and "cache-control" not in headers and not personal:
                    headers["etag"] = etag
                    headers["cache-control"] = self.cache_control
                own = headers.get("etag")
                if (
                    message["status"] == 200
                    and own
                    and (own.removeprefix("W/") in wanted or "*" in wanted)
                ):
                    drop_body = True
                    await not_modified(
                        send,
                        [(k, v) for k, v in headers.raw if k.decode() in NOT_MODIFIED_KEEPS],
                        end=False,
                    )
                    return
            elif message["type"] == "http.response.body" and drop_body:
                if not message.get("more_body", False):
                    await send({"type": "http.response.body", "body": b""})
                return
            await send(message)

        await self.app(inner, receive, send_cached)


async def not_modified(send: Send, headers: list[tuple[bytes, bytes]], end: bool = True) -> None:
    """Send a 304 (its body, none, unless the app's own empty end will follow: `end=False`)."""
    await send({"type": "http.response.start", "status": 304, "headers": headers})
    if end:
        await send({"type": "http.response.body", "body": b""})
