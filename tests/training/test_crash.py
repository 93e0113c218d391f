"""kill -9 during concurrent answers loses no acknowledged answer: a writer process records
answers from 8 threads and acknowledges each after its commit; it is killed with SIGKILL once
it has acknowledged 1,000; every acknowledged answer is in the database, and the database
still opens and takes answers (on SQLite in WAL mode and on PostgreSQL)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from sqlalchemy import select

from kb.training.database import Database
from kb.training.tables import AnswerRow

REPO = Path(__file__).resolve().parents[2]
ACKS = 1000
TIMEOUT = 120


def test_kill_9_loses_no_acknowledged_answer(database_url_for_test: str) -> None:
    env = {**os.environ, "PYTHONPATH": f"{REPO}{os.pathsep}{REPO / 'tests'}"}
    writer = subprocess.Popen(
        [
            sys.executable,
            str(Path(__file__).with_name("crash_writer.py")),
            database_url_for_test,
            "8",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    acked: set[tuple[str, str]] = set()
    deadline = time.monotonic() + TIMEOUT
    try:
        assert writer.stdout is not None
        for line in writer.stdout:
            _, session, question = line.split()
            acked.add((session, question))
            if len(acked) >= ACKS or time.monotonic() > deadline:
                break
    finally:
        writer.send_signal(signal.SIGKILL)
        writer.wait(timeout=30)
    assert len(acked) >= ACKS, writer.stderr.read() if writer.stderr else ""
    db = Database(database_url_for_test)
    with db.transaction() as s:
        stored = {(a.session_id, a.question_id) for a in s.execute(select(AnswerRow)).scalars()}
    assert acked <= stored  # nothing acknowledged is lost (more may have committed unseen)
    db.migrate()
    db.dispose()
