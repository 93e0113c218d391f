"""`serve --workers N`: settings travel to spawned workers; N processes answer on one socket."""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
import uvicorn
from tests_support import running_server  # type: ignore[import-not-found]

from api.workers import (
    build_lock,
    check_serving,
    decode_settings,
    encode_settings,
    tcp_listener,
    worker_count,
)
from kb.config import Settings


def test_settings_survive_the_trip_to_a_worker() -> None:
    s = Settings(
        data_dir=Path("/tmp/d"), embedder="hash", sparql_timeout=2.5, answer_cache=7, workers=3
    )
    assert decode_settings(encode_settings(s)) == s
    assert decode_settings(encode_settings(Settings())) == Settings()
    with pytest.raises(ValueError, match="JSON object"):
        decode_settings("[1]")


def test_worker_count_defaults_to_the_usable_cores() -> None:
    assert worker_count(0) == len(os.sched_getaffinity(0))
    assert worker_count(3) == 3
    with pytest.raises(ValueError, match="got -1"):
        worker_count(-1)
    assert check_serving(Settings(workers=2)) == 2
    with pytest.raises(ValueError, match="answer cache size must be 0 or more, got -3"):
        check_serving(Settings(answer_cache=-3))  # refused before any worker loads


def test_the_build_lock_lets_one_process_in_at_a_time(tmp_path: Path) -> None:
    import fcntl

    lock = tmp_path / "data" / ".serve.lock"
    # Another open file of this process is another lock holder, as another process would be.
    with build_lock(tmp_path / "data"), open(lock, "a+b") as other, pytest.raises(BlockingIOError):
        fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
    with open(tmp_path / "data" / ".serve.lock", "a+b") as other:
        fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)  # released on exit


def _children(pid: int) -> list[int]:
    text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    return [int(p) for p in text.split()]


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


@pytest.fixture(scope="module")
def two_workers(
    lite_built: object, lite_corpus: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, Path]]:
    data = tmp_path_factory.mktemp("workers") / "data"
    shutil.copytree(lite_built.data_dir, data, symlinks=True)  # type: ignore[attr-defined]
    with running_server(data, workers=2, corpus=lite_corpus, start_timeout=120) as base:
        yield base, data


def _serve_process(data: Path) -> int:
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and f"serve --data {data} " in _cmdline(int(entry.name)):
            return int(entry.name)
    raise AssertionError("no serve process")


async def accepted_nodelay(listener: socket.socket) -> int:
    """TCP_NODELAY of a connection asyncio accepts on `listener` (as a worker serves it)."""
    seen: asyncio.Future[int] = asyncio.get_running_loop().create_future()

    async def on_connect(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        accepted = writer.get_extra_info("socket")
        seen.set_result(accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
        writer.close()

    server = await asyncio.start_server(on_connect, sock=listener)
    _, client = await asyncio.open_connection(*listener.getsockname()[:2])
    try:
        return await asyncio.wait_for(seen, 10)
    finally:
        client.close()
        server.close()
        await server.wait_closed()


def test_the_workers_connections_turn_nagle_off() -> None:
    """The socket the workers share (bound by uvicorn, marked TCP) gives connections with
    TCP_NODELAY: without it every keep-alive request past the first waits for a delayed ACK."""
    config = uvicorn.Config("api.workers:worker_app", host="127.0.0.1", port=0)
    listener = tcp_listener(config.bind_socket())
    assert listener.proto == socket.IPPROTO_TCP and listener.getsockname()[1] > 0
    assert asyncio.run(accepted_nodelay(listener)) != 0


def test_a_unix_socket_is_left_as_it_is(tmp_path: Path) -> None:
    config = uvicorn.Config("api.workers:worker_app", uds=str(tmp_path / "api.sock"))
    listener = config.bind_socket()
    assert tcp_listener(listener) is listener
    listener.close()


@pytest.mark.e2e
def test_two_workers_answer_on_one_port(two_workers: tuple[str, Path]) -> None:
    base, data = two_workers
    supervisor = _serve_process(data)
    workers = [p for p in _children(supervisor) if "spawn_main" in _cmdline(p)]
    assert len(workers) == 2
    questions = [f"Can I chain a quick-play spell to card {i}?" for i in range(8)]
    with httpx.Client(base_url=base, timeout=60) as client, ThreadPoolExecutor(8) as pool:
        lock = threading.Lock()
        seen: dict[str, dict[str, object]] = {}

        def ask(q: str) -> int:
            r = client.post("/ask", json={"question": q})
            with lock:
                seen[q] = r.json()
            return r.status_code

        assert list(pool.map(ask, questions)) == [200] * 8
        assert all(seen[q]["question"] == q for q in questions)
        assert client.get("/health").json()["ok"] is True
    assert (data / ".serve.lock").exists()
