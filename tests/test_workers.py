"""`serve --workers N`: N workers forked from one loaded process, each on its own socket of one
port; the supervisor replaces a worker that dies and stops them all on SIGTERM."""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import socket
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI
from tests_support import running_server  # type: ignore[import-not-found]

from api.workers import (
    MIN_UPTIME_S,
    Supervisor,
    check_serving,
    listeners,
    threads_per_worker,
    usable_cores,
    worker_count,
)
from kb.config import Settings


def test_worker_count_is_one_unless_asked() -> None:
    assert Settings().workers == 1
    assert worker_count(0) == len(os.sched_getaffinity(0))
    assert worker_count(3) == 3
    with pytest.raises(ValueError, match="got -1"):
        worker_count(-1)
    assert check_serving(Settings(workers=2)) == 2
    with pytest.raises(ValueError, match="answer cache size must be 0 or more, got -3"):
        check_serving(Settings(answer_cache=-3))  # refused before anything loads


def test_each_worker_gets_its_share_of_the_cores() -> None:
    assert threads_per_worker(1) == usable_cores()
    assert threads_per_worker(usable_cores()) == 1
    assert threads_per_worker(usable_cores() * 4) == 1


async def accepted_nodelay(socks: list[socket.socket]) -> int:
    """TCP_NODELAY of a connection asyncio accepts on one of `socks` (as the workers serve
    them: the kernel picks the socket)."""
    seen: asyncio.Future[int] = asyncio.get_running_loop().create_future()

    async def on_connect(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        accepted = writer.get_extra_info("socket")
        seen.set_result(accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
        writer.close()

    servers = [await asyncio.start_server(on_connect, sock=s) for s in socks]
    _, client = await asyncio.open_connection(*socks[0].getsockname()[:2])
    try:
        return await asyncio.wait_for(seen, 10)
    finally:
        client.close()
        for server in servers:
            server.close()
            await server.wait_closed()


def test_the_workers_sockets_share_one_port_and_turn_nagle_off() -> None:
    """One socket per worker on one port (port 0: the first one's), each TCP, so connections
    get TCP_NODELAY: without it every keep-alive request past the first waits ~42 ms."""
    socks = listeners("127.0.0.1", 0, 3)
    try:
        ports = {s.getsockname()[1] for s in socks}
        assert len(ports) == 1 and ports.pop() > 0
        assert all(s.proto == socket.IPPROTO_TCP for s in socks)
        assert asyncio.run(accepted_nodelay(socks)) != 0
    finally:
        for s in socks:
            s.close()


def test_a_port_something_answers_on_is_refused() -> None:
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        with pytest.raises(OSError, match=f"127.0.0.1:{port} is already in use"):
            listeners("127.0.0.1", port, 2)


def test_a_worker_that_dies_at_its_start_stops_the_server(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Replacing it would only fork another that dies: the server stops, status 1."""
    monkeypatch.setattr(Supervisor, "_serve", lambda self, sock: 3)
    socks = listeners("127.0.0.1", 0, 2)
    started = time.monotonic()
    assert Supervisor(FastAPI(), socks).run() == 1
    assert time.monotonic() - started < MIN_UPTIME_S
    assert all(s.fileno() == -1 for s in socks)  # closed on the way out


def _children(pid: int) -> list[int]:
    text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    return [int(p) for p in text.split()]


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def _serve_process(data: Path) -> int:
    """The supervisor: the `serve` process whose parent is no `serve` process (its workers are
    forks with the same command line)."""
    serving = [
        int(e.name)
        for e in Path("/proc").iterdir()
        if e.name.isdigit() and f"serve --data {data} " in _cmdline(int(e.name))
    ]
    tops = [p for p in serving if _parent(p) not in serving]
    assert len(tops) == 1, f"serve processes: {serving}"
    return tops[0]


def _parent(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])


def _workers(supervisor: int) -> list[int]:
    """The supervisor's forks (its other children are multiprocessing helpers)."""
    return [p for p in _children(supervisor) if _cmdline(p) == _cmdline(supervisor)]


@pytest.fixture(scope="module")
def two_workers(
    lite_built: object, lite_corpus: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, Path]]:
    data = tmp_path_factory.mktemp("workers") / "data"
    shutil.copytree(lite_built.data_dir, data, symlinks=True)  # type: ignore[attr-defined]
    with running_server(data, workers=2, corpus=lite_corpus, start_timeout=120) as base:
        yield base, data


def _ask_many(base: str, n: int) -> None:
    questions = [f"Can I chain a quick-play spell to card {i}?" for i in range(n)]
    with httpx.Client(base_url=base, timeout=60) as client, ThreadPoolExecutor(8) as pool:
        lock = threading.Lock()
        seen: dict[str, dict[str, object]] = {}

        def ask(q: str) -> int:
            r = client.post("/ask", json={"question": q})
            with lock:
                seen[q] = r.json()
            return r.status_code

        assert list(pool.map(ask, questions)) == [200] * n
        assert all(seen[q]["question"] == q for q in questions)
        assert client.get("/health").json()["ok"] is True


@pytest.mark.e2e
def test_two_forked_workers_answer_on_one_port(two_workers: tuple[str, Path]) -> None:
    base, data = two_workers
    supervisor = _serve_process(data)
    assert len(_workers(supervisor)) == 2
    _ask_many(base, 8)


@pytest.mark.e2e
def test_a_worker_that_dies_is_replaced(two_workers: tuple[str, Path]) -> None:
    base, data = two_workers
    supervisor = _serve_process(data)
    before = _workers(supervisor)
    # A worker must have served a while to be replaced (one dying at its start stops the server).
    time.sleep(max(0.0, MIN_UPTIME_S + 1 - _uptime(before[0])))
    os.kill(before[0], signal.SIGKILL)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        now = _workers(supervisor)
        if len(now) == 2 and before[0] not in now:
            break
        time.sleep(0.1)
    else:
        raise AssertionError(f"no replacement: workers {_workers(supervisor)}")
    _ask_many(base, 4)  # the replacement serves the killed worker's socket


def _uptime(pid: int) -> float:
    """Seconds since `pid` started."""
    ticks = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19])
    boot = float(Path("/proc/uptime").read_text().split()[0])
    return boot - ticks / os.sysconf("SC_CLK_TCK")


@pytest.mark.e2e
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGKILL])
def test_stopping_the_supervisor_stops_every_worker(
    signum: int, lite_built: object, lite_corpus: Path, tmp_path: Path
) -> None:
    """SIGTERM: the supervisor stops its workers. SIGKILL, which it cannot catch: the kernel
    tells the workers (PR_SET_PDEATHSIG), so none serves on alone."""
    data = tmp_path / "data"
    shutil.copytree(lite_built.data_dir, data, symlinks=True)  # type: ignore[attr-defined]
    with running_server(data, workers=2, corpus=lite_corpus, start_timeout=120):
        supervisor = _serve_process(data)
        workers = _workers(supervisor)
        assert len(workers) == 2
        os.kill(supervisor, signum)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and [p for p in workers if _cmdline(p)]:
            time.sleep(0.1)
        assert not [p for p in workers if _cmdline(p)], "a worker outlived its supervisor"
