"""The body cap through a real uvicorn server on loopback, over raw sockets, where it matters
how the server reads: a declared Content-Length over the cap is refused before any body byte is
sent, a chunked body as soon as it passes the cap; the API answers on the same server."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import replace

import pytest
import uvicorn
from tests_support import free_port

from api.app import create_app
from kb.service import RulingsService

pytestmark = pytest.mark.e2e
CAP = 1024


@pytest.fixture(scope="module")
def server(lite_service: RulingsService) -> Iterator[tuple[str, int]]:
    """The app (a 1 KB cap) served by uvicorn in a thread, without its lifespan (no SPARQL
    workers, no logging changes)."""
    settings = replace(lite_service.settings, max_body_bytes=CAP, log_json=False)
    service = RulingsService(lite_service.artifact, settings)
    port = free_port()
    config = uvicorn.Config(
        create_app(service), host="127.0.0.1", port=port, log_level="warning", lifespan="off"
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


def exchange(
    address: tuple[str, int], *parts: bytes, bodyless: bool = False
) -> tuple[int, dict[str, str], bytes]:
    """Send `parts` on a fresh connection, then read one whole response (only its head when
    `bodyless`: the answer to a HEAD)."""
    with socket.create_connection(address, timeout=10) as sock:
        for part in parts:
            sock.sendall(part)
        raw = b""
        while b"\r\n\r\n" not in raw:
            chunk = sock.recv(65536)
            assert chunk, f"connection closed before a response: {raw!r}"
            raw += chunk
        head, body = raw.split(b"\r\n\r\n", 1)
        status_line, *lines = head.decode("latin-1").split("\r\n")
        headers = {k.lower(): v.strip() for k, v in (ln.split(":", 1) for ln in lines)}
        while not bodyless and len(body) < int(headers.get("content-length", "0")):
            chunk = sock.recv(65536)
            assert chunk, "connection closed inside the body"
            body += chunk
    return int(status_line.split()[1]), headers, body


def post_head(path: str, *extra: str) -> bytes:
    lines = [f"POST {path} HTTP/1.1", "Host: 127.0.0.1", "Content-Type: application/json", *extra]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def test_a_declared_length_over_the_cap_is_refused_before_the_body(
    server: tuple[str, int],
) -> None:
    # Only the headers are sent: a server waiting for the 10 MB would never answer.
    status, headers, body = exchange(server, post_head("/ask", "Content-Length: 10000000"))
    assert status == 413 and headers["content-type"] == "application/json"
    assert b'"status":413' in body and f"{CAP} bytes".encode() in body


def test_a_chunked_body_is_cut_off_once_it_passes_the_cap(server: tuple[str, int]) -> None:
    first = b'{"question": "' + b"x" * 900
    second = b"x" * 200  # 1,114 bytes so far: over the cap, and the body is not even finished
    status, _, body = exchange(
        server,
        post_head("/ask", "Transfer-Encoding: chunked"),
        b"%x\r\n%s\r\n" % (len(first), first),
        b"%x\r\n%s\r\n" % (len(second), second),
    )
    assert status == 413 and f"{CAP} bytes".encode() in body


def test_a_body_within_the_cap_is_answered(server: tuple[str, int]) -> None:
    question = b'{"question": "Jinzo pode ser Invocado-Especial?"}'
    status, headers, body = exchange(
        server,
        post_head("/ask", "Transfer-Encoding: chunked"),
        b"%x\r\n%s\r\n0\r\n\r\n" % (len(question), question),
    )
    assert status == 200 and b'"verdict"' in body
    assert headers["x-request-id"]
    status, headers, body = exchange(
        server, b"HEAD /stats HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", bodyless=True
    )
    assert status == 200 and int(headers["content-length"]) > 0 and body == b""
    assert headers["etag"].startswith('"') and headers["cache-control"].startswith("public")
