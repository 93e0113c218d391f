"""What `serve`'s HTTP protocol bounds on a connection (api.http_protocol), through a real uvicorn
server on loopback over raw sockets: a head that never ends (sent slowly, trickled, or not at
all) is cut off after `header_timeout`, a stalled body after `body_timeout`, an oversized head
is 431, and a request with both Content-Length and Transfer-Encoding is refused with nothing
read after it; ordinary and keep-alive requests are untouched."""

from __future__ import annotations

import json
import re
import select
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import replace

import pytest
import uvicorn
from tests_support import free_port  # type: ignore[import-not-found]

from api.app import create_app
from api.http_protocol import protocol_for
from kb.service import RulingsService

pytestmark = pytest.mark.e2e
LIMIT_S = 1.0
HEAD_BYTES = 2048
Address = tuple[str, int]


@pytest.fixture(scope="module")
def server(lite_service: RulingsService) -> Iterator[Address]:
    """The app served by uvicorn in a thread with `serve`'s protocol and 1 s bounds."""
    settings = replace(
        lite_service.settings,
        header_timeout=LIMIT_S,
        body_timeout=LIMIT_S,
        max_header_bytes=HEAD_BYTES,
        log_json=False,
    )
    service = RulingsService(lite_service.artifact, settings)
    port = free_port()
    config = uvicorn.Config(
        create_app(service),
        host="127.0.0.1",
        port=port,
        log_level="warning",
        lifespan="off",
        http=protocol_for(settings),
        h11_max_incomplete_event_size=settings.max_header_bytes,
    )
    served = uvicorn.Server(config)
    thread = threading.Thread(target=served.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not served.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    yield "127.0.0.1", port
    served.should_exit = True
    thread.join(timeout=10)


def held(address: Address, sent: bytes, trickle: float | None = None) -> tuple[float, bytes]:
    """Send `sent`, then nothing (or one more byte every `trickle` seconds): the seconds until
    the server ends the connection, and everything it sent."""
    with socket.create_connection(address, timeout=10) as sock:
        if sent:
            sock.sendall(sent)
        t0 = time.monotonic()
        got = b""
        while time.monotonic() - t0 < 10:
            readable, _, _ = select.select([sock], [], [], trickle or 10)
            if not readable:
                sock.sendall(b"a")
                continue
            try:
                chunk = sock.recv(65536)
            except ConnectionResetError:
                break
            if not chunk:
                break
            got += chunk
        return time.monotonic() - t0, got


def response(sock: socket.socket) -> tuple[int, bytes]:
    """One whole response read from `sock` (by its Content-Length): (status, body)."""
    raw = b""
    while b"\r\n\r\n" not in raw:
        chunk = sock.recv(65536)
        assert chunk, f"closed before a response: {raw!r}"
        raw += chunk
    head, body = raw.split(b"\r\n\r\n", 1)
    length = int(re.search(rb"(?im)^content-length: *(\d+)", head).group(1))  # type: ignore[union-attr]
    while len(body) < length:
        chunk = sock.recv(65536)
        assert chunk, "closed within a response"
        body += chunk
    assert len(body) == length, "more than one response"
    return int(head.split()[1]), body


def statuses(raw: bytes) -> list[int]:
    return [int(s) for s in re.findall(rb"^HTTP/1\.1 (\d{3})", raw, re.M)]


def envelope(raw: bytes) -> dict[str, object]:
    body = raw.split(b"\r\n\r\n", 1)[1]
    return dict(json.loads(body))


def test_a_connection_that_sends_nothing_is_closed(server: Address) -> None:
    seconds, got = held(server, b"")
    assert LIMIT_S * 0.8 <= seconds <= LIMIT_S + 2 and got == b""


def test_a_head_that_stops_is_answered_408_and_closed(server: Address) -> None:
    seconds, got = held(server, b"GET /health HTTP/1.1\r\nHost: t\r\n")
    assert LIMIT_S * 0.8 <= seconds <= LIMIT_S + 2
    assert statuses(got) == [408]
    assert envelope(got)["code"] == "timeout"


def test_a_head_trickled_byte_by_byte_is_cut_off_at_its_deadline(server: Address) -> None:
    """A byte every 0.2 s keeps every pause short; the deadline is for the whole head."""
    seconds, got = held(server, b"GET /health HTTP/1.1\r\nHost: t\r\nX-Slow: ", trickle=0.2)
    assert seconds <= LIMIT_S + 2
    assert statuses(got) == [408]


def test_a_stalled_body_closes_the_connection(server: Address) -> None:
    head = (
        b"POST /ask HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
        b"Content-Length: 1000\r\n\r\n"
    )
    seconds, got = held(server, head + b'{"question": "Can I')
    assert LIMIT_S * 0.8 <= seconds <= LIMIT_S + 2
    assert statuses(got) == []  # the app saw its client leave: nothing to answer


def test_a_head_over_the_limit_is_431(server: Address) -> None:
    seconds, got = held(server, b"GET /health HTTP/1.1\r\nHost: t\r\nX-Big: " + b"a" * 4000)
    assert seconds < LIMIT_S  # at once, not at the deadline
    assert statuses(got) == [431]
    assert envelope(got)["code"] == "header_too_large"


def test_content_length_with_transfer_encoding_is_refused_and_nothing_rides_in_it(
    server: Address,
) -> None:
    smuggled = b"GET /health HTTP/1.1\r\nHost: t\r\n\r\n"
    body = b"0\r\n\r\n" + smuggled
    head = (
        b"POST /ask HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
        b"Content-Length: " + str(len(body)).encode() + b"\r\n"
        b"Transfer-Encoding: chunked\r\n\r\n"
    )
    seconds, got = held(server, head + body)
    assert seconds < LIMIT_S
    assert statuses(got) == [400], got
    assert envelope(got)["code"] == "bad_request"


def test_ordinary_and_keep_alive_requests_are_untouched(server: Address) -> None:
    """A head in two parts within the deadline, then a second request on the connection after
    a pause longer than the deadline (keep-alive is uvicorn's own, 5 s): both answered."""
    with socket.create_connection(server, timeout=10) as sock:
        sock.sendall(b"GET /health HTTP/1.1\r\n")
        time.sleep(LIMIT_S / 2)
        sock.sendall(b"Host: t\r\n\r\n")
        first = response(sock)
        time.sleep(LIMIT_S * 1.5)
        body = b'{"question": "What is a chain?"}'
        sock.sendall(
            b"POST /ask HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
            b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n"
        )
        time.sleep(LIMIT_S / 2)
        sock.sendall(body)
        second = response(sock)
    assert first[0] == 200 and json.loads(first[1])["ok"] is True
    assert second[0] == 200 and json.loads(second[1])["question"] == "What is a chain?"
