"""One JSON error envelope for every HTTP error: {"ok": false, "error": "...", "status": n,
"code": "...", "field": ..., "params": {...}}.

`error` is the English message; `code` (a key of kb.errors.ERROR_CODES), `field` (the offending
parameter) and `params` (the values the message names) say the same for a client that words it
in its own language (the web page does, in Portuguese or English).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Mapping
from pathlib import Path, PurePosixPath
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from api.contract import allowed_methods
from api.safe_strings import escaped, not_utf8
from kb.errors import Conflict, DatabaseUnavailable, InvalidQuery, KBError, NotFound, Unauthorized
from kb.schemas import ErrorEnvelope

log = logging.getLogger(__name__)

__all__ = [
    "ERRORS",
    "NOT_MODIFIED",
    "ErrorEnvelope",
    "document_edge_statuses",
    "document_validation_errors",
    "edge_responses",
    "envelope",
    "error_envelope",
    "error_responses",
    "install_error_handlers",
    "without_local_paths",
]

# What each error status means here; every one is the envelope (ErrorEnvelope).
ERRORS: dict[int, str] = {
    400: "Malformed request (the envelope says what).",
    401: "A missing, unknown or expired bearer token: a trainee's on training routes, "
    "the `metrics_token` on GET /metrics (when set).",
    404: "Unknown id or document: `suggestions` lists the closest ones.",
    406: "No representation the Accept header allows: `available` lists them.",
    409: "A training request that contradicts what is recorded: a question not in the session, "
    "answered twice, an exam closed or past its time limit (the envelope names it).",
    413: "The request body is larger than the route's limit (`max_body_bytes`, "
    "`max_sparql_body_bytes`): the envelope names the limit.",
    415: "A request body of another content type than the route reads (application/json).",
    422: "A bad or missing parameter (also a string with a lone surrogate, NUL or another "
    "control character): the envelope names it.",
    503: "Busy: retry after the Retry-After header's seconds; on training routes, the "
    "training database cannot be used (everything else keeps answering).",
    504: "The request took longer than its time budget (`request_timeout`).",
}
# A GET answered from the client's or cache's copy (If-None-Match matched the ETag): no body.
NOT_MODIFIED: dict[str, Any] = {
    "description": "Not Modified: the ETag in If-None-Match is current (the build did not "
    "change); no body.",
    "headers": {
        "ETag": {"schema": {"type": "string"}, "description": "The build id and a digest."},
        "Cache-Control": {"schema": {"type": "string"}},
    },
}
ENVELOPE_REF = {"$ref": "#/components/schemas/ErrorEnvelope"}


def error_responses(*codes: int, json_route: bool = True) -> dict[int | str, dict[str, Any]]:
    """OpenAPI `responses=` documenting these error statuses as the JSON envelope.

    A route whose own media type is not JSON (`json_route=False`) names the schema by reference:
    FastAPI would file a `model` under the route's media type (text/html …).
    """
    if json_route:
        return {c: {"model": ErrorEnvelope, "description": ERRORS[c]} for c in codes}
    content = {"application/json": {"schema": ENVELOPE_REF}}
    return {c: {"description": ERRORS[c], "content": content} for c in codes}


def edge_responses(
    method: str, *, body: bool, parameters: bool, cached: bool = True
) -> dict[str, dict[str, Any]]:
    """The statuses the HTTP edge itself may answer on an operation (OpenAPI `responses`, keyed
    by status string): 304 on a cached GET, 413 and 415 with a body, 422 with any input, 504
    always."""
    content = {"application/json": {"schema": ENVELOPE_REF}}
    out: dict[str, dict[str, Any]] = {}
    if method == "get" and cached:
        out["304"] = dict(NOT_MODIFIED)
    if body:
        out["413"] = {"description": ERRORS[413], "content": content}
        out["415"] = {"description": ERRORS[415], "content": content}
    if body or parameters:
        out["422"] = {"description": ERRORS[422], "content": content}
    out["504"] = {"description": ERRORS[504], "content": content}
    return out


def document_edge_statuses(app: FastAPI, uncached: frozenset[str] = frozenset()) -> None:
    """Add the edge's statuses (`edge_responses`) to every operation of the app's OpenAPI that
    does not declare them itself; `uncached` paths (live state) never answer 304."""
    build = app.openapi

    def openapi() -> dict[str, Any]:
        schema = build()
        for path, operations in schema.get("paths", {}).items():
            for method, operation in operations.items():
                extra = edge_responses(
                    method,
                    body="requestBody" in operation,
                    parameters=bool(operation.get("parameters")),
                    cached=path not in uncached,
                )
                responses = operation.setdefault("responses", {})
                for code, response in extra.items():
                    responses.setdefault(code, response)
        return schema

    app.openapi = openapi  # type: ignore[method-assign]


# An absolute POSIX path in a message (not the path part of a URL).
ABSOLUTE_PATH = re.compile(r"(?<![\w.~:/-])/[^\s'\":,;()]+")


def without_local_paths(message: str, roots: Iterable[Path] = ()) -> str:
    """`message` with every absolute path made relative to the root that holds it (the corpus,
    the data directory), or cut to its last component: what a public response may show."""
    bases = [str(Path(r).resolve()) for r in roots]

    def local(found: re.Match[str]) -> str:
        path = found.group()
        for base in bases:
            if path.startswith(base + "/"):
                return path[len(base) + 1 :]
        return PurePosixPath(path).name or "/"

    return ABSOLUTE_PATH.sub(local, message)


# The code of an envelope whose cause names none: by its status.
STATUS_CODES: dict[int, str] = {
    400: "bad_request",
    401: "unauthorized",
    404: "route_not_found",
    405: "method_not_allowed",
    406: "not_acceptable",
    413: "body_too_large",
    415: "unsupported_media_type",
    422: "invalid",
    429: "rate_limited",
    500: "internal",
    503: "busy",
    504: "timeout",
}


def envelope(
    status: int,
    message: str,
    *,
    code: str | None = None,
    field: str | None = None,
    params: Mapping[str, str | int] | None = None,
    **extra: Any,
) -> JSONResponse:
    """The envelope of one error; `code` defaults to the status's (STATUS_CODES)."""
    body: dict[str, Any] = {
        "ok": False,
        "error": message,
        "status": status,
        "code": code or STATUS_CODES.get(status, "error"),
    }
    if field is not None:
        body["field"] = field
    if params:
        body["params"] = dict(params)
    return JSONResponse(writable({**body, **extra}), status_code=status)


def writable(value: Any) -> Any:
    """`value` with every string's unsafe characters escaped (api.safe_strings.escaped): an
    envelope repeats what a client sent, and a lone surrogate cannot be written as UTF-8."""
    if isinstance(value, str):
        return escaped(value)
    if isinstance(value, dict):
        return {writable(k): writable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [writable(v) for v in value]
    return value


def error_envelope(status: int, exc: KBError, **extra: Any) -> JSONResponse:
    """The envelope of a core error: its message, code, field and params."""
    return envelope(status, str(exc), code=exc.code, field=exc.field, params=exc.params, **extra)


SOURCES = ("query", "body", "path", "header", "cookie")


def _field_of(error: Mapping[str, Any]) -> str:
    """The field a validation error names: its location without the source (`answers.0.id`),
    each part escaped; `body` for the body as a whole (missing, not JSON, not an object)."""
    loc = [str(x) for x in error.get("loc", ())]
    source = loc[0] if loc and loc[0] in SOURCES else None
    if source is not None:
        loc = loc[1:]  # where it came from; the rest names the field (even one called query)
    if error.get("type") == "json_invalid":
        return "body"  # its location is a character offset, not a field
    return ".".join(escaped(part) for part in loc) or ("body" if source == "body" else "")


def _message_of(error: Mapping[str, Any], document: Any) -> str:
    if error.get("type") == "json_invalid":
        return json_problem(error, document)
    return str(error.get("msg", "invalid"))


def json_problem(error: Mapping[str, Any], document: Any) -> str:
    """What is wrong with a body that is not JSON, and where (line and column)."""
    reason = str((error.get("ctx") or {}).get("error") or "invalid JSON")
    loc = error.get("loc", ())
    offset = loc[-1] if loc and isinstance(loc[-1], int) else None
    if offset is None or not isinstance(document, str):
        return f"not valid JSON: {reason}"
    line = document.count("\n", 0, offset) + 1
    column = offset - (document.rfind("\n", 0, offset) + 1) + 1
    return f"not valid JSON: {reason} at line {line}, column {column}"


REPORTED_ERRORS = 5  # a message names at most this many problems of one request


def _validation_message(exc: RequestValidationError) -> str:
    errors = exc.errors()
    shown = errors[:REPORTED_ERRORS]
    parts = [f"{_field_of(e) or 'request'}: {_message_of(e, exc.body)}" for e in shown]
    if len(errors) > len(shown):
        parts.append(f"and {len(errors) - len(shown)} more")
    return "; ".join(parts) or "invalid request"


# pydantic's error types (and the edge's string check) → envelope codes; others are `invalid`.
VALIDATION_CODES = {
    "missing": "missing",
    "json_invalid": "bad_json",
    "string_unsafe": "unsafe_string",
    "string_too_long": "too_long",
}


def validation_code(error: Mapping[str, Any]) -> tuple[str, dict[str, str | int]]:
    """The code and params of one validation error (the first of a request's is reported)."""
    kind = str(error.get("type", ""))
    ctx = error.get("ctx") or {}
    if kind in VALIDATION_CODES:
        code = VALIDATION_CODES[kind]
    elif kind.endswith(("_type", "_parsing")):
        code = "bad_type"
    else:
        code = "invalid"
    params: dict[str, str | int] = {}
    if code == "too_long" and isinstance(ctx.get("max_length"), int):
        params["limit"] = ctx["max_length"]
    if code in ("unsafe_string", "bad_json") and isinstance(ctx.get("position"), int):
        params["position"] = ctx["position"]
    return code, params


def validation_envelope(exc: RequestValidationError) -> JSONResponse:
    errors = exc.errors()
    first = errors[0] if errors else {}
    code, params = validation_code(first)
    field = _field_of(first) if first else None
    return envelope(422, _validation_message(exc), code=code, field=field or None, params=params)


def document_validation_errors(app: FastAPI) -> None:
    """Make the app's OpenAPI show the envelope for every 422, not FastAPI's `detail` body.

    FastAPI documents its own validation body on any route with parameters that does not
    declare a 422 itself; the handler below never sends that body.
    """
    build = app.openapi

    def openapi() -> dict[str, Any]:
        schema = build()
        schemas = schema.setdefault("components", {}).setdefault("schemas", {})
        schemas.setdefault("ErrorEnvelope", ErrorEnvelope.model_json_schema())
        default = "#/components/schemas/HTTPValidationError"
        for operations in schema.get("paths", {}).values():
            for operation in operations.values():
                response = operation.get("responses", {}).get("422")
                media = (response or {}).get("content", {}).get("application/json", {})
                if media.get("schema", {}).get("$ref") == default:
                    media["schema"] = dict(ENVELOPE_REF)
                    response["description"] = ERRORS[422]
        schemas.pop("HTTPValidationError", None)
        schemas.pop("ValidationError", None)
        return schema

    app.openapi = openapi  # type: ignore[method-assign]


def unreadable_body(exc: StarletteHTTPException) -> JSONResponse | None:
    """The 422 of a JSON body FastAPI could not parse for another reason than its syntax (it
    answers those 400 "There was an error parsing the body"): not UTF-8, nested deeper than the
    parser goes, a number too long to read. None for any other HTTP error."""
    cause = exc.__cause__
    if exc.status_code != 400 or not isinstance(cause, ValueError | RecursionError):
        return None
    params: dict[str, str | int] = {}
    if isinstance(cause, UnicodeDecodeError):
        reason = not_utf8(cause.start)
        params["position"] = cause.start
    elif isinstance(cause, RecursionError):
        reason = "nested too deeply"
    else:
        reason = str(cause).split(";")[0]  # e.g. a number longer than Python reads
    return envelope(
        422, f"body: not valid JSON: {reason}", code="bad_json", field="body", params=params
    )


def install_error_handlers(app: FastAPI) -> None:
    """Translate core errors and framework errors into the envelope, once, at the edge."""
    document_validation_errors(app)

    @app.exception_handler(InvalidQuery)
    async def _invalid(_: Request, exc: InvalidQuery) -> JSONResponse:
        return error_envelope(422, exc)

    @app.exception_handler(NotFound)
    async def _not_found(_: Request, exc: NotFound) -> JSONResponse:
        return error_envelope(404, exc, suggestions=exc.suggestions)

    @app.exception_handler(Unauthorized)
    async def _unauthorized(_: Request, exc: Unauthorized) -> JSONResponse:
        response = error_envelope(401, exc)
        response.headers["WWW-Authenticate"] = 'Bearer realm="training"'
        return response

    @app.exception_handler(Conflict)
    async def _conflict(_: Request, exc: Conflict) -> JSONResponse:
        return error_envelope(409, exc)

    @app.exception_handler(DatabaseUnavailable)
    async def _database(_: Request, exc: DatabaseUnavailable) -> JSONResponse:
        log.warning("training database unavailable: %s", exc)
        response = error_envelope(503, exc)
        response.headers["Retry-After"] = "5"
        return response

    @app.exception_handler(KBError)
    async def _kb(_: Request, exc: KBError) -> JSONResponse:
        return error_envelope(400, exc)

    @app.exception_handler(RequestValidationError)
    async def _validation(_: Request, exc: RequestValidationError) -> JSONResponse:
        return validation_envelope(exc)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        unreadable = unreadable_body(exc)
        if unreadable is not None:
            return unreadable
        response = envelope(exc.status_code, str(exc.detail))
        response.headers.update(exc.headers or {})
        if exc.status_code == 405:  # every method of the path, not only the first route's
            methods = allowed_methods(request.app.router.routes, request.scope)
            response.headers["Allow"] = ", ".join(methods)
        return response

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
        log.exception("unexpected error on %s %s", request.method, request.url.path)
        return envelope(500, "internal server error")
