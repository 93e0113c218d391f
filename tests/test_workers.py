"""`serve --workers N`: N workers forked from one loaded process, each on its own socket of one
port; the supervisor replaces a worker that dies (with backoff and a budget, the others serving
meanwhile) and stops them all on SIGTERM."""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI
from tests_support import running_server  # type: ignore[import-not-found]

from api.restarts import RestartCount
from api.workers import (
    MIN_UPTIME_S,
    Supervisor,
    backoff,
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
    with pytest.raises(ValueError, match="restarts per minute must be 0 or more, got -1"):
        check_serving(Settings(worker_restarts_per_minute=-1))
    with pytest.raises(ValueError, match="malloc arenas must be 0 or more, got -1"):
        check_serving(Settings(malloc_arenas=-1))


def test_the_allocator_arenas_are_capped_in_a_fresh_process() -> None:
    """glibc takes the cap (mallopt answers 1); 0 leaves the default and reports it did nothing.
    In a child: the cap would stay on the test process otherwise."""
    code = (
        "from api.workers import cap_malloc_arenas as cap; "
        "print(cap(0), cap(2) if __import__('sys').platform.startswith('linux') else True)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert out.stdout.split() == ["False", "True"]


def test_a_worker_that_died_at_its_start_waits_longer_each_time() -> None:
    assert backoff(0) == 0.0  # one that served a while is replaced at once
    assert [backoff(n) for n in (1, 2, 3, 4)] == [0.5, 1.0, 2.0, 4.0]
    assert backoff(50) == 30.0


def test_setting_the_torch_threads_never_imports_torch() -> None:
    """The supervisor and its workers set torch's threads only when an embedder loaded it: with
    the ONNX runner no server process imports torch."""
    code = (
        "import sys; from api.workers import set_torch_threads; set_torch_threads(1);"
        "print('torch' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
    code = "import torch; from api.workers import set_torch_threads; set_torch_threads(1);"
    code += "print(torch.get_num_threads())"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "1"


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


def test_the_restart_count_is_shared_with_forks() -> None:
    count = RestartCount()
    pid = os.fork()
    if pid == 0:  # the child sees what the parent counts after the fork
        time.sleep(0.3)
        os._exit(count.value())
    count.add()
    count.add()
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 2 == count.value()


def test_workers_that_never_start_stop_the_server_once_the_budget_is_spent(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every fork dies at its start: they are forked again after 0.5 s, 1 s … until the minute's
    budget (3 here) is spent and none runs; then the server stops, status 1."""
    monkeypatch.setattr(Supervisor, "_serve", lambda self, sock: 3)
    socks = listeners("127.0.0.1", 0, 2)
    restarts = RestartCount()
    started = time.monotonic()
    supervisor = Supervisor(FastAPI(), socks, Settings(worker_restarts_per_minute=3), restarts)
    assert supervisor.run() == 1
    assert restarts.value() == 3
    assert 0.5 <= time.monotonic() - started < MIN_UPTIME_S
    assert all(s.fileno() == -1 for s in socks)  # closed on the way out


def test_a_broken_slot_never_stops_a_healthy_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    """One slot's workers always die at their start, the other's serves: the budget runs out
    and the broken slot waits, but the server keeps running until it is told to stop."""
    socks = listeners("127.0.0.1", 0, 2)
    healthy = socks[0].fileno()

    def serve(self: Supervisor, sock: socket.socket) -> int:
        if sock.fileno() != healthy:
            return 3
        signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
        while True:
            time.sleep(1)

    monkeypatch.setattr(Supervisor, "_serve", serve)
    pid = os.fork()
    if pid == 0:  # the supervisor runs in a child: it installs signal handlers and blocks
        budget = Settings(worker_restarts_per_minute=2)
        os._exit(Supervisor(FastAPI(), socks, budget).run())
    try:
        time.sleep(4)  # 2 restarts after 0.5 s and 1 s, then the budget is spent
        assert os.waitpid(pid, os.WNOHANG) == (0, 0), "the supervisor stopped"
    finally:
        os.kill(pid, signal.SIGTERM)
        _, status = os.waitpid(pid, 0)
        for s in socks:
            s.close()
    assert os.waitstatus_to_exitcode(status) == 0


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


# The supervisor's fork that writes the snapshot (api.runtime.save_snapshot_aside) would count
# among its workers for a few seconds: these tests count workers, tests/test_snapshot.py the rest.
NO_SNAPSHOT = {"YGO_SNAPSHOTS": "0"}


def _workers(supervisor: int) -> list[int]:
    """The supervisor's forks (its other children are multiprocessing helpers)."""
    return [p for p in _children(supervisor) if _cmdline(p) == _cmdline(supervisor)]


@pytest.fixture(scope="module")
def two_workers(
    lite_built: object, lite_corpus: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, Path]]:
    data = tmp_path_factory.mktemp("workers") / "data"
    shutil.copytree(lite_built.data_dir, data, symlinks=True)  # type: ignore[attr-defined]
    with running_server(
        data, NO_SNAPSHOT, workers=2, corpus=lite_corpus, start_timeout=120
    ) as base:
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
    with running_server(data, NO_SNAPSHOT, workers=2, corpus=lite_corpus, start_timeout=120):
        supervisor = _serve_process(data)
        workers = _workers(supervisor)
        assert len(workers) == 2
        os.kill(supervisor, signum)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and [p for p in workers if _cmdline(p)]:
            time.sleep(0.1)
        assert not [p for p in workers if _cmdline(p)], "a worker outlived its supervisor"


def _restarts(base: str) -> int:
    health = httpx.get(base + "/health", timeout=30).json()
    metrics = httpx.get(base + "/metrics", timeout=30).text
    line = next(x for x in metrics.splitlines() if x.startswith("ygo_worker_restarts_total "))
    assert float(line.split()[1]) == health["worker_restarts"]
    return int(health["worker_restarts"])


def _replacement(supervisor: int, known: list[int]) -> int:
    """The worker forked after one of `known` was killed (waits for the slot to be refilled)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        new = [p for p in _workers(supervisor) if p not in known]
        if len(_workers(supervisor)) == 2 and new:
            return new[0]
        time.sleep(0.05)
    raise AssertionError(f"no replacement: workers {_workers(supervisor)}")


@pytest.mark.e2e
def test_two_kills_within_seconds_leave_the_server_answering(
    two_workers: tuple[str, Path],
) -> None:
    """What an out-of-memory killer does: kill -9 a worker, then its replacement right after
    its start. The other worker answers throughout, the slot gets a third worker after a short
    pause, and /health and /metrics count both restarts."""
    base, data = two_workers
    supervisor = _serve_process(data)
    before = _restarts(base)
    victim, survivor = _workers(supervisor)
    os.kill(victim, signal.SIGKILL)
    replacement = _replacement(supervisor, [victim, survivor])
    os.kill(replacement, signal.SIGKILL)  # well within 10 s of its start
    assert _uptime(survivor) > 0 and _cmdline(survivor), "the healthy worker was stopped"
    _ask_many(base, 4)  # answered meanwhile (by the survivor, or the next fork once it is up)
    _replacement(supervisor, [victim, survivor, replacement])
    assert survivor in _workers(supervisor)
    _ask_many(base, 4)
    assert _restarts(base) == before + 2
