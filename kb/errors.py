"""The core's errors: one base class and a few leaves whose messages name the offending value."""

from __future__ import annotations


class KBError(Exception):
    """Base class of every error the knowledge base raises on purpose."""


class NotFound(KBError):
    """An id (or other key) that does not exist; carries the closest existing ones."""

    def __init__(self, what: str, key: str, suggestions: list[str] | None = None) -> None:
        self.key = key
        self.suggestions = suggestions or []
        hint = f"; did you mean: {', '.join(self.suggestions)}" if self.suggestions else ""
        super().__init__(f"unknown {what} {key!r}{hint}")


class InvalidQuery(KBError):
    """A request parameter that is out of range or malformed; `field` names the parameter."""

    def __init__(self, field: str, reason: str) -> None:
        self.field = field
        self.reason = reason
        super().__init__(f"{field}: {reason}")


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
