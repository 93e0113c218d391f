"""The limits a public service needs, as ASGI middleware: a body cap and a time budget.

- `BodyLimit`: a request body larger than its route's cap is a 413 in the error envelope naming
  the cap. A declared `Content-Length` over it is refused before any byte is read; a chunked body
  is counted while it streams in and refused as soon as it passes the cap, so no more than the cap
  is ever held. The body (at most the cap) is then handed to the app as one message.
- `TimeBudget`: a request whose response has not started within its budget is answered 504 in
  the envelope; the work is abandoned (its output dropped). Sync routes already run in the thread
  pool and SPARQL in its own (see api.routes.linked_data.SparqlGate), so the event loop stays free
  to send the 504; the abandoned thread finishes on its own.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping

from fastapi.responses import JSONResponse
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api.errors import envelope

log = logging.getLogger(__name__)
BODYLESS = frozenset({"GET", "HEAD", "OPTIONS", "TRACE"})


class BodyLimit:
    """Cap request bodies: `limits` maps a path to its own cap, every other path has `default`."""

    def __init__(self, app: ASGIApp, default: int, limits: Mapping[str, int] | None = None) -> None:
        self.app = app
        self.default = default
        self.limits = dict(limits or {})

    def limit_for(self, path: str) -> int:
        return self.limits.get(path, self.default)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] in BODYLESS:
            await self.app(scope, receive, send)
            return
        limit = self.limit_for(scope["path"])
        declared = Headers(scope=scope).get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > limit:
            await too_large(limit, int(declared))(scope, receive, send)
            return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":  # the client left before its body was sent
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > limit:
                await too_large(limit, None)(scope, receive, send)
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        await self.app(scope, replay(b"".join(chunks), receive), send)


def too_large(limit: int, declared: int | None) -> JSONResponse:
    """The 413 envelope naming the route's limit (and the declared size, when there was one)."""
    sent = f" (Content-Length: {declared})" if declared is not None else ""
    return envelope(
        413,
        f"the request body is larger than this route's limit of {limit} bytes{sent}",
        params={"limit": limit},
    )


def replay(body: bytes, receive: Receive) -> Receive:
    """A receive that gives the already-read body once, then the client's own messages."""
    pending = True

    async def receive_again() -> Message:
        nonlocal pending
        if pending:
            pending = False
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return receive_again


class TimeBudget:
    """Answer 504 when a request's response has not started within `seconds`; `exempt` paths
    (bounded work that is done once and kept, such as the whole-graph downloads) have none."""

    def __init__(self, app: ASGIApp, seconds: float, exempt: frozenset[str] = frozenset()) -> None:
        self.app = app
        self.seconds = seconds
        self.exempt = exempt
        self._abandoned: set[asyncio.Future[None]] = set()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] in self.exempt:
            await self.app(scope, receive, send)
            return
        started = False
        expired = False

        async def send_in_time(message: Message) -> None:
            nonlocal started
            if expired:
                return  # the 504 went out: late output of abandoned work is dropped
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        task = asyncio.ensure_future(self.app(scope, receive, send_in_time))
        try:
            done, _ = await asyncio.wait({task}, timeout=self.seconds)
        except asyncio.CancelledError:
            task.cancel()
            raise
        if done or started:  # finished, or already streaming its answer: let it finish
            await task
            return
        expired = True
        task.cancel()  # a sync route's thread cannot be stopped: it ends on its own
        self._abandoned.add(task)
        task.add_done_callback(self._forget)
        log.warning(
            "%s %s took longer than its budget of %g s: answered 504",
            scope["method"],
            scope["path"],
            self.seconds,
        )
        await envelope(
            504,
            f"the request took longer than its budget of {self.seconds:g} s "
            "(request_timeout); try a narrower request",
            params={"seconds": f"{self.seconds:g}"},
        )(scope, receive, send)

    def _forget(self, task: asyncio.Future[None]) -> None:
        self._abandoned.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.warning("abandoned request failed: %r", task.exception())
