"""End to end: the real `ygo-rulings serve` process on loopback, queried over HTTP."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from tests_support import REPO  # type: ignore[import-not-found]

pytestmark = pytest.mark.e2e


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    data = tmp_path_factory.mktemp("serve-data")
    port = free_port()
    exe = shutil.which("ygo-rulings", path=str(Path(sys.executable).parent)) or "ygo-rulings"
    env = {**os.environ, "YGO_EMBEDDER": "hash", "YGO_CORPUS_DIR": str(REPO / "corpus")}
    proc = subprocess.Popen(
        [exe, "serve", "--data", str(data), "--port", str(port)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise RuntimeError(proc.stdout.read().decode() if proc.stdout else "server exited")
            try:
                if httpx.get(base + "/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.2)
        else:
            raise RuntimeError("server did not start in 60 s")
        yield base
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_served_search_ask_and_errors(server: str) -> None:
    hits = httpx.get(server + "/search", params={"q": "Jinzo", "k": 2}).json()["hits"]
    assert len(hits) == 2
    answer = httpx.post(
        server + "/ask", json={"question": "Can Divine Wrath negate Cyber Dragon's summon?"}
    ).json()
    assert answer["verdict"] == "no"
    bad = httpx.get(server + "/search", params={"q": "", "k": 3})
    assert bad.status_code == 422 and bad.json()["ok"] is False
    missing = httpx.get(server + "/id/card/no-such-card")
    assert missing.status_code == 404
