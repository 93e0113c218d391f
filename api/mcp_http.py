"""MCP over streamable HTTP at `/mcp`, started in the background while the app starts.

The MCP SDK takes ~0.8 s to import, so neither the app's import nor its start waits for it: the
app's lifespan starts a task that imports `api.mcp_server`, builds the server and runs its session
manager, and the API answers its other routes meanwhile. A request to `/mcp` that arrives before
the server is ready waits for it (at most `request_timeout`); without a lifespan, or when the
server could not start, `/mcp` answers 503 saying why. Each worker process starts its own.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
from fastapi import FastAPI
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from api.errors import envelope
from kb.service import RulingsService

log = logging.getLogger(__name__)

PATH = "/mcp"
NOT_RUNNING = "the MCP endpoint is not running (it starts with the app)"


class HttpEndpoint:
    """The ASGI app at /mcp: the SDK's streamable HTTP transport, stateless with JSON answers."""

    def __init__(self, service: RulingsService) -> None:
        self.service = service
        self.server: Any = None  # the MCPServer, once its session manager runs
        self.failure: str | None = None
        self._ready: anyio.Event | None = None

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """Start the server in the background for as long as the block runs."""
        self._ready = anyio.Event()
        try:
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(self._serve, self._ready)
                try:
                    yield
                finally:
                    tasks.cancel_scope.cancel()
        finally:
            self._ready = None

    async def started(self) -> bool:
        """Wait until the server runs or could not start (while the app runs): whether it runs."""
        if self._ready is not None:
            await self._ready.wait()
        return self.server is not None

    async def _serve(self, ready: anyio.Event) -> None:
        try:
            server = await anyio.to_thread.run_sync(_build, self.service)
            _serve_http(server, self.service)
            async with server.session_manager.run():
                self.server = server
                ready.set()
                await anyio.sleep_forever()
        except anyio.get_cancelled_exc_class():
            raise
        except Exception as exc:  # a failed MCP start leaves the rest of the API serving
            log.exception("the MCP endpoint could not start")
            self.failure = f"the MCP endpoint could not start: {type(exc).__name__}"
        finally:
            self.server = None
            ready.set()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        ready = self._ready
        if ready is not None and not ready.is_set():
            with anyio.move_on_after(self.service.settings.request_timeout):
                await ready.wait()
        server = self.server
        if server is None:
            reason = self.failure or NOT_RUNNING
            if ready is not None and not ready.is_set():
                reason = "the MCP endpoint is still starting; try again"
            await envelope(503, reason)(scope, receive, send)
            return
        await server.session_manager.handle_request(scope, receive, send)


def _build(service: RulingsService) -> Any:
    """The MCP server over `service` (importing the SDK: run it off the event loop)."""
    from api.mcp_server import build_server

    return build_server(service)


def _serve_http(server: Any, service: RulingsService) -> None:
    """Make the server's stateless JSON session manager for this path."""
    from mcp.server.transport_security import TransportSecuritySettings

    # Makes the server's session manager, which the endpoint hands each request; the Starlette
    # app it returns (whose lifespan would start the manager) is not mounted.
    server.streamable_http_app(
        streamable_http_path=PATH,
        stateless_http=True,
        json_response=True,
        max_request_body_size=service.settings.max_body_bytes,
        # The API answers any Host like its other routes (a proxy in front decides which names
        # it serves); the KB is public and read-only.
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
    )


def mount(app: FastAPI, service: RulingsService) -> None:
    """Serve MCP over streamable HTTP at /mcp, started while the app's lifespan runs."""
    endpoint = HttpEndpoint(service)
    # POST only: a stateless server sends nothing unasked, so it offers no GET stream (the
    # protocol's 405) and no session to DELETE; the app's 405 envelope names POST in Allow.
    route = Route(PATH, endpoint=endpoint, methods=["POST"], include_in_schema=False)
    app.router.routes.append(route)
    app.state.mcp = endpoint
    outer = app.router.lifespan_context

    @asynccontextmanager
    async def lifespan(app_: Any) -> AsyncIterator[Any]:
        async with endpoint.running(), outer(app_) as state:
            yield state

    app.router.lifespan_context = lifespan
