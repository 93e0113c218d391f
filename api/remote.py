"""The CLI's way to a running server: the query methods of `RulingsService`, over HTTP.

`ygo-rulings ask|search|link|show|stats|rules-about|cards …|banlist|deck check` with `--server URL`
(or `YGO_SERVER`) call these instead of loading the KB: each method sends the request of the
command's route and returns the JSON that route answers, which the command prints as it prints
the service's own. Only the standard library is imported here (the command answers at once).

A failed request raises `ServerError`: the server's error envelope when it answered one (its
`error` is the message the in-process command prints for the same input), else what went wrong
on the way (the server unreachable, a body that is not JSON).
"""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})
TIMEOUT_S = 60.0
# Statuses of a bad request: the CLI exits 2 on them, as for an invalid parameter in process.
BAD_REQUEST = frozenset({400, 413, 415, 422, 431})


class ServerError(Exception):
    """A request to the server that failed: the message to print, the HTTP status (None when
    no answer came) and the server's error envelope (None when it sent none)."""

    def __init__(
        self, message: str, status: int | None = None, envelope: dict[str, Any] | None = None
    ) -> None:
        super().__init__(message)
        self.status = status
        self.envelope = envelope

    @property
    def exit_code(self) -> int:
        """2 for a request the server refused as bad (as the CLI does in process), else 1."""
        return 2 if self.status in BAD_REQUEST else 1


def check_url(url: str) -> str:
    """The server's base URL without a trailing slash; ValueError unless it is http(s)."""
    parts = urllib.parse.urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"server: {url!r} is not an http:// or https:// URL")
    return url.strip().rstrip("/")


class RemoteService:
    """The query methods of `kb.service.RulingsService`, answered by the server at `base`."""

    def __init__(self, base: str, timeout: float = TIMEOUT_S) -> None:
        self.base = check_url(base)
        self.timeout = timeout
        host = urllib.parse.urlsplit(self.base).hostname or ""
        # A server on this machine is reached directly, whatever proxy the environment names.
        handlers = [urllib.request.ProxyHandler({})] if host in LOOPBACK else []
        self._opener = urllib.request.build_opener(*handlers)

    # --- the requests --------------------------------------------------------------------------
    def _send(
        self,
        method: str,
        path: str,
        params: dict[str, Any] | None = None,
        body: dict[str, Any] | None = None,
        accept: str = "application/json",
    ) -> tuple[str, bytes]:
        """(media type, body) of a 2xx answer; ServerError otherwise."""
        query = urllib.parse.urlencode({k: v for k, v in (params or {}).items() if v is not None})
        url = self.base + path + (f"?{query}" if query else "")
        data = None if body is None else json.dumps(body).encode("utf-8")
        headers = {"accept": accept, "user-agent": "ygo-rulings-cli"}
        if data is not None:
            headers["content-type"] = "application/json"
        request = urllib.request.Request(url, data=data, method=method, headers=headers)
        try:
            with self._opener.open(request, timeout=self.timeout) as response:
                return response.headers.get_content_type(), response.read()
        except urllib.error.HTTPError as exc:
            raise self._refused(exc) from None
        except (urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            if isinstance(reason, TimeoutError):
                raise ServerError(
                    f"the server at {self.base} did not answer within {self.timeout:g} s"
                ) from None
            raise ServerError(f"cannot reach the server at {self.base}: {reason}") from None

    def _refused(self, exc: urllib.error.HTTPError) -> ServerError:
        """The error of a non-2xx answer: its envelope's message, or its status line."""
        raw = exc.read()
        try:
            envelope = json.loads(raw)
        except ValueError:
            envelope = None
        if isinstance(envelope, dict) and isinstance(envelope.get("error"), str):
            return ServerError(envelope["error"], exc.code, envelope)
        return ServerError(
            f"the server at {self.base} answered {exc.code} {exc.reason} without an error envelope",
            exc.code,
        )

    def _json(
        self,
        method: str,
        path: str,
        params: dict[str, Any] | None = None,
        body: dict[str, Any] | None = None,
    ) -> Any:
        _media, raw = self._send(method, path, params, body)
        try:
            return json.loads(raw)
        except ValueError:
            raise ServerError(
                f"the server at {self.base} answered {path} with something other than JSON"
            ) from None

    def _text(self, path: str, params: dict[str, Any], accept: str) -> str:
        _media, raw = self._send("GET", path, params, accept=accept)
        return raw.decode("utf-8")

    @staticmethod
    def _id(node_id: str) -> str:
        """A node or card id as a path (its slashes kept, everything else escaped)."""
        return urllib.parse.quote(node_id, safe="/")

    # --- one method per route -----------------------------------------------------------------
    def ask(self, question: str, format: str | None = None, k: int = 5) -> dict[str, Any]:
        body: dict[str, Any] = {"question": question, "k": k}
        if format is not None:
            body["format"] = format
        return dict(self._json("POST", "/ask", body=body))

    def search(
        self, q: str, k: int = 10, format: str | None = None, type: str | None = None
    ) -> dict[str, Any]:
        return dict(self._json("GET", "/search", {"q": q, "k": k, "format": format, "type": type}))

    def link(self, q: str) -> dict[str, Any]:
        return dict(self._json("GET", "/link", {"q": q}))

    def stats(self) -> dict[str, Any]:
        return dict(self._json("GET", "/stats"))

    def show(self, node_id: str) -> dict[str, Any]:
        return dict(self._json("GET", f"/id/{self._id(node_id)}", {"as": "json"}))

    def node_rdf(self, node_id: str, fmt: str) -> str:
        media = "text/turtle" if fmt == "ttl" else "application/ld+json"
        return self._text(f"/id/{self._id(node_id)}", {"as": fmt}, media)

    def rules_about(self, subject: str, format: str | None = None, k: int = 20) -> dict[str, Any]:
        params = {"subject": subject, "format": format, "k": k}
        return dict(self._json("GET", "/rules-about", params))

    def cards(
        self,
        q: str,
        type: str | None = None,
        attribute: str | None = None,
        format: str | None = None,
        k: int = 10,
    ) -> dict[str, Any]:
        params = {"q": q, "type": type, "attribute": attribute, "format": format, "k": k}
        return dict(self._json("GET", "/cards", params))

    def card(self, card_id: str, format: str | None = None) -> dict[str, Any]:
        return dict(self._json("GET", f"/cards/{self._id(card_id)}/report", {"format": format}))

    def card_legality(self, card_id: str, format: str | None = None) -> dict[str, Any]:
        path = f"/cards/{self._id(card_id)}/legality"
        return dict(self._json("GET", path, {"format": format}))

    def banlist(self, format: str | None = None) -> dict[str, Any]:
        return dict(self._json("GET", "/banlist", {"format": format}))

    def lflist(self, format: str | None = None) -> str:
        return self._text("/banlist", {"format": format, "as": "lflist"}, "text/plain")

    def deck_validate(
        self, format: str | None = None, deck: str | None = None, decks: list[str] | None = None
    ) -> dict[str, Any]:
        body: dict[str, Any] = {"format": format}
        if deck is not None:
            body["deck"] = deck
        if decks is not None:
            body["decks"] = decks
        return dict(self._json("POST", "/deck/validate", body=body))
