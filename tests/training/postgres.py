"""A real PostgreSQL server for the training tests: Debian's binaries (/usr/lib/postgresql/*/bin),
a throwaway cluster under a temporary directory, on a free loopback port, stopped at the end.
As root the server runs as the `postgres` user (PostgreSQL refuses root)."""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

START_TIMEOUT = 60


def missing(reason: str) -> None:
    """Fail in CI (PostgreSQL must not be skipped silently there), skip on a developer machine."""
    hint = f"{reason}: apt-get install -y postgresql"
    if os.environ.get("CI"):
        pytest.fail(hint)
    pytest.skip(hint)


def pg_bin() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"))
    return Path(found[-1]).parent if found else None


def as_server_user(args: list[str]) -> list[str]:
    if os.geteuid() == 0:
        return ["runuser", "-u", "postgres", "--", *args]
    return args


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def postgres_server() -> Iterator[str]:
    """A running server; yields its base URL `postgresql://postgres@127.0.0.1:PORT`."""
    bin_dir = pg_bin()
    if bin_dir is None:
        missing("PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/pg_ctl)")
        raise AssertionError  # unreachable: missing() skips or fails
    if os.geteuid() == 0 and shutil.which("runuser") is None:
        missing("running as root without runuser to start PostgreSQL as postgres")
    root = Path(tempfile.mkdtemp(prefix="ygo-pg-"))
    if os.geteuid() == 0:
        shutil.chown(root, "postgres")
    data, port = root / "db", free_port()
    try:
        init = subprocess.run(
            as_server_user(
                [
                    *(str(bin_dir / "initdb"), "-D", str(data), "-A", "trust"),
                    *("-U", "postgres", "-E", "UTF8", "--no-sync"),
                ]
            ),
            capture_output=True,
            text=True,
            timeout=START_TIMEOUT,
        )
        if init.returncode != 0:
            missing(f"initdb failed: {init.stderr.strip()[-300:]}")
        options = f"-p {port} -k {root} -c listen_addresses=127.0.0.1 -c fsync=off"
        start = subprocess.run(
            as_server_user(
                [
                    *(str(bin_dir / "pg_ctl"), "-D", str(data), "-o", options, "-w"),
                    *("-t", str(START_TIMEOUT), "-l", str(root / "log"), "start"),
                ]
            ),
            capture_output=True,
            text=True,
            timeout=START_TIMEOUT + 10,
        )
        if start.returncode != 0:
            log = (
                (root / "log").read_text(errors="replace")[-300:] if (root / "log").exists() else ""
            )
            missing(f"PostgreSQL did not start: {start.stderr.strip()[-200:]} {log}")
        yield f"postgresql://postgres@127.0.0.1:{port}"
    finally:
        if data.exists():
            subprocess.run(
                as_server_user(
                    [str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"]
                ),
                capture_output=True,
                timeout=START_TIMEOUT,
            )
        shutil.rmtree(root, ignore_errors=True)


def fresh_database(base: str, name: str) -> str:
    """A new empty database on the server; its URL."""
    import psycopg

    deadline = time.monotonic() + 10
    while True:
        try:
            with psycopg.connect(f"{base}/postgres", autocommit=True) as conn:
                conn.execute(f'CREATE DATABASE "{name}"')
            return f"{base}/{name}"
        except psycopg.OperationalError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)
