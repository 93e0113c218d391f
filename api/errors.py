"""One JSON error envelope for every HTTP error: {"ok": false, "error": "...", "status": n}."""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from kb.errors import InvalidQuery, KBError, NotFound

log = logging.getLogger(__name__)


def envelope(status: int, message: str, **extra: Any) -> JSONResponse:
    return JSONResponse(
        {"ok": False, "error": message, "status": status, **extra}, status_code=status
    )


def _validation_message(exc: RequestValidationError) -> str:
    parts = []
    for e in exc.errors():
        loc = [str(x) for x in e.get("loc", ()) if x not in ("query", "body", "path")]
        parts.append(f"{'.'.join(loc) or 'request'}: {e.get('msg', 'invalid')}")
    return "; ".join(parts) or "invalid request"


def install_error_handlers(app: FastAPI) -> None:
    """Translate core errors and framework errors into the envelope, once, at the edge."""

    @app.exception_handler(InvalidQuery)
    async def _invalid(_: Request, exc: InvalidQuery) -> JSONResponse:
        return envelope(422, str(exc))

    @app.exception_handler(NotFound)
    async def _not_found(_: Request, exc: NotFound) -> JSONResponse:
        return envelope(404, str(exc), suggestions=exc.suggestions)

    @app.exception_handler(KBError)
    async def _kb(_: Request, exc: KBError) -> JSONResponse:
        return envelope(400, str(exc))

    @app.exception_handler(RequestValidationError)
    async def _validation(_: Request, exc: RequestValidationError) -> JSONResponse:
        return envelope(422, _validation_message(exc))

    @app.exception_handler(StarletteHTTPException)
    async def _http(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        return envelope(exc.status_code, str(exc.detail))

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
        log.exception("unexpected error on %s %s", request.method, request.url.path)
        return envelope(500, "internal server error")
