"""The core's errors: one base class and a few leaves whose messages name the offending value.

Each error also carries a stable `code` (a key of ERROR_CODES), the offending `field` where there
is one and the `params` its message is made of, so an edge (the web page) can say the same thing
in its own language without parsing the English message.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

Params = Mapping[str, str | int]
NO_PARAMS: Params = MappingProxyType({})

# Every code an error (core or HTTP edge) may carry, with what it means and the params it names.
ERROR_CODES: dict[str, str] = {
    "error": "Any other refusal of the knowledge base (the message says what).",
    "invalid": "A parameter the server refused (`field`; the message says why).",
    "empty": "`field` is empty or only spaces.",
    "too_long": "`field` is longer than the limit (params: length, limit).",
    "out_of_range": "`field` is outside its range (params: min, max, value).",
    "unknown_value": "`field` names a value that does not exist (params: value).",
    "missing": "The required `field` is missing.",
    "bad_type": "`field` has the wrong type (a string for a number …).",
    "unsafe_string": "`field` holds a control character, NUL or lone surrogate (params: position).",
    "bad_json": "The request body is not valid JSON.",
    "not_found": "An unknown id, card or document (params: what, key; `suggestions`).",
    "route_not_found": "No route at this path.",
    "method_not_allowed": "The path does not answer this method (`Allow` lists those it does).",
    "not_acceptable": "Nothing the Accept header allows (`available`).",
    "unsupported_media_type": "A request body of a content type the route does not read.",
    "body_too_large": "The request body is past the route's limit (params: limit).",
    "bad_request": "A malformed request (the message says what).",
    "malformed_query": "A SPARQL query the parser rejects (params: line, column).",
    "sparql_update": "A SPARQL Update: the endpoint is read-only.",
    "invalid_query": "A SPARQL query that cannot be run (unknown prefix, nested too deeply …).",
    "query_refused": "A well-formed SPARQL query the endpoint will not run (SERVICE, FROM, GRAPH, "
    "an evaluation error).",
    "query_too_large": "A SPARQL result past the memory bound.",
    "too_many_results": "A SPARQL result past `sparql_max_results` (params: limit).",
    "result_too_large": "A SPARQL result longer than `sparql_max_result_bytes` (params: limit, "
    "size).",
    "query_stopped": "A SPARQL query stopped at `sparql_timeout` (Retry-After).",
    "busy": "Every SPARQL worker busy or too many requests waiting (Retry-After).",
    "worker_restarting": "The SPARQL worker answering the query stopped; a new one is starting "
    "(Retry-After).",
    "unauthorized": "A route that needs a bearer token (GET /metrics with `metrics_token` set; "
    "a training route without a trainee's token, or with an unknown or expired one).",
    "conflict": "A training request that contradicts what is recorded: a question not in the "
    "session, answered twice, an exam already closed (params: what, key).",
    "database_unavailable": "The training database cannot be reached or migrated (training routes "
    "only; everything else keeps answering).",
    "rate_limited": "Too many requests from one address (a proxy's limit; Retry-After).",
    "unavailable": "The API is not reachable (a proxy's answer).",
    "timeout": "The request ran past `request_timeout` (params: seconds).",
    "internal": "An unexpected server failure.",
}


class KBError(Exception):
    """Base class of every error the knowledge base raises on purpose."""

    code: str = "error"
    field: str | None = None
    params: Params = NO_PARAMS


class NotFound(KBError):
    """An id (or other key) that does not exist; carries the closest existing ones."""

    code = "not_found"

    def __init__(self, what: str, key: str, suggestions: list[str] | None = None) -> None:
        self.key = key
        self.suggestions = suggestions or []
        self.params = {"what": what, "key": key}
        hint = f"; did you mean: {', '.join(self.suggestions)}" if self.suggestions else ""
        super().__init__(f"unknown {what} {key!r}{hint}")


class InvalidQuery(KBError):
    """A request parameter that is out of range or malformed; `field` names the parameter.

    `code` says which way it is wrong (`empty`, `too_long`, `out_of_range`, `unknown_value`, or
    `invalid` for any other reason) with the `params` of the reason."""

    def __init__(
        self, field: str, reason: str, *, code: str = "invalid", params: Params | None = None
    ) -> None:
        self.field = field
        self.reason = reason
        self.code = code
        self.params = params or NO_PARAMS
        super().__init__(f"{field}: {reason}")


def empty(field: str) -> InvalidQuery:
    """`field` is empty (or only spaces)."""
    return InvalidQuery(field, "must not be empty", code="empty")


def too_long(field: str, length: int, limit: int) -> InvalidQuery:
    """`field` is `length` characters long, past `limit`."""
    return InvalidQuery(
        field,
        f"is {length} characters long; the limit is {limit}",
        code="too_long",
        params={"length": length, "limit": limit},
    )


def out_of_range(field: str, low: int, high: int, value: int) -> InvalidQuery:
    """`field` must be between `low` and `high` (both included) and is `value`."""
    return InvalidQuery(
        field,
        f"must be between {low} and {high}, got {value}",
        code="out_of_range",
        params={"min": low, "max": high, "value": value},
    )


def unknown_value(field: str, value: str, reason: str) -> InvalidQuery:
    """`field` names a `value` that does not exist; `reason` is the message (what to use)."""
    return InvalidQuery(field, reason, code="unknown_value", params={"value": value})


class IngestError(KBError):
    """A corpus input that cannot be ingested: names the file and, where known, the line."""

    def __init__(self, path: str, reason: str, line: int | None = None) -> None:
        self.path = path
        self.line = line
        self.reason = reason
        where = f"{path}:{line}" if line is not None else path
        super().__init__(f"{where}: {reason}")


class ArtifactError(KBError):
    """A built knowledge-base artifact that is missing, stale or corrupt."""


class Unauthorized(KBError):
    """A training request without a trainee's token, or with one the server does not know or
    that expired."""

    code = "unauthorized"

    def __init__(self, reason: str) -> None:
        self.field = "authorization"
        super().__init__(reason)


class Conflict(KBError):
    """A request that contradicts what is recorded (answered twice, an exam closed …): names the
    `what` and its `key`."""

    code = "conflict"

    def __init__(self, what: str, key: str, reason: str) -> None:
        self.key = key
        self.params = {"what": what, "key": key}
        super().__init__(f"{what} {key!r}: {reason}")


class DatabaseUnavailable(KBError):
    """The training database cannot be reached, or refuses its migrations."""

    code = "database_unavailable"
