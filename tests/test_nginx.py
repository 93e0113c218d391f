"""The production setup end to end: deploy/nginx.conf in front of a real `ygo-rulings serve`.

Skipped where the `nginx` binary is not installed (`make browser` installs Debian's package). The
shipped file is used as it is, with only its ports and its two timeouts (1 s here) rewritten; nginx
runs in the foreground with its own pid, log and temporary paths under the test's tmp folder.
"""

from __future__ import annotations

import os
import re
import select
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from tests_support import REPO, free_port, running_server  # type: ignore[import-not-found]

NGINX = shutil.which("nginx") or next(
    (p for p in ("/usr/sbin/nginx", "/usr/local/sbin/nginx") if os.access(p, os.X_OK)), None
)
pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(NGINX is None, reason="nginx is not installed (Debian package `nginx`)"),
]
TIMEOUT_S = 1


def site_config(nginx_port: int, api_port: int) -> str:
    """deploy/nginx.conf with this test's ports and short timeouts (each directive must exist)."""
    text = (REPO / "deploy" / "nginx.conf").read_text("utf-8")
    for pattern, value in (
        (r"listen 80;", f"listen 127.0.0.1:{nginx_port};"),
        (r"server 127\.0\.0\.1:8000;", f"server 127.0.0.1:{api_port};"),
        (r"client_header_timeout \d+s;", f"client_header_timeout {TIMEOUT_S}s;"),
        (r"client_body_timeout \d+s;", f"client_body_timeout {TIMEOUT_S}s;"),
    ):
        text, n = re.subn(pattern, value, text)
        assert n == 1, f"deploy/nginx.conf has no single {pattern!r}"
    return text


def main_config(work: Path) -> str:
    temp = " ".join(
        f"{kind}_temp_path {work / kind};"
        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    user = "user root;" if os.geteuid() == 0 else ""  # workers then write the 0700 tmp folder
    return (
        f"{user} daemon off; worker_processes 1; pid {work / 'nginx.pid'};"
        f" error_log {work / 'error.log'} warn;"
        " events { worker_connections 128; }"
        f" http {{ access_log off; {temp} include {work / 'site.conf'}; }}"
    )


@pytest.fixture(scope="module")
def proxied(
    lite_built: object, lite_corpus: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    data = tmp_path_factory.mktemp("nginx-api") / "data"
    shutil.copytree(lite_built.data_dir, data, symlinks=True)  # type: ignore[attr-defined]
    work = tmp_path_factory.mktemp("nginx")
    with running_server(data, corpus=lite_corpus, start_timeout=120) as api:
        port = free_port()
        (work / "site.conf").write_text(site_config(port, int(api.rsplit(":", 1)[1])), "utf-8")
        (work / "nginx.conf").write_text(main_config(work), "utf-8")
        assert NGINX is not None
        cmd = [
            NGINX,
            "-p",
            str(work),
            "-e",
            str(work / "error.log"),
            "-c",
            str(work / "nginx.conf"),
        ]
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            deadline = time.monotonic() + 20
            while True:
                if proc.poll() is not None:
                    raise RuntimeError(
                        proc.stderr.read().decode() if proc.stderr else "nginx exited"
                    )
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    break
                except OSError:
                    if time.monotonic() > deadline:
                        raise RuntimeError("nginx did not start") from None
                    time.sleep(0.05)
            yield f"http://127.0.0.1:{port}"
        finally:
            proc.terminate()
            proc.wait(timeout=10)


def test_the_api_answers_through_nginx(proxied: str) -> None:
    assert httpx.get(proxied + "/health").json()["ok"] is True
    answer = httpx.post(proxied + "/ask", json={"question": "What is a chain?"}, timeout=60)
    assert answer.status_code == 200 and answer.json()["question"] == "What is a chain?"
    bad = httpx.get(proxied + "/search", params={"q": ""})
    assert bad.status_code == 422 and bad.json()["ok"] is False  # the API's own errors pass


def test_a_10_mb_body_is_refused_in_the_envelope(proxied: str) -> None:
    body = b'{"question": "' + b"x" * (10 * 1024 * 1024) + b'"}'
    r = httpx.post(
        proxied + "/ask", content=body, headers={"content-type": "application/json"}, timeout=30
    )
    assert r.status_code == 413
    assert r.json() == {
        "ok": False,
        "error": r.json()["error"],
        "status": 413,
        "code": "body_too_large",
    }


def _held_for(base: str, head: bytes) -> tuple[float, bytes]:
    """Send `head`, then nothing: (seconds until nginx ends the connection, closed or reset,
    what it sent)."""
    port = int(base.rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port), timeout=10 * TIMEOUT_S) as s:
        s.sendall(head)
        t0 = time.monotonic()
        got = b""
        try:
            while chunk := s.recv(4096):
                got += chunk
        except ConnectionResetError:  # reset_timedout_connection: a reset, not a FIN
            pass
        return time.monotonic() - t0, got


@pytest.mark.parametrize(
    "head",
    [
        pytest.param(
            b"POST /ask HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
            b"Content-Length: 1000\r\n\r\n" + b'{"question": "Can I',
            id="slow-body",
        ),
        pytest.param(b"GET /health HTTP/1.1\r\nHost: t\r\n", id="slow-headers"),
    ],
)
def test_a_stalled_client_is_cut_off_within_the_timeout(proxied: str, head: bytes) -> None:
    held, got = _held_for(proxied, head)
    assert TIMEOUT_S * 0.8 <= held <= TIMEOUT_S + 3, held
    assert got == b"" or got.startswith(b"HTTP/1.1 408"), got[:80]


def _trickled_for(base: str, head: bytes, every: float = 0.2) -> tuple[float, bytes]:
    """Send `head`, then one more header byte every `every` seconds, never ending the head (a
    slowloris): (seconds until nginx ends the connection, what it sent)."""
    port = int(base.rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port), timeout=10 * TIMEOUT_S) as s:
        s.sendall(head + b"X-Slow: ")
        t0 = time.monotonic()
        got = b""
        while time.monotonic() - t0 < 10 * TIMEOUT_S:
            readable, _, _ = select.select([s], [], [], every)
            if readable:
                try:
                    chunk = s.recv(4096)
                except ConnectionResetError:
                    break
                got += chunk
                if not chunk:
                    break
                continue
            try:
                s.sendall(b"a")
            except OSError:  # reset: nginx closed it
                break
        return time.monotonic() - t0, got


def test_headers_trickled_byte_by_byte_are_cut_off_within_the_timeout(proxied: str) -> None:
    """Each byte arrives well within the timeout, but the head never ends: nginx's
    client_header_timeout is a deadline for the whole head, not a pause between reads."""
    held, got = _trickled_for(proxied, b"GET /health HTTP/1.1\r\nHost: t\r\n")
    assert held <= TIMEOUT_S + 3, held
    assert got == b"" or got.startswith(b"HTTP/1.1 408"), got[:80]


def _responses(raw: bytes) -> list[bytes]:
    return re.findall(rb"^HTTP/1\.[01] \d{3}", raw, re.M)


def test_content_length_with_transfer_encoding_is_refused_and_nothing_rides_in_it(
    proxied: str,
) -> None:
    """The classic smuggling request: framed by Content-Length it is one POST, by its chunks a
    POST and then a GET. nginx refuses it (400 in the envelope), closes the connection and
    answers nothing else."""
    smuggled = b"GET /health HTTP/1.1\r\nHost: t\r\n\r\n"
    body = b"0\r\n\r\n" + smuggled
    head = (
        b"POST /ask HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
        b"Content-Length: " + str(len(body)).encode() + b"\r\n"
        b"Transfer-Encoding: chunked\r\n\r\n"
    )
    held, got = _held_for(proxied, head + body)
    assert held < 5, "the connection stayed open"
    assert _responses(got) == [b"HTTP/1.1 400"], got
    payload = got.split(b"\r\n\r\n", 1)[1]
    assert b'"code": "bad_request"' in payload and b'"status": 400' in payload


def test_a_request_head_over_8_kb_is_refused_in_the_envelope(proxied: str) -> None:
    r = httpx.get(proxied + "/health", headers={"X-Big": "a" * 9000})
    assert r.status_code == 431
    assert r.json()["code"] == "header_too_large"


def test_a_client_over_the_rate_gets_429_in_the_envelope(proxied: str) -> None:
    with httpx.Client(base_url=proxied) as client:
        responses = [client.get("/no-such-route") for _ in range(80)]
    assert responses[0].status_code == 404  # the API's answer, passed through
    limited = [r for r in responses if r.status_code == 429]
    assert limited, "80 requests at once stayed under 20/s with a burst of 40"
    assert limited[0].json()["status"] == 429 and limited[0].headers["retry-after"] == "1"
