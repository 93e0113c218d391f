"""Serving from several processes: `serve --workers N` runs N uvicorn workers on one socket.

uvicorn's supervisor spawns each worker (a fresh interpreter) and imports `worker_app` there, so the
settings travel in one environment variable (`SETTINGS_ENV`: every setting as its `YGO_*` string,
as JSON) and each worker builds its own app from them. Every worker opens the same read-only build:
the artifact, the Oxigraph store (opened read-only) and the memory-mapped passage embeddings, whose
pages the processes share. Only the first worker to start builds what is missing (KB, embedding
cache, store); the others wait on a lock file in the data directory and then just load.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import os
import socket
from collections.abc import Iterator
from dataclasses import fields
from pathlib import Path

from fastapi import FastAPI

from kb.config import ENV_PREFIX, Settings

SETTINGS_ENV = "YGO_SERVE_SETTINGS"
LOCK_FILE = ".serve.lock"

log = logging.getLogger(__name__)


def worker_count(requested: int) -> int:
    """The number of server processes: `requested`, or one per CPU this process may use."""
    if requested < 0:
        raise ValueError(f"workers must be 0 (one per CPU core) or more, got {requested}")
    if requested:
        return requested
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def check_serving(settings: Settings) -> int:
    """The worker count, once the settings a worker would only reject after loading are sound."""
    if settings.answer_cache < 0:
        raise ValueError(f"answer cache size must be 0 or more, got {settings.answer_cache}")
    return worker_count(settings.workers)


def encode_settings(settings: Settings) -> str:
    """The settings as JSON of their `YGO_*` environment strings (unset ones left out)."""
    values = {
        ENV_PREFIX + f.name.upper(): str(getattr(settings, f.name))
        for f in fields(settings)
        if getattr(settings, f.name) is not None
    }
    return json.dumps(values)


def decode_settings(raw: str) -> Settings:
    """The settings `encode_settings` wrote (read as the environment would be)."""
    values = json.loads(raw)
    if not isinstance(values, dict):
        raise ValueError(f"{SETTINGS_ENV} is not a JSON object")
    return Settings.from_env(environ={str(k): str(v) for k, v in values.items()})


@contextlib.contextmanager
def build_lock(data_dir: Path) -> Iterator[None]:
    """Hold the data directory's exclusive lock (one process builds while the others wait)."""
    data_dir.mkdir(parents=True, exist_ok=True)
    with open(data_dir / LOCK_FILE, "a+b") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def load_app(settings: Settings) -> FastAPI:
    """One worker's app: load (building first under the lock if needed) and wrap the service."""
    from api.app import create_app
    from api.runtime import load_runtime

    with build_lock(settings.data_dir):
        runtime = load_runtime(settings)
        if not settings.sparql_endpoint:
            runtime.service.sparql_endpoint()  # checks (or rebuilds) the store; starts nothing
    return create_app(runtime.service, stale_error=runtime.stale_error)


def serve_workers(count: int, host: str, port: int) -> None:
    """Run `count` uvicorn workers of `worker_app` on one listening socket, as
    `uvicorn.run("api.workers:worker_app", factory=True, workers=count)` does, but with the
    listening socket marked as TCP (`tcp_listener`)."""
    import uvicorn
    from uvicorn.supervisors import Multiprocess

    config = uvicorn.Config(
        "api.workers:worker_app",
        factory=True,
        workers=count,
        host=host,
        port=port,
        log_level="warning",
        timeout_worker_healthcheck=120,  # a worker that is still loading answers pings late
    )
    Multiprocess(config, sockets=[tcp_listener(config.bind_socket())]).run()


def tcp_listener(sock: socket.socket) -> socket.socket:
    """The same listening socket with its `proto` set to IPPROTO_TCP (a Unix socket unchanged).

    uvicorn binds the socket its workers share with `proto` 0; accepted connections copy the
    listener's `proto`, and asyncio turns TCP_NODELAY on only for IPPROTO_TCP sockets. With
    Nagle's algorithm left on, every keep-alive request after the first waited for the client's
    delayed ACK: ~42 ms on Linux, even for a 404 (uvicorn issue #3149). One worker never did:
    asyncio binds that socket itself, from getaddrinfo, with `proto` 6."""
    if sock.family not in (socket.AF_INET, socket.AF_INET6):
        return sock
    return socket.socket(sock.family, sock.type, socket.IPPROTO_TCP, fileno=sock.detach())


def worker_app() -> FastAPI:
    """The app factory uvicorn calls in each worker process (`api.workers:worker_app`)."""
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    raw = os.environ.get(SETTINGS_ENV)
    if raw is None:
        raise RuntimeError(f"{SETTINGS_ENV} is not set: start workers with `ygo-rulings serve`")
    return load_app(decode_settings(raw))
