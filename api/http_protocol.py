"""The HTTP/1.1 protocol `serve` runs: uvicorn's h11 protocol, answering what it cannot parse in
the API's envelope.

A request uvicorn's parser rejects (a garbled request line, a header without a colon, a
non-numeric Content-Length, HTTP/1.1 without Host, a non-ASCII target …) never reaches the app:
uvicorn answers 400 itself, as plain text. Here that answer is the JSON envelope instead
(`{"ok": false, "error": ..., "status": 400, "code": "bad_request"}`, with `nosniff`), and the
connection is closed as before. `serve` (one process or forked workers) passes this class as
uvicorn's `http` protocol.
"""

from __future__ import annotations

import json

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

MALFORMED = (
    "the request is not valid HTTP/1.1 (its request line, a header or its framing); "
    "nothing was read"
)


def malformed_body() -> bytes:
    """The envelope of a request the HTTP parser rejected."""
    return json.dumps(
        {"ok": False, "error": MALFORMED, "status": 400, "code": "bad_request"}
    ).encode("utf-8")


class EnvelopeH11Protocol(H11Protocol):
    """uvicorn's h11 protocol whose own 400 (a request it cannot parse) is the JSON envelope."""

    def send_400_response(self, msg: str) -> None:
        body = malformed_body()
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode("ascii")),
            (b"x-content-type-options", b"nosniff"),
            (b"connection", b"close"),
        ]
        for event in (
            h11.Response(status_code=400, headers=headers, reason=b"Bad Request"),
            h11.Data(data=body),
            h11.EndOfMessage(),
        ):
            self.transport.write(self.conn.send(event) or b"")
        self.transport.close()
