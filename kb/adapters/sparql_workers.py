"""Sandboxed worker processes that answer SPARQL queries within a time bound.

Each worker is spawned (a fresh interpreter: forking a process with torch/OpenMP and server threads
can deadlock the child) and receives the RDF graph pickled; it answers
`kb.linked_data.sparql.execute` requests over a pipe, and is killed when a query overruns: a thread could not be
stopped. Inside a worker an audit hook refuses sockets, subprocesses, file writes and reads outside
Python's own code, and the address space is capped, so even a query the checks missed could not
reach outside the graph. A worker exits when its parent goes away. Linux/Unix only.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import resource
import signal
import sys
import sysconfig
import threading
from dataclasses import dataclass
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import Any

import rdflib
from rdflib import Graph

from kb.errors import KBError
from kb.linked_data.sparql import (
    EndpointBusy,
    MalformedQuery,
    NotAcceptable,
    QueryStopped,
    SparqlError,
    execute,
)

WORKER_MEMORY_BYTES = 1 << 30  # extra address space a worker may allocate for one query
DEFAULT_WORKERS = 2
EXHAUSTED = "exhausted"  # the reply kind after which a worker retires

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


def _detach_signals() -> None:
    """Forget the server's signal handling: default SIGTERM, ignore Ctrl-C, no wakeup fd."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with contextlib.suppress(ValueError):
        signal.set_wakeup_fd(-1)


def _serve(conn: Connection, graph: Graph, max_results: int, memory: int) -> None:
    """A worker: answer (text, accept) requests until the parent goes away.

    It leaves with os._exit, without the usual interpreter shutdown.
    """
    _detach_signals()
    _limit_memory(memory)
    install_sandbox()
    conn.send(READY)
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
        reply = _answer(graph, text, accept, max_results)
        conn.send(reply)
        if reply[1] == EXHAUSTED:  # a MemoryError may have left the heap fragmented: retire
            os._exit(0)


def _answer(graph: Graph, text: str, accept: str | None, max_results: int) -> tuple[Any, ...]:
    """A picklable reply: ("ok", body, media) or ("error", kind, constructor arguments)."""
    try:
        return ("ok", *execute(graph, text, accept, max_results))
    except MalformedQuery as exc:
        return ("error", "malformed", (exc.reason, exc.line, exc.column, exc.text_line))
    except NotAcceptable as exc:
        return ("error", "not-acceptable", (exc.accept, exc.offers))
    except SparqlError as exc:
        return ("error", "refused", (str(exc),))
    except MemoryError:
        return ("error", EXHAUSTED, ("the query needs more memory than a query may use",))
    except PermissionError as exc:
        return ("error", "refused", (f"the query tried to reach outside the graph: {exc}",))


REPLY_ERRORS: dict[str, type[KBError]] = {
    "malformed": MalformedQuery,
    "not-acceptable": NotAcceptable,
    "refused": SparqlError,
    EXHAUSTED: SparqlError,
}


def _unpack(reply: tuple[Any, ...]) -> tuple[str, str]:
    """The body and media type of an "ok" reply; an "error" reply raised as its exception."""
    if reply[0] == "ok":
        return reply[1], reply[2]
    _, kind, args = reply
    raise REPLY_ERRORS[kind](*args)


# --- the worker pool -------------------------------------------------------------------------


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


READY = "ready"
START_TIMEOUT = 60.0  # seconds a new worker may take to start and load the graph


class SparqlEndpoint:
    """Queries answered by worker processes holding `graph`, each stopped after `timeout` seconds.

    At most `workers` queries run at once; a request waits up to `timeout` seconds for a free
    worker (then EndpointBusy). A worker whose query overran is killed and replaced on demand.
    A worker may grow by `memory` bytes; past that its query fails with a clear error.
    """

    def __init__(
        self,
        graph: Graph,
        timeout: float,
        max_results: int,
        workers: int = DEFAULT_WORKERS,
        memory: int = WORKER_MEMORY_BYTES,
    ) -> None:
        self.graph = graph
        self.timeout = timeout
        self.max_results = max_results
        self.memory = memory
        self._slots = threading.BoundedSemaphore(workers)
        self._idle: list[_Worker] = []
        self._lock = threading.Lock()
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
            raise SparqlError(
                "the query stopped its worker (exit code "
                f"{worker.process.exitcode}); it may need too much memory"
            ) from None
        return reply

    def _acquire(self) -> _Worker:
        if not self._slots.acquire(timeout=self.timeout):
            raise EndpointBusy(
                f"every SPARQL worker stayed busy for {self.timeout:g} s; try again later"
            )
        with self._lock:
            if self._idle:
                return self._idle.pop()
        try:
            return self._fork()
        except BaseException:
            self._slots.release()
            raise

    def _fork(self) -> _Worker:
        """Start a worker with the *spawn* method and wait until it holds the graph.

        Forking is unsafe here: the server has threads (torch/OpenMP, the thread pool) whose locks
        a forked child inherits held. A spawned worker is a fresh interpreter that receives the
        graph pickled (about 0.4 s for this KB) and says when it is ready.
        """
        context = multiprocessing.get_context("spawn")
        mine, theirs = context.Pipe()
        process = context.Process(
            target=_serve,
            args=(theirs, self.graph, self.max_results, self.memory),
            name="sparql-worker",
            daemon=True,
        )
        process.start()
        theirs.close()
        worker = _Worker(process, mine)
        try:
            ready = mine.poll(START_TIMEOUT) and mine.recv() == READY
        except (EOFError, OSError):
            ready = False
        if not ready:
            worker.stop()
            raise SparqlError("a SPARQL worker could not start")
        return worker

    def _release(self, worker: _Worker, healthy: bool) -> None:
        with self._lock:
            keep = healthy and not self._closed and worker.process.is_alive()
            if keep:
                self._idle.append(worker)
        if not keep:
            worker.stop()
        self._slots.release()

    def close(self) -> None:
        """Stop the idle workers; busy ones stop when their query returns."""
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
        for worker in idle:
            worker.stop()
