"""kill -9 of the real server during 1,000 concurrent answer submissions loses no acknowledged
answer. `ygo-rulings serve` (one worker, or a supervisor and two forked workers) on a fresh
training database (SQLite in its data directory, or a real PostgreSQL server); 20 trainees with a
practice session of 50 questions each hold 1,000 distinct answers; 24 threads submit them; once
400 are acknowledged (a 200), the server and its workers are killed with SIGKILL while the rest
are in flight. Restarted on the same data directory and database, every acknowledged answer is
in its trainee's history, each recorded answer is whole (its review state was written with it,
SQLite's integrity check passes), and every answer that was not recorded can still be submitted
once, and only once."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import sqlite3
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests_support import running_server  # type: ignore[import-not-found]

from training.postgres import fresh_database  # type: ignore[import-not-found]

REPO = Path(__file__).resolve().parents[2]
TRAINEES = 20
PER_SESSION = 50  # the most a practice session draws
KILL_AFTER = 400  # acknowledgements before the kill
THREADS = 24


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def _parent(pid: int) -> int:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except OSError:
        return 0


def _serving(data: Path) -> list[int]:
    """Every process of the server on `data`: the `serve` process (the supervisor with two
    workers) and all it forked, workers and multiprocessing helpers alike."""
    pids = [int(e.name) for e in Path("/proc").iterdir() if e.name.isdigit()]
    tops = [p for p in pids if f"serve --data {data} " in _cmdline(p)]
    tops = [p for p in tops if _parent(p) not in tops]
    assert len(tops) == 1, f"serve processes: {tops}"
    family, grown = set(tops), True
    while grown:
        more = {p for p in pids if _parent(p) in family} - family
        family |= more
        grown = bool(more)
    return [tops[0], *sorted(family - {tops[0]})]  # the supervisor first: it respawns nothing


def _kill_9(pids: list[int]) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while any(_alive(p) for p in pids):
        assert time.monotonic() < deadline, "a server process survived SIGKILL"
        time.sleep(0.01)


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture(params=["sqlite", "postgresql"])
def backend(request: pytest.FixtureRequest) -> dict[str, str]:
    """The server's environment for the training database: none (SQLite in the data
    directory) or YGO_DATABASE_URL naming a fresh database on the session's PostgreSQL."""
    if request.param == "sqlite":
        return {"YGO_DATABASE_URL": ""}
    base = request.getfixturevalue("postgres_base")
    return {"YGO_DATABASE_URL": fresh_database(base, f"kill_{os.getpid()}_{time.time_ns()}")}


@pytest.mark.e2e
@pytest.mark.parametrize("workers", [1, 2])
def test_kill_9_of_the_server_loses_no_acknowledged_answer(
    workers: int,
    backend: dict[str, str],
    lite_built: Any,
    lite_corpus: Path,
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"  # a copy of the session build; a fresh training database
    # The session build's own training database (another test may have made one there) is
    # left behind: this server starts on a fresh one.
    shutil.copytree(
        lite_built.data_dir, data, symlinks=True, ignore=shutil.ignore_patterns("training.sqlite3*")
    )
    assert not (data / "training.sqlite3").exists()
    env = {"PYTHONPATH": str(REPO), **backend}  # this checkout's code
    acked: set[tuple[str, str, str]] = set()
    lock = threading.Lock()
    killed = threading.Event()

    with running_server(data, extra_env=env, workers=workers, corpus=lite_corpus) as base:
        with httpx.Client(base_url=base, timeout=30) as http:
            plan: list[tuple[str, str, str]] = []  # (token, session id, question id)
            for _ in range(TRAINEES):
                token = http.post("/trainees", json={}).json()["token"]
                r = http.post("/practice", json={"n": PER_SESSION}, headers=_auth(token))
                assert r.status_code == 201, r.text[:300]
                session = r.json()
                plan += [(token, session["id"], q["id"]) for q in session["questions"]]
        assert len(plan) == len(set(plan)) == TRAINEES * PER_SESSION
        victims = _serving(data)
        assert len(victims) >= workers

        # One client per thread: a connection that breaks mid-request is that thread's alone.
        local = threading.local()

        def submit(item: tuple[str, str, str]) -> None:
            token, session_id, qid = item
            if killed.is_set():
                return  # the server is gone: no need to wait for refusals
            if not hasattr(local, "http"):
                local.http = httpx.Client(base_url=base, timeout=30)
            try:
                r = local.http.post(
                    f"/practice/{session_id}/answers",
                    json={"question_id": qid, "answer": 1},
                    headers=_auth(token),
                )
            except httpx.HTTPError:
                return  # no acknowledgement
            if not r.is_success:
                assert killed.is_set(), r.text[:300]  # before the kill, every answer is taken
                return
            with lock:
                acked.add(item)
                if len(acked) == KILL_AFTER:
                    killed.set()
                    _kill_9(victims)

        started = time.monotonic()
        with ThreadPoolExecutor(THREADS) as pool:
            list(pool.map(submit, plan))
        assert killed.is_set(), f"only {len(acked)} answers acknowledged"
        print(f"{len(acked)} acknowledged in {time.monotonic() - started:.1f} s before the kill")

    # The same data directory and database: a second server, the first one's state on disk.
    if not backend["YGO_DATABASE_URL"]:
        path = data / "training.sqlite3"
        assert path.exists()  # the server's database was this file
        with sqlite3.connect(path) as conn:  # the WAL is recovered by this first connection
            assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    with (
        running_server(data, extra_env=env, workers=workers, corpus=lite_corpus) as base,
        httpx.Client(base_url=base, timeout=30) as http,
    ):
        recorded = _recorded(http, plan)
        assert acked <= recorded, f"{len(acked - recorded)} acknowledged answers lost"
        print(f"{len(acked)} acknowledged, {len(recorded)} recorded, of {len(plan)}")

        # Nothing half-written: what was not recorded can be answered now, once; what was
        # recorded is refused as answered twice.
        def again(item: tuple[str, str, str]) -> None:
            token, session_id, qid = item
            r = http.post(
                f"/practice/{session_id}/answers",
                json={"question_id": qid, "answer": 1},
                headers=_auth(token),
            )
            if item in recorded:
                assert r.status_code == 409, (item, r.text[:300])
            else:
                assert r.is_success, (item, r.text[:300])

        with ThreadPoolExecutor(8) as pool:
            list(pool.map(again, plan))
        assert _recorded(http, plan) == set(plan)


def _recorded(http: httpx.Client, plan: list[tuple[str, str, str]]) -> set[tuple[str, str, str]]:
    """The planned answers in the trainees' histories, each checked whole: one answer per
    question, with every field, and the review state written in its transaction."""
    sessions = {token: session_id for token, session_id, _ in plan}
    questions = {(token, qid) for token, _, qid in plan}
    out: set[tuple[str, str, str]] = set()
    for token, session_id in sessions.items():
        r = http.get("/history", headers=_auth(token))
        assert r.status_code == 200, r.text
        history = r.json()
        answered = [a["question_id"] for a in history["answers"]]
        assert len(answered) == len(set(answered)), "an answer recorded twice"
        for a in history["answers"]:
            assert (token, a["question_id"]) in questions, a
            assert a["session"] == "practice" and a["given"] is not None, a
            assert a["answered_at"] and a["fingerprint"] and a["build_id"], a
        reviewed = {rv["question_id"] for rv in history["reviews"]}
        assert reviewed == set(answered), "an answer without its review state, or the reverse"
        out |= {(token, session_id, q) for q in answered}
    progress = [http.get("/progress", headers=_auth(t)).json()["answers"] for t in sessions]
    assert sum(progress) == len(out)
    return out
