"""Sandboxed worker processes that answer SPARQL queries over the Oxigraph store within a time bound.

Oxigraph runs a query in the calling thread and cannot interrupt it, so each query runs in a worker
process that is killed when it overruns. Workers are spawned (a fresh interpreter: forking a process
with torch/OpenMP and server threads can deadlock the child), open the build's store read-only
(several processes share it; nothing is copied or pickled) and answer
`kb.adapters.oxigraph_store.execute` requests over a pipe. `warm` starts them all before the first
query; a killed worker is replaced in the background.

Inside a worker: a new, empty network namespace where the kernel allows one (Oxigraph itself can
fetch SERVICE clauses, which the checks refuse before it sees them), an audit hook that refuses
sockets, subprocesses, file writes and reads outside Python's own code, and a cap on the address
space, so even a query the checks missed could not reach outside the graph. A worker exits when
its parent goes away. Linux/Unix only.
"""

from __future__ import annotations

import contextlib
import ctypes
import logging
import multiprocessing
import os
import resource
import signal
import sys
import sysconfig
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import Any

import rdflib

from kb.errors import KBError
from kb.linked_data.sparql import (
    EndpointBusy,
    MalformedQuery,
    NotAcceptable,
    QueryRefused,
    QueryStopped,
    QueryTooLarge,
    ResultTooLarge,
    SparqlError,
    TooManyResults,
    UpdateRefused,
    WorkerRestarting,
)

log = logging.getLogger(__name__)

WORKER_MEMORY_BYTES = 1 << 30  # extra address space a worker may allocate for one query
DEFAULT_WORKERS = 2
EXHAUSTED = "exhausted"  # the reply kind after which a worker retires
MEMORY_MESSAGE = "the query needs more memory than a query may use"
WARM_UP_QUERY = "SELECT ?s WHERE { ?s a ?class } LIMIT 1"
CLONE_NEWUSER = 0x10000000
CLONE_NEWNET = 0x40000000

# --- the sandbox ----------------------------------------------------------------------------

# Audit events a sandboxed worker refuses (see install_sandbox; "open" is checked separately).
_BLOCKED = """socket.connect socket.bind socket.getaddrinfo socket.gethostbyname socket.gethostbyaddr
    urllib.Request subprocess.Popen os.system os.exec os.posix_spawn os.spawn os.fork os.forkpty
    os.remove os.rename os.rmdir os.mkdir os.truncate os.chmod os.symlink os.link shutil.rmtree
    shutil.copyfile shutil.move"""
BLOCKED_EVENTS = frozenset(_BLOCKED.split())
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND


def _code_roots() -> tuple[str, ...]:
    """Where Python code lives (the only files a sandboxed worker may open, read-only)."""
    paths = sysconfig.get_paths()
    roots = {paths[k] for k in ("stdlib", "platstdlib", "purelib", "platlib")}
    roots |= {str(Path(__file__).parents[1]), str(Path(rdflib.__file__ or ".").parent)}
    return tuple(os.path.join(os.path.realpath(r), "") for r in roots)


def install_sandbox() -> None:
    """From now on this process may not open sockets, start processes or touch files.

    Reading Python source and extension files (lazy imports) stays allowed. Audit hooks cannot
    be removed, so call this only inside a worker process.
    """
    roots = _code_roots()

    def hook(event: str, args: tuple[Any, ...]) -> None:
        if event in BLOCKED_EVENTS:
            raise PermissionError(f"{event} is not allowed while answering a SPARQL query")
        if event == "open" and not _readable(args, roots):
            raise PermissionError(f"opening {args[0]!r} is not allowed in a SPARQL query")

    sys.addaudithook(hook)


def _readable(args: tuple[Any, ...], roots: tuple[str, ...]) -> bool:
    path, mode, flags = (*args, None, None)[:3]
    if isinstance(path, int):
        return True
    if (mode and any(c in str(mode) for c in "wax+")) or (flags or 0) & _WRITE_FLAGS:
        return False
    real = os.path.realpath(os.fsdecode(path))
    return real.startswith(roots)


def _limit_memory(extra: int) -> None:
    """Cap the address space at its current size plus `extra` bytes (Linux; else no cap)."""
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return
    soft = pages * os.sysconf("SC_PAGE_SIZE") + extra
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard == resource.RLIM_INFINITY or soft < hard:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def isolate_network() -> bool:
    """Move this process into a new network namespace without interfaces (Linux, best effort).

    Needs CAP_SYS_ADMIN or unprivileged user namespaces, and a process without other threads:
    call it first thing in a worker. True when it worked.
    """
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        unshare = libc.unshare
    except (OSError, AttributeError):
        return False
    return any(unshare(flags) == 0 for flags in (CLONE_NEWNET, CLONE_NEWUSER | CLONE_NEWNET))


def _detach_signals() -> None:
    """Forget the server's signal handling: default SIGTERM, ignore Ctrl-C, no wakeup fd."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with contextlib.suppress(ValueError):
        signal.set_wakeup_fd(-1)


def _serve(
    conn: Connection,
    store_path: str,
    prefixes: dict[str, str],
    max_results: int,
    memory: int,
    max_bytes: int | None = None,
) -> None:
    """A worker: answer (text, accept) requests until the parent goes away.

    It leaves with os._exit, without the usual interpreter shutdown.
    """
    _detach_signals()
    isolate_network()
    from kb.adapters.oxigraph_store import execute, open_store

    try:
        store = open_store(Path(store_path))
        execute(store, WARM_UP_QUERY, None, 1, prefixes)  # first-use costs: parser, engine, writer
    except (OSError, RuntimeError, ValueError, KBError) as exc:
        conn.send((FAILED, f"cannot open the SPARQL store: {type(exc).__name__}: {exc}"))
        os._exit(1)
    _limit_memory(memory)
    install_sandbox()
    conn.send((READY, os.getpid()))
    parent = os.getppid()
    while True:
        if not conn.poll(1.0):
            if os.getppid() != parent:
                os._exit(0)
            continue
        try:
            text, accept = conn.recv()
        except (EOFError, OSError):
            os._exit(0)
        reply = _answer(store, text, accept, max_results, prefixes, max_bytes)
        conn.send(reply)
        if reply[1] == EXHAUSTED:  # a MemoryError may have left the heap fragmented: retire
            os._exit(0)


def _answer(
    store: Any,
    text: str,
    accept: str | None,
    max_results: int,
    prefixes: Mapping[str, str],
    max_bytes: int | None = None,
) -> tuple[Any, ...]:
    """A picklable reply: ("ok", body, media) or ("error", kind, constructor arguments)."""
    from kb.adapters.oxigraph_store import execute

    try:
        return ("ok", *execute(store, text, accept, max_results, prefixes, max_bytes))
    except MalformedQuery as exc:
        return ("error", "malformed", (exc.reason, exc.line, exc.column, exc.text_line))
    except NotAcceptable as exc:
        return ("error", "not-acceptable", (exc.accept, exc.offers))
    except TooManyResults as exc:
        return ("error", "too-many", (exc.limit,))
    except ResultTooLarge as exc:
        return ("error", "too-big", (exc.limit, exc.size))
    except QueryTooLarge as exc:
        return ("error", "too-large", (str(exc),))
    except QueryRefused as exc:
        return ("error", "refused", (str(exc),))
    except UpdateRefused as exc:
        return ("error", "update", (str(exc),))
    except SparqlError as exc:
        return ("error", "invalid", (str(exc),))
    except MemoryError:
        return ("error", EXHAUSTED, (MEMORY_MESSAGE,))
    except PermissionError as exc:
        return ("error", "refused", (f"the query tried to reach outside the graph: {exc}",))


REPLY_ERRORS: dict[str, type[KBError]] = {
    "malformed": MalformedQuery,
    "not-acceptable": NotAcceptable,
    "too-many": TooManyResults,
    "too-big": ResultTooLarge,
    "too-large": QueryTooLarge,
    "refused": QueryRefused,
    "update": UpdateRefused,
    "invalid": SparqlError,
    EXHAUSTED: QueryTooLarge,
}


def _unpack(reply: tuple[Any, ...]) -> tuple[str, str]:
    """The body and media type of an "ok" reply; an "error" reply raised as its exception."""
    if reply[0] == "ok":
        return reply[1], reply[2]
    _, kind, args = reply
    raise REPLY_ERRORS[kind](*args)


def worker_lost(exitcode: int | None) -> KBError:
    """The error of a query whose worker died while answering it. An abort (SIGABRT) is the
    engine failing to allocate past the worker's memory cap: the query needs more memory than a
    query may use, and will again (QueryTooLarge, no retry). Anything else (killed from outside,
    the kernel's OOM killer) is WorkerRestarting: a new worker is starting, retry shortly."""
    if exitcode == -signal.SIGABRT:
        return QueryTooLarge(
            f"{MEMORY_MESSAGE} (its worker ran out of memory and stopped); "
            "narrow the pattern or add a LIMIT"
        )
    return WorkerRestarting(
        f"the SPARQL worker answering the query stopped (exit code {exitcode}) and a new one is "
        "starting; try again in a moment"
    )


# --- the worker pool -------------------------------------------------------------------------

READY = "ready"
FAILED = "failed"
START_TIMEOUT = 60.0  # seconds a new worker may take to start and open the store


@dataclass
class _Worker:
    process: BaseProcess
    conn: Connection

    def stop(self) -> None:
        """Kill the process (it may be stuck in a query) and reap it."""
        with contextlib.suppress(Exception):
            self.process.kill()
            self.process.join(2)
        self.conn.close()


def _drop_dead(worker: _Worker) -> None:
    """Forget an idle worker whose process has died (its pipe closed, its exit code logged)."""
    log.warning(
        "a SPARQL worker died while idle (exit code %s); a new one takes its place",
        worker.process.exitcode,
    )
    worker.stop()


class SparqlEndpoint:
    """Queries answered by worker processes over the store at `store`, stopped after `timeout` s.

    At most `workers` queries run at once; a request waits up to `timeout` seconds for a free
    worker (then EndpointBusy). A worker whose query overran is killed and a replacement started
    at once. A worker may grow by `memory` bytes; past that its query fails with a clear error.
    A result body past `max_bytes` is refused in the worker (ResultTooLarge), before it is sent.
    A worker found dead (killed from outside) is dropped and a fresh one answers; one that dies
    while answering is replaced at once, its query failing as `worker_lost` says.
    """

    def __init__(
        self,
        store: Path,
        timeout: float,
        max_results: int,
        prefixes: Mapping[str, str],
        workers: int = DEFAULT_WORKERS,
        memory: int = WORKER_MEMORY_BYTES,
        max_bytes: int | None = None,
    ) -> None:
        self.store = store
        self.timeout = timeout
        self.max_results = max_results
        self.max_bytes = max_bytes
        self.prefixes = dict(prefixes)
        self.workers = workers
        self.memory = memory
        self._cond = threading.Condition()
        self._idle: list[_Worker] = []
        self._busy = 0  # workers answering a query (or being started for one)
        self._starting = 0  # workers being started for the idle list
        self._closed = False

    def query(self, text: str, accept: str | None = None) -> tuple[str, str]:
        """(body, media type) of a query's result, or the error its worker reported."""
        worker = self._acquire()
        healthy = False
        try:
            reply = self._ask(worker, text, accept)
            healthy = reply[1] != EXHAUSTED
        finally:
            self._release(worker, healthy)
        return _unpack(reply)

    def warm(self) -> None:
        """Start every worker now (in parallel) and wait until they have opened the store."""
        with self._cond:
            missing = max(self.workers - self._busy - len(self._idle) - self._starting, 0)
            self._starting += missing
        started = []
        for _ in range(missing):
            try:
                started.append(self._start())
            except Exception:
                log.exception("a SPARQL worker could not be started")
                with self._cond:
                    self._starting -= 1
                    self._cond.notify_all()
        for worker in started:
            self._adopt(worker)

    def ready_workers(self) -> int:
        """How many workers are started and idle (ready for a query)."""
        with self._cond:
            return len(self._idle)

    def _ask(self, worker: _Worker, text: str, accept: str | None) -> tuple[Any, ...]:
        try:
            worker.conn.send((text, accept))
            if not worker.conn.poll(self.timeout):
                raise QueryStopped(
                    f"the query was stopped after {self.timeout:g} s (sparql_timeout); "
                    "narrow the pattern or add a LIMIT"
                )
            reply: tuple[Any, ...] = worker.conn.recv()
        except (EOFError, OSError):
            worker.process.join(1)
            raise worker_lost(worker.process.exitcode) from None
        return reply

    def _acquire(self) -> _Worker:
        """An idle worker, or a new one when there is room; EndpointBusy after `timeout` s."""
        deadline = time.monotonic() + self.timeout
        with self._cond:
            while True:
                if self._closed:
                    raise EndpointBusy("the SPARQL endpoint is shutting down")
                if self._busy < self.workers and self._idle:
                    worker = self._idle.pop()
                    if not worker.process.is_alive():  # killed while idle: start a fresh one
                        _drop_dead(worker)
                        continue
                    self._busy += 1
                    return worker
                if self._busy + len(self._idle) + self._starting < self.workers:
                    self._busy += 1
                    break
                remaining = deadline - time.monotonic()
                if remaining <= 0 and self._busy == 0 and self._starting:
                    raise EndpointBusy(
                        "the SPARQL workers are still starting (the server has just started); "
                        "try again in a moment"
                    )
                if remaining <= 0:
                    raise EndpointBusy(
                        f"every SPARQL worker stayed busy for {self.timeout:g} s; try again later"
                    )
                self._cond.wait(remaining)
        try:
            worker = self._start()
            if not self._wait_ready(worker):
                raise EndpointBusy("a SPARQL worker could not start; try again later")
        except BaseException:
            with self._cond:
                self._busy -= 1
                self._cond.notify_all()
            raise
        return worker

    def _start(self) -> _Worker:
        """Spawn a worker process (without waiting for it).

        Forking is unsafe here: the server has threads (torch/OpenMP, the thread pool) whose locks
        a forked child inherits held. A spawned worker is a fresh interpreter that opens the store
        itself and says when it is ready.
        """
        context = multiprocessing.get_context("spawn")
        mine, theirs = context.Pipe()
        process = context.Process(
            target=_serve,
            args=(
                theirs,
                str(self.store),
                self.prefixes,
                self.max_results,
                self.memory,
                self.max_bytes,
            ),
            name="sparql-worker",
            daemon=True,
        )
        process.start()
        theirs.close()
        return _Worker(process, mine)

    def _wait_ready(self, worker: _Worker) -> bool:
        try:
            hello = worker.conn.recv() if worker.conn.poll(START_TIMEOUT) else None
        except (EOFError, OSError):
            hello = None
        if isinstance(hello, tuple) and hello[0] == READY:
            return True
        log.warning("a SPARQL worker could not start: %s", hello[1] if hello else "no answer")
        worker.stop()
        return False

    def _adopt(self, worker: _Worker) -> None:
        """Wait for a worker started for the idle list, and put it there."""
        ready = self._wait_ready(worker)
        with self._cond:
            self._starting -= 1
            keep = ready and not self._closed
            if keep:
                self._idle.append(worker)
            self._cond.notify_all()
        if ready and not keep:
            worker.stop()

    def _replace(self) -> None:
        try:
            worker = self._start()
        except Exception:
            log.exception("a SPARQL worker could not be started")
            with self._cond:
                self._starting -= 1
                self._cond.notify_all()
            return
        self._adopt(worker)

    def _release(self, worker: _Worker, healthy: bool) -> None:
        with self._cond:
            self._busy -= 1
            keep = healthy and not self._closed and worker.process.is_alive()
            if keep:
                self._idle.append(worker)
            replace = not keep and not self._closed
            if replace:
                self._starting += 1
            self._cond.notify_all()
        if not keep:
            worker.stop()
        if replace:
            threading.Thread(target=self._replace, name="sparql-worker-start", daemon=True).start()

    def close(self) -> None:
        """Stop the idle workers; busy ones stop when their query returns."""
        with self._cond:
            self._closed = True
            idle, self._idle = self._idle, []
            self._cond.notify_all()
        for worker in idle:
            worker.stop()
