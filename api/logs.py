"""Structured logs: one JSON object per line, each carrying the id of the request it belongs to.

`RequestLog` (the outermost middleware) takes the request id from an incoming `X-Request-ID` (when
it is a plain token of at most 128 characters) or makes one, returns it as the `X-Request-ID`
response header, holds it in a context variable while the request runs (thread-pool routes and
SPARQL's own pool see it too) and writes one access line per request. `install_json_logging`
points the root logger (and uvicorn's) at a JSON formatter on stderr; the app does that when it
starts if `log_json` is set.
"""

from __future__ import annotations

import json
import logging
import re
import sys
import time
import uuid
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import IO, Any

from prometheus_fastapi_instrumentator.routing import get_route_name
from starlette.datastructures import Headers, MutableHeaders
from starlette.requests import HTTPConnection
from starlette.types import ASGIApp, Message, Receive, Scope, Send

REQUEST_ID: ContextVar[str | None] = ContextVar("request_id", default=None)
REQUEST_ID_HEADER = "x-request-id"
VALID_ID = re.compile(r"[A-Za-z0-9._:+=/-]{1,128}")
ACCESS = logging.getLogger("api.access")
# Extra fields of a log record that become keys of its JSON line.
FIELDS = ("method", "path", "route", "status", "duration_ms", "client")


class RequestIdFilter(logging.Filter):
    """Stamp each record with the current request id (in the thread that logs it)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "request_id", None) is None:
            record.request_id = REQUEST_ID.get()
        return True


class JsonFormatter(logging.Formatter):
    """A record as one line of JSON: time, level, logger, message, request id, extra fields."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        request_id = getattr(record, "request_id", None)
        if request_id is not None:
            line["request_id"] = request_id
        for key in FIELDS:
            if hasattr(record, key):
                line[key] = getattr(record, key)
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=True, default=str)


class StderrHandler(logging.StreamHandler):
    """A stream handler writing to whatever `sys.stderr` is when a record is emitted."""

    def __init__(self) -> None:
        super().__init__()

    @property
    def stream(self) -> IO[str]:
        return sys.stderr

    @stream.setter
    def stream(self, _: IO[str]) -> None:
        pass


def install_json_logging(stream: IO[str] | None = None) -> logging.Handler:
    """Log JSON lines to `stream` (default: stderr) from the root logger; idempotent (it
    replaces the handler it installed before)."""
    handler = logging.StreamHandler(stream) if stream is not None else StderrHandler()
    handler.setFormatter(JsonFormatter())
    handler.addFilter(RequestIdFilter())
    handler.set_name("ygo-json")
    root = logging.getLogger()
    for old in [h for h in root.handlers if h.get_name() == "ygo-json" or _plain_stderr(h)]:
        root.removeHandler(old)  # its own from before, and a plain stderr one (basicConfig's)
    root.addHandler(handler)
    ACCESS.setLevel(logging.INFO)
    for name in ("uvicorn", "uvicorn.error"):  # uvicorn's own lines go through it too
        logger = logging.getLogger(name)
        logger.handlers.clear()
        logger.propagate = True
    logging.getLogger("uvicorn.access").disabled = True  # the access line below replaces it
    return handler


def _plain_stderr(handler: logging.Handler) -> bool:
    return type(handler) is logging.StreamHandler and handler.stream in (sys.stderr, sys.__stderr__)


def request_id_of(scope: Scope) -> str:
    """The client's X-Request-ID when it is a plain token, else a new one."""
    given = Headers(scope=scope).get(REQUEST_ID_HEADER)
    if given is not None and VALID_ID.fullmatch(given):
        return given
    return uuid.uuid4().hex


CLIENT_CLOSED = 499  # the access log's status for a request whose client left before an answer


class RequestLog:
    """Request id in, request id out, and one access line per HTTP request."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = request_id_of(scope)
        token = REQUEST_ID.set(request_id)
        began = time.perf_counter()
        status: int | None = None
        failed = False

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                MutableHeaders(scope=message)[REQUEST_ID_HEADER] = request_id
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        except BaseException:
            failed = True
            raise
        finally:
            if status is None:
                # no answer started: an error, or the client left first (a stalled body cut
                # off at its deadline), logged as nginx does: 499
                status = 500 if failed else CLIENT_CLOSED
            client = scope.get("client")
            ACCESS.info(
                "%s %s %d",
                scope["method"],
                scope["path"],
                status,
                extra={
                    "method": scope["method"],
                    "path": scope["path"],
                    "route": get_route_name(HTTPConnection(scope), False) or "none",
                    "status": status,
                    "duration_ms": round((time.perf_counter() - began) * 1000, 2),
                    "client": client[0] if client else None,
                },
            )
            REQUEST_ID.reset(token)
