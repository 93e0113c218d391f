"""The HTTP/1.1 protocol `serve` runs: uvicorn's h11 protocol, answering what it cannot parse in
the API's envelope, and bounding what a client may hold.

A request uvicorn's parser rejects (a garbled request line, a header without a colon, a
non-numeric Content-Length, HTTP/1.1 without Host, a non-ASCII target …) never reaches the app:
uvicorn answers 400 itself, as plain text. Here that answer is the JSON envelope instead
(`{"ok": false, "error": ..., "status": 400, "code": "bad_request"}`, with `nosniff`), and the
connection is closed as before. Also refused with that 400: a request with both Content-Length
and Transfer-Encoding (h11 frames it by the chunks and would read what follows the last chunk
as a second request: a proxy framing it by Content-Length would let that request ride in the
body, "request smuggling").

uvicorn enforces no time on reading a request, so a client could hold a connection forever by
sending its head byte by byte, or nothing at all. Here (the settings of `protocol_for`):
- the request head must arrive within `header_timeout` seconds of its first byte (of the
  connection, for a new connection): else 408 in the envelope (nothing received: only closed);
- a body may pause at most `body_timeout` seconds between two reads: else the connection is
  closed, and the app sees the client leave;
- a request head over `max_header_bytes` is 431 in the envelope (h11's own bound, set to the same
  size by `serve`, backs it for pipelined requests).
`serve` (one process or forked workers) passes `protocol_for(settings)` as uvicorn's `http`.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import h11
from h11._connection import DEFAULT_MAX_INCOMPLETE_EVENT_SIZE
from uvicorn.config import Config
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.server import ServerState

from kb.config import Settings

MALFORMED = (
    "the request is not valid HTTP/1.1 (its request line, a header or its framing); "
    "nothing was read"
)
_REASONS = {400: b"Bad Request", 408: b"Request Timeout", 431: b"Request Header Fields Too Large"}


def malformed_body() -> bytes:
    """The envelope of a request the HTTP parser rejected."""
    return envelope_body(400, "bad_request", MALFORMED)


def envelope_body(status: int, code: str, message: str) -> bytes:
    return json.dumps({"ok": False, "error": message, "status": status, "code": code}).encode(
        "utf-8"
    )


def ambiguous_framing(headers: Any) -> bool:
    """Whether a request declares both a Content-Length and a Transfer-Encoding."""
    names = {name.lower() for name, _ in headers}
    return b"content-length" in names and b"transfer-encoding" in names


class FramingCheckedConnection(h11.Connection):
    """h11's server connection, refusing a request whose body framing is ambiguous."""

    def next_event(self) -> Any:
        event = super().next_event()
        if isinstance(event, h11.Request) and ambiguous_framing(event.headers):
            raise h11.RemoteProtocolError(
                "Content-Length and Transfer-Encoding are both set", error_status_hint=400
            )
        return event


class EnvelopeH11Protocol(H11Protocol):
    """uvicorn's h11 protocol whose own 400 (a request it cannot parse) is the JSON envelope,
    with time and size bounds on reading a request (defaults: those of `Settings`)."""

    header_timeout: float = Settings.header_timeout
    body_timeout: float = Settings.body_timeout
    max_header_bytes: int = Settings.max_header_bytes

    def __init__(
        self,
        config: Config,
        server_state: ServerState,
        app_state: dict[str, Any],
        _loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        super().__init__(config, server_state, app_state, _loop)
        size = config.h11_max_incomplete_event_size
        self.conn = FramingCheckedConnection(h11.SERVER, size or DEFAULT_MAX_INCOMPLETE_EVENT_SIZE)
        self.read_timer: asyncio.TimerHandle | None = None
        self.head_bytes = 0  # bytes of the request head received so far
        self.head_tail = b""  # the last bytes read of the head (its end may span two reads)

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm(self.header_timeout, self._head_timed_out)

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self.conn.their_state is h11.IDLE:
            # only the head counts: a body sent in the same read is the body limit's business
            seen = self.head_tail + data
            end = seen.find(b"\r\n\r\n")
            self.head_bytes += len(data) if end < 0 else max(end + 4 - len(self.head_tail), 0)
            self.head_tail = seen[-3:]
            if self.head_bytes > self.max_header_bytes:
                message = f"the request head is larger than {self.max_header_bytes} bytes"
                self.refuse(431, "header_too_large", message)
                return
        super().data_received(data)
        self._watch_reading()

    def _watch_reading(self) -> None:
        """Arm the head or body timer for what the client must send next, or none."""
        if self.transport.is_closing():
            self._disarm()
        elif self.conn.their_state is h11.IDLE:  # a head has begun: its deadline runs on
            if self.read_timer is None:
                self._arm(self.header_timeout, self._head_timed_out)
        elif self.conn.their_state is h11.SEND_BODY:  # a pause between reads of the body
            self.head_bytes, self.head_tail = 0, b""
            self._arm(self.body_timeout, self._body_timed_out)
        else:
            self.head_bytes, self.head_tail = 0, b""
            self._disarm()

    def _arm(self, seconds: float, then: Any) -> None:
        self._disarm()
        self.read_timer = self.loop.call_later(seconds, then)

    def _disarm(self) -> None:
        if self.read_timer is not None:
            self.read_timer.cancel()
            self.read_timer = None

    def _head_timed_out(self) -> None:
        self.read_timer = None
        if self.transport.is_closing() or self.conn.their_state is not h11.IDLE:
            return
        if self.head_bytes == 0 or self.conn.our_state is not h11.IDLE:
            self.transport.close()  # nothing asked (or an answer under way): only close
            return
        message = f"the request head did not arrive within {self.header_timeout:g} s"
        self.refuse(408, "timeout", message)

    def _body_timed_out(self) -> None:
        self.read_timer = None
        if self.transport.is_closing() or self.conn.their_state is not h11.SEND_BODY:
            return
        if self.cycle is not None and self.cycle.body:  # the app has not read what came: wait
            self._arm(self.body_timeout, self._body_timed_out)
            return
        self.transport.close()  # connection_lost tells the app the client left

    def send_400_response(self, msg: str) -> None:
        self.refuse(400, "bad_request", MALFORMED)

    def refuse(self, status: int, code: str, message: str) -> None:
        """Answer `status` in the envelope before any app response, then close."""
        self._disarm()
        body = envelope_body(status, code, message)
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode("ascii")),
            (b"x-content-type-options", b"nosniff"),
            (b"connection", b"close"),
        ]
        try:
            for event in (
                h11.Response(status_code=status, headers=headers, reason=_REASONS[status]),
                h11.Data(data=body),
                h11.EndOfMessage(),
            ):
                self.transport.write(self.conn.send(event) or b"")
        except h11.LocalProtocolError:  # an answer had begun: the connection can only close
            pass
        self.transport.close()


def protocol_for(settings: Settings) -> type[EnvelopeH11Protocol]:
    """The protocol class with the settings' header and body bounds."""

    class ConfiguredH11Protocol(EnvelopeH11Protocol):
        header_timeout = settings.header_timeout
        body_timeout = settings.body_timeout
        max_header_bytes = settings.max_header_bytes

    return ConfiguredH11Protocol
