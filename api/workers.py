"""Serving from several processes: `serve --workers N` forks N workers from one loaded process.

The `serve` process loads the KB, the model and the service once, freezes them (`gc.freeze`), and
forks N uvicorn workers, each serving its own socket on the one port (SO_REUSEPORT). The workers share every page they
only read: torch, the tokenizer's vocabulary, the model weights, the graph. Only what a worker
writes becomes its own (copy on write). The `serve` process then only supervises: it forwards
SIGINT/SIGTERM to the workers and waits for them; a worker that dies is replaced by a fresh fork
(the loaded state is still in the supervisor) while the others keep serving: at once when it had
served a while, after a doubling pause (backoff) when it died right after its start, and never more
than `worker_restarts_per_minute` restarts in any minute (past it a dead worker waits for room).
The server stops only when no worker can start at all: none is running, the minute's restarts are
spent, and every worker's last attempt died at its start.

torch's OpenMP thread pool does not survive a fork: a worker forked from a process whose pool
exists hangs on its first parallel operation. So a torch embedder sets one torch thread before its
first operation (no pool is created while the supervisor loads) and each worker sets its own share
of the cores. Neither imports torch: with the ONNX runner (`YGO_EMBEDDER=onnx`) no process does.
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import logging
import os
import signal
import socket
import sys
import time
from collections import deque
from types import FrameType

from fastapi import FastAPI

from api.restarts import RestartCount
from kb.config import Settings

log = logging.getLogger(__name__)

# A worker that exits sooner than this after its fork died at its start: its next fork waits.
MIN_UPTIME_S = 10.0
# The pause before a worker that died at its start is forked again: doubled each time, capped.
BACKOFF_FIRST_S = 0.5
BACKOFF_MAX_S = 30.0
# The window of the restart budget (`worker_restarts_per_minute`).
RESTART_WINDOW_S = 60.0
# How long stopping waits for the workers' graceful shutdown before killing them.
STOP_GRACE_S = 30.0
_POLL_S = 0.2
_PR_SET_PDEATHSIG = 1


def usable_cores() -> int:
    """The CPU cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def worker_count(requested: int) -> int:
    """The number of server processes: `requested`, or one per CPU this process may use."""
    if requested < 0:
        raise ValueError(f"workers must be 0 (one per CPU core) or more, got {requested}")
    return requested or usable_cores()


def check_serving(settings: Settings) -> int:
    """The worker count, once the settings a worker would only reject after loading are sound."""
    if settings.malloc_arenas < 0:
        raise ValueError(f"malloc arenas must be 0 or more, got {settings.malloc_arenas}")
    if settings.answer_cache < 0:
        raise ValueError(f"answer cache size must be 0 or more, got {settings.answer_cache}")
    if settings.worker_restarts_per_minute < 0:
        raise ValueError(
            "worker restarts per minute must be 0 or more, "
            f"got {settings.worker_restarts_per_minute}"
        )
    return worker_count(settings.workers)


_M_ARENA_MAX = -8  # glibc's mallopt parameter


def cap_malloc_arenas(count: int) -> bool:
    """Let glibc's allocator use at most `count` arenas (0: leave its default), whether it did.

    Call it before the process starts any thread: an arena is made for a thread when it first
    allocates under contention, and stays. Elsewhere than glibc (musl, macOS) it does nothing."""
    if count <= 0 or not sys.platform.startswith("linux"):
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    return bool(mallopt(_M_ARENA_MAX, count))


def threads_per_worker(count: int) -> int:
    """torch threads for each of `count` workers: the cores shared out, at least one."""
    return max(1, usable_cores() // count)


def set_torch_threads(count: int) -> None:
    """Give torch `count` intra-op threads if it is loaded (a torch embedder); never import it."""
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(count)


def load_for_fork(settings: Settings, restarts: RestartCount | None = None) -> FastAPI:
    """The app, loaded in the supervisor without creating torch's thread pool (a torch embedder
    runs on one thread from its start), then frozen; its /health and /metrics read `restarts`
    (the supervisor's count, shared with the forks)."""
    from api.app import create_app
    from api.runtime import load_runtime, save_snapshot_aside

    set_torch_threads(1)
    runtime = load_runtime(settings)
    runtime.service.warm(everything=True)  # built once here, shared by the forks
    save_snapshot_aside(runtime.service, settings)  # the next start reads them instead
    if not settings.sparql_endpoint:
        runtime.service.sparql_endpoint()  # checks (or rebuilds) the store; starts nothing
    app = create_app(
        runtime.service,
        stale_error=runtime.stale_error,
        repaired=runtime.repaired,
        restarts=restarts,
    )
    gc.collect()
    gc.freeze()  # the collector never writes to the loaded objects' pages, so they stay shared
    return app


def listeners(host: str, port: int, count: int) -> list[socket.socket]:
    """`count` TCP sockets listening on one address, each with SO_REUSEPORT, one per worker.

    The kernel spreads new connections over the sockets (by a hash of the connection), where
    one shared socket gave most of them to whichever worker woke first: a client's keep-alive
    connections, opened together, all landed on one worker and one core. Each socket is made
    with `proto` IPPROTO_TCP so asyncio turns TCP_NODELAY on for the connections it accepts
    (with Nagle's algorithm left on, every keep-alive request after the first waited ~42 ms for
    the client's delayed ACK). Port 0 picks one free port for all of them. SO_REUSEPORT lets any
    process of this user bind the same port, so an address something already answers on is
    refused first (`OSError`), as a plain bind would be."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    family, _, _, _, address = infos[0]
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.settimeout(1.0)
        if port and probe.connect_ex(address) == 0:
            raise OSError(f"{host}:{port} is already in use")
    out: list[socket.socket] = []
    try:
        for _ in range(count):
            sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
            out.append(sock)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
            sock.bind(address)
            address = sock.getsockname()  # port 0: the others bind the port this one got
            sock.listen(2048)
    except OSError:
        for sock in out:
            sock.close()
        raise
    return out


def _die_with_parent(parent: int) -> None:
    """Have the kernel send this worker SIGTERM when the supervisor dies, even by SIGKILL
    (Linux `prctl(PR_SET_PDEATHSIG)`), so no worker outlives it serving on its own."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    except (OSError, AttributeError):  # not Linux: the supervisor's SIGTERM still stops it
        return
    if os.getppid() != parent:  # it died before the request took effect
        os._exit(1)


def backoff(failures: int) -> float:
    """Seconds before forking a slot again after `failures` workers in a row died at their
    start: none after a worker that served a while, then 0.5 s doubling to 30 s."""
    if failures <= 0:
        return 0.0
    return min(BACKOFF_FIRST_S * 2 ** (failures - 1), BACKOFF_MAX_S)


class Supervisor:
    """Forks one uvicorn worker of `app` per listening socket (`listeners`) and keeps them
    running until told to stop, restarting the ones that exit (see the module's docstring);
    `run` returns the server's exit status."""

    def __init__(
        self,
        app: FastAPI,
        sockets: list[socket.socket],
        settings: Settings | None = None,
        restarts: RestartCount | None = None,
    ) -> None:
        import uvicorn

        from api.http_protocol import protocol_for

        settings = settings or Settings()
        self.config = uvicorn.Config(
            app,
            log_level="warning",
            http=protocol_for(settings),
            h11_max_incomplete_event_size=settings.max_header_bytes,
        )
        self.sockets = sockets  # one per worker slot, kept open here for the slot's next fork
        self.threads = threads_per_worker(len(sockets))
        self.budget = settings.worker_restarts_per_minute
        self.restarts = restarts or RestartCount()
        self.supervisor = os.getpid()
        self.workers: dict[int, tuple[int, float]] = {}  # pid → (slot, when it was forked)
        self.failures = [0] * len(sockets)  # per slot: workers in a row that died at their start
        self.due: dict[int, float] = {}  # slot without a worker → when to fork it again
        self.recent: deque[float] = deque()  # when the restarts of the last window happened
        self.stopping: float | None = None  # when stopping began
        self.status = 0

    def run(self) -> int:
        """Fork the workers and supervise them until they have all stopped."""
        previous = {s: signal.signal(s, self._on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
        try:
            for slot in range(len(self.sockets)):
                self._fork(slot)
            while self.workers or (self.due and self.stopping is None):
                self._reap()
                self._restart_due()
                time.sleep(_POLL_S)
        finally:
            for s, handler in previous.items():
                signal.signal(s, handler)
            for sock in self.sockets:
                sock.close()
        return self.status

    def _fork(self, slot: int) -> None:
        pid = os.fork()
        if pid == 0:  # the worker: serve until told to stop, never return into the supervisor
            os._exit(self._serve(self.sockets[slot]))
        self.workers[pid] = (slot, time.monotonic())

    def _serve(self, sock: socket.socket) -> int:
        import uvicorn

        for s in (signal.SIGINT, signal.SIGTERM):
            signal.signal(s, signal.SIG_DFL)  # uvicorn installs its own once it serves
        _die_with_parent(self.supervisor)
        try:
            set_torch_threads(self.threads)
            uvicorn.Server(self.config).run(sockets=[sock])
            return 0
        except BaseException:
            log.exception("worker %d failed", os.getpid())
            return 1

    def _reap(self) -> None:
        """Collect the workers that exited and schedule their slots' next fork."""
        while self.workers:
            try:
                pid, wait_status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                self.workers.clear()
                return
            if pid == 0:
                break
            worker = self.workers.pop(pid, None)
            if worker is None or self.stopping is not None:
                continue
            slot, forked = worker
            code = os.waitstatus_to_exitcode(wait_status)
            early = time.monotonic() - forked < MIN_UPTIME_S
            self.failures[slot] = self.failures[slot] + 1 if early else 0
            pause = backoff(self.failures[slot])
            self.due[slot] = time.monotonic() + pause
            log.warning(
                "worker %d exited (%d)%s: forking another in %.1f s",
                pid,
                code,
                " right after its start" if early else "",
                pause,
            )
        if self.stopping is not None and time.monotonic() - self.stopping > STOP_GRACE_S:
            self._send(signal.SIGKILL)

    def _restart_due(self) -> None:
        """Fork the slots whose pause is over while the minute's budget allows; stop when no
        worker runs, none may be started and every slot's last worker died at its start."""
        if self.stopping is not None:
            self.due.clear()
            return
        now = time.monotonic()
        while self.recent and now - self.recent[0] >= RESTART_WINDOW_S:
            self.recent.popleft()
        for slot, when in sorted(self.due.items(), key=lambda item: item[1]):
            if when > now:
                continue
            if len(self.recent) >= self.budget:
                break
            del self.due[slot]
            self.recent.append(now)
            self.restarts.add()
            self._fork(slot)
        if self.due and not self.workers and self._cannot_start():
            log.error(
                "no worker can start (%d restarts in the last minute, each slot's last worker "
                "died at its start): stopping",
                len(self.recent),
            )
            self.status = 1
            self._stop()
            self.due.clear()

    def _cannot_start(self) -> bool:
        if len(self.recent) < self.budget:
            return False
        return self.budget == 0 or all(self.failures[slot] > 0 for slot in self.due)

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        self._stop()

    def _stop(self) -> None:
        if self.stopping is None:
            self.stopping = time.monotonic()
            self._send(signal.SIGTERM)

    def _send(self, signum: int) -> None:
        for pid in self.workers:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signum)
