"""The database edge: migrations match the models and apply all or nothing, an unreachable
database is DatabaseUnavailable (503 at the edge), backups, history export and import."""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect, text

from kb.errors import DatabaseUnavailable, InvalidQuery, Unauthorized
from kb.training.database import Database, database_url
from kb.training.schemas import AnswerRequest, History, NewTrainee, PracticeRequest
from kb.training.service import TrainingService
from kb.training.tables import Base


def test_migrations_build_what_the_models_declare(database: Database) -> None:
    assert database.migrate() == "0001"
    assert database.migrate() == "0001"  # idempotent
    with database.engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), Base.metadata)
    assert diff == []


def test_a_failing_migration_leaves_nothing_behind(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from kb.training import tables

    db = Database(database_url(None, tmp_path))
    real = tables.UTCDateTime.load_dialect_impl

    def broken(self, dialect):  # type: ignore[no-untyped-def]
        raise RuntimeError("power cut")

    monkeypatch.setattr(tables.UTCDateTime, "load_dialect_impl", broken)
    with pytest.raises(RuntimeError):
        db.migrate()
    monkeypatch.setattr(tables.UTCDateTime, "load_dialect_impl", real)
    with db.engine.connect() as conn:
        assert inspect(conn).get_table_names() == []
    assert db.migrate() == "0001"


def test_an_unknown_revision_is_refused(tmp_path: Path) -> None:
    db = Database(database_url(None, tmp_path))
    db.migrate()
    with db.engine.begin() as conn:
        conn.execute(text("UPDATE alembic_version SET version_num = '9999'"))
    again = Database(database_url(None, tmp_path))
    with pytest.raises(DatabaseUnavailable, match="9999"):
        again.migrate()


def test_an_unreachable_database_is_unavailable(tmp_path: Path) -> None:
    db = Database("postgresql+psycopg://nobody@127.0.0.1:1/none?connect_timeout=2")
    with pytest.raises(DatabaseUnavailable, match="postgresql"), db.transaction():
        pass
    locked = tmp_path / "ro"
    locked.mkdir()
    (locked / "training.sqlite3").write_bytes(b"not a database, just bytes" * 100)
    with pytest.raises(DatabaseUnavailable):
        Database(database_url(None, locked)).migrate()


def test_backup_is_a_consistent_copy(training: TrainingService, tmp_path: Path) -> None:
    token = training.create_trainee(NewTrainee()).token
    if training.db.backend != "sqlite":
        with pytest.raises(InvalidQuery, match="pg_dump"):
            training.db.backup(tmp_path / "copy.sqlite3")
        return
    target = training.db.backup(tmp_path / "copy.sqlite3")
    with sqlite3.connect(target) as conn:
        assert conn.execute("SELECT count(*) FROM trainees").fetchone() == (1,)
    with pytest.raises(InvalidQuery, match="exists"):
        training.db.backup(target)
    assert token


def test_history_round_trip(training: TrainingService) -> None:
    token = training.create_trainee(NewTrainee(name="Ana")).token
    session = training.start_practice(token, PracticeRequest(n=3))
    for q in session.questions:
        training.answer_practice(token, session.id, AnswerRequest(question_id=q.id, answer=1))
    history = training.export_history(token)
    assert len(history.answers) == 3 and len(history.reviews) == 3
    assert {a.session for a in history.answers} == {"practice"}
    data = history.model_dump(mode="json")
    other = training.create_trainee(NewTrainee()).token
    imported = training.import_history(other, History.model_validate(data))
    assert (imported.answers, imported.skipped, imported.reviews) == (3, 0, 3)
    again = training.import_history(other, History.model_validate(data))
    assert (again.answers, again.skipped, again.reviews) == (0, 3, 0)
    assert training.progress(other).model_dump() == {
        **training.progress(token).model_dump(),
        "name": None,
    }
    bad = {**data, "reviews": [{**data["reviews"][0], "card": {"state": "nonsense"}}]}
    with pytest.raises(InvalidQuery) as err:
        training.import_history(other, History.model_validate(bad))
    assert err.value.field == "reviews[0].card"
    with pytest.raises(Unauthorized):
        training.import_history("nope", History.model_validate(data))
    naive = {**data, "answers": [{**data["answers"][0], "answered_at": "2026-12-01T12:00:00"}]}
    with pytest.raises(ValueError, match="timezone"):
        History.model_validate(naive)
    assert training.progress(other).answers == 3  # the refused imports wrote nothing


def _contend(db: Database, threads: int = 12) -> list[str]:
    """`threads` transactions at once, each holding SQLite's write lock 30 ms: their failures."""
    failures: list[str] = []

    def one() -> None:
        try:
            with db.transaction() as s:
                s.execute(text("SELECT 1"))
                time.sleep(0.03)
        except DatabaseUnavailable as exc:
            failures.append(str(exc))

    workers = [threading.Thread(target=one) for _ in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(60)
    return failures


def test_a_processs_sqlite_transactions_queue_in_turn(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """With a busy timeout shorter than the queue, SQLite's own retries refuse some of many
    concurrent transactions ("database is locked"); queued in the process, none is refused."""
    monkeypatch.setattr("kb.training.database.BUSY_TIMEOUT_MS", 50)
    db = Database(database_url(None, tmp_path))
    db.migrate()
    assert _contend(db) == []
    unqueued = Database(database_url(None, tmp_path / "other"))
    unqueued._turn = None  # SQLite's retries alone
    assert any("database is locked" in f for f in _contend(unqueued))
