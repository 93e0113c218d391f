"""An external SPARQL 1.1 server answering the endpoint's queries (YGO_SPARQL_ENDPOINT).

For deployments past one machine: the RDF dump (`ygo-rulings export`) is loaded into a SPARQL
server (e.g. `oxigraph load` then `oxigraph serve-read-only`) and `/sparql` forwards queries to
it. Each query is checked here first, exactly as for the embedded store (read-only, no SERVICE,
FROM or GRAPH), sent with the declared prefixes, and its answer is read as a stream with the same
time and row bounds, then written in the negotiated format by the same writers (and the same
bound on the written body's bytes).
"""

from __future__ import annotations

import http.client
import io
import logging
import socket
import time
import traceback
from collections.abc import Iterator, Mapping
from typing import Any
from urllib.parse import urlencode, urlsplit

import pyoxigraph as ox

from kb.errors import KBError
from kb.linked_data.sparql import (
    EndpointBusy,
    QueryRefused,
    QueryStopped,
    SparqlError,
    choose_writer,
    prepare,
)
from kb.linked_data.sparql_results import render

log = logging.getLogger(__name__)

ERROR_CHARS = 500  # of a server's error message passed on
WARM_TIMEOUT = 2.0  # seconds the start-up check waits for the server


class _DeadlineReader(io.RawIOBase):
    """A response body that refuses to be read past a deadline (every read is bounded)."""

    def __init__(
        self, response: http.client.HTTPResponse, sock: socket.socket | None, deadline: float
    ):
        self.response = response
        self.sock = sock
        self.deadline = deadline
        self.expired = False

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        remaining = self.deadline - time.monotonic()
        if remaining <= 0:
            self.expired = True
            raise TimeoutError("the SPARQL server took too long")
        if self.sock is not None:
            self.sock.settimeout(remaining)
        try:
            return self.response.readinto(buffer)
        except TimeoutError:
            self.expired = True
            raise


class RemoteEndpoint:
    """Queries checked here and answered by the SPARQL 1.1 server at `url` (POST, form-encoded)."""

    def __init__(
        self,
        url: str,
        timeout: float,
        max_results: int,
        prefixes: Mapping[str, str],
        max_bytes: int | None = None,
    ) -> None:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"YGO_SPARQL_ENDPOINT={url!r} is not an http(s) URL")
        self.url = url
        self.timeout = timeout
        self.max_results = max_results
        self.max_bytes = max_bytes
        self.prefixes = dict(prefixes)
        self._prologue = "".join(f"PREFIX {p}: <{ns}>\n" for p, ns in self.prefixes.items())

    def query(self, text: str, accept: str | None = None) -> tuple[str, str]:
        """(body, media type) of a query's result, read from the server within the bounds."""
        return self._answer(text, accept, self.timeout)

    def _answer(self, text: str, accept: str | None, timeout: float) -> tuple[str, str]:
        form = prepare(text, self.prefixes)
        fmt, media = choose_writer(form, accept)
        graph = form in ("CONSTRUCT", "DESCRIBE")
        wants = "application/n-triples" if graph else "application/sparql-results+json"
        deadline = time.monotonic() + timeout
        connection, response = self._post(self._prologue + text, wants, deadline)
        try:
            reader = _DeadlineReader(response, connection.sock, deadline)
            if response.status != 200:
                raise self._refusal(response.status, reader)
            try:
                return self._read(form, io.BufferedReader(reader), fmt), media
            except BaseException as exc:
                # Oxigraph's parsers may only be dropped by the thread that made them: free the
                # frames that hold them here, not wherever the exception ends up.
                traceback.clear_frames(exc.__traceback__)
                if not isinstance(exc, OSError | SyntaxError | ValueError):
                    raise
                if reader.expired:
                    raise self._stopped() from None
                raise EndpointBusy(
                    f"the SPARQL server's answer could not be read ({type(exc).__name__})"
                ) from None
        finally:
            connection.close()

    def _read(self, form: str, stream: io.BufferedReader, fmt: str) -> str:
        """The server's answer (N-Triples or SPARQL JSON) written as `fmt`, within the bounds."""
        result: Any = (
            _triples(ox.parse(stream, format=ox.RdfFormat.N_TRIPLES))
            if form in ("CONSTRUCT", "DESCRIBE")
            else ox.parse_query_results(stream, format=ox.QueryResultsFormat.JSON)
        )
        return render(form, result, fmt, self.max_results, self.prefixes, max_bytes=self.max_bytes)

    def _post(
        self, text: str, wants: str, deadline: float
    ) -> tuple[http.client.HTTPConnection, http.client.HTTPResponse]:
        parts = urlsplit(self.url)
        kind = (
            http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
        )
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        timeout = max(deadline - time.monotonic(), 0.001)
        connection = kind(parts.hostname or "", parts.port, timeout=timeout)
        try:
            connection.request(
                "POST",
                path,
                body=urlencode({"query": text}).encode("ascii"),
                headers={
                    "Content-Type": "application/x-www-form-urlencoded",
                    "Accept": wants,
                },
            )
            if connection.sock is not None:
                connection.sock.settimeout(max(deadline - time.monotonic(), 0.001))
            return connection, connection.getresponse()
        except TimeoutError:
            connection.close()
            raise self._stopped() from None
        except OSError as exc:
            connection.close()
            log.warning("the SPARQL server at %s did not answer: %s", self.url, exc)
            raise EndpointBusy(
                f"the SPARQL server did not answer ({type(exc).__name__}); try again later"
            ) from None

    def _stopped(self) -> QueryStopped:
        return QueryStopped(
            f"the query was stopped after {self.timeout:g} s (sparql_timeout); "
            "narrow the pattern or add a LIMIT"
        )

    def _refusal(self, status: int, reader: _DeadlineReader) -> KBError:
        try:
            message = reader.read(ERROR_CHARS).decode("utf-8", "replace").strip()
        except OSError:
            message = ""
        detail = f": {message}" if message else ""
        if status == 400:
            return SparqlError(f"the SPARQL server rejected the query{detail}")
        if 400 < status < 500:
            return QueryRefused(f"the SPARQL server refused the query (HTTP {status}){detail}")
        return EndpointBusy(f"the SPARQL server failed (HTTP {status}){detail}")

    def warm(self) -> None:
        """Check once that the server answers (a warning when it does not; never raises)."""
        try:
            self._answer("ASK {}", None, min(self.timeout, WARM_TIMEOUT))
        except (SparqlError, EndpointBusy) as exc:
            log.warning("the SPARQL server at %s is not ready: %s", self.url, exc)

    def close(self) -> None:
        """Nothing to release: every query has its own connection."""


def _triples(quads: Iterator[ox.Quad]) -> Iterator[ox.Triple]:
    for quad in quads:
        yield quad.triple
