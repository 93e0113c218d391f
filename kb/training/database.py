"""The training database: an engine for a URL (SQLite in the data directory by default,
PostgreSQL by `YGO_DATABASE_URL`), migrations applied in one transaction, transactions per call,
and backups. Database failures become `DatabaseUnavailable` (503 on training routes only)."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DataError, DBAPIError, IntegrityError, ProgrammingError
from sqlalchemy.orm import Session, sessionmaker

from kb.errors import DatabaseUnavailable, InvalidQuery

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
SQLITE_FILE = "training.sqlite3"
BUSY_TIMEOUT_MS = 10000
# How long a SQLite transaction waits for the ones before it in this process (they run one at a
# time: each begins IMMEDIATE, taking the write lock).
QUEUE_TIMEOUT_S = 60.0
MIGRATION_LOCK = 2028  # the PostgreSQL advisory lock held while migrating


def database_url(url: str | None, data_dir: Path) -> str:
    """The SQLAlchemy URL of `url` (`postgresql://…` runs on psycopg 3), or the SQLite file in
    the data directory when none is given."""
    if not url:
        return f"sqlite:///{(data_dir / SQLITE_FILE).resolve()}"
    for scheme in ("postgresql://", "postgres://"):
        if url.startswith(scheme):
            return "postgresql+psycopg://" + url[len(scheme) :]
    return url


def _sqlite_pragmas(engine: Engine) -> None:
    """WAL, foreign keys, a busy timeout; and transactions the driver leaves to SQLAlchemy, so
    DDL (a migration) is transactional too: all of it applies or none."""

    @event.listens_for(engine, "connect")
    def connect(dbapi_connection: Any, _: Any) -> None:
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        if engine.url.database not in (None, "", ":memory:"):
            cursor.execute("PRAGMA journal_mode = WAL")
            cursor.execute("PRAGMA synchronous = FULL")
        cursor.execute("PRAGMA foreign_keys = ON")
        cursor.close()

    @event.listens_for(engine, "begin")
    def begin(connection: Any) -> None:
        connection.exec_driver_sql("BEGIN IMMEDIATE")


class Database:
    """One training database: `migrate()` once, then `transaction()` per service call."""

    def __init__(self, url: str) -> None:
        self.url = make_url(url)
        options: dict[str, Any] = {"pool_pre_ping": True}
        if self.url.get_backend_name() == "sqlite":
            options["connect_args"] = {"check_same_thread": False}
            if self.url.database not in (None, "", ":memory:"):
                Path(self.url.database or "").parent.mkdir(parents=True, exist_ok=True)
        self.engine = create_engine(self.url, **options)
        if self.url.get_backend_name() == "sqlite":
            _sqlite_pragmas(self.engine)
        self.sessions = sessionmaker(self.engine, expire_on_commit=False)
        self._migrated = False
        self._lock = threading.Lock()
        # SQLite takes one writer at a time and lets the others retry until the busy timeout,
        # unfairly: under many concurrent requests on a slow disk one could wait past it and
        # fail. This process's transactions queue here instead (in turn, none refused), and the
        # busy timeout is left to the few other processes (a server's workers).
        self._turn: threading.Lock | None = threading.Lock() if self.backend == "sqlite" else None

    @property
    def backend(self) -> str:
        return self.url.get_backend_name()

    def describe(self) -> str:
        """The URL without its password (for messages and `db` commands)."""
        return self.url.render_as_string(hide_password=True)

    def migrate(self) -> str:
        """Apply every migration not yet applied, all in one transaction; the revision now."""
        config = Config()
        config.set_main_option("script_location", str(MIGRATIONS))
        with self._lock, self.unavailable_as_error(), self.engine.begin() as connection:
            if self.backend == "postgresql":  # servers starting together migrate one at a time
                connection.exec_driver_sql(f"SELECT pg_advisory_xact_lock({MIGRATION_LOCK})")
            config.attributes["connection"] = connection
            head = ScriptDirectory.from_config(config).get_current_head()
            current = MigrationContext.configure(connection).get_current_revision()
            known = {s.revision for s in ScriptDirectory.from_config(config).walk_revisions()}
            if current is not None and current not in known:
                raise DatabaseUnavailable(
                    f"the training database is at revision {current!r}, which this version does "
                    f"not know (it knows up to {head!r}): a newer ygo-rulings migrated it"
                )
            if current != head:
                command.upgrade(config, "head")
            self._migrated = True
            return str(head)

    def ensure_migrated(self) -> None:
        if not self._migrated:
            self.migrate()

    @contextmanager
    def transaction(self) -> Iterator[Session]:
        """A session in one transaction: committed when the block ends, rolled back on any
        error (nothing half-written); a database that cannot be reached is DatabaseUnavailable."""
        self.ensure_migrated()
        with self._in_turn(), self.unavailable_as_error(), self.sessions.begin() as session:
            yield session

    @contextmanager
    def _in_turn(self) -> Iterator[None]:
        if self._turn is None:
            yield
            return
        if not self._turn.acquire(timeout=QUEUE_TIMEOUT_S):
            raise DatabaseUnavailable(
                f"the training database ({self.backend}) cannot be used: this process's "
                f"transactions queued for more than {QUEUE_TIMEOUT_S:g} s"
            )
        try:
            yield
        finally:
            self._turn.release()

    @contextmanager
    def unavailable_as_error(self) -> Iterator[None]:
        """Failures of the database itself (refused, lost, locked past the busy timeout, not a
        database file) as DatabaseUnavailable; errors of a request (a constraint) pass through."""
        try:
            yield
        except DBAPIError as exc:
            if isinstance(exc, IntegrityError | ProgrammingError | DataError):
                raise
            reason = str(exc.orig).strip().splitlines()[0] if exc.orig else type(exc).__name__
            raise DatabaseUnavailable(
                f"the training database ({self.backend}) cannot be used: {reason}"
            ) from exc

    def backup(self, target: Path) -> Path:
        """A consistent copy of the SQLite database at `target` (SQLite's online backup: safe
        while the server writes). Other databases have their own tools (pg_dump)."""
        if self.backend != "sqlite" or self.url.database in (None, "", ":memory:"):
            raise InvalidQuery(
                "database",
                f"backup copies a SQLite file; {self.describe()} is not one (use pg_dump "
                "for PostgreSQL)",
            )
        if target.exists():
            raise InvalidQuery("target", f"{target} exists; name a new file")
        self.ensure_migrated()
        target.parent.mkdir(parents=True, exist_ok=True)
        source = sqlite3.connect(str(self.url.database))
        try:
            copy = sqlite3.connect(str(target))
            with copy:
                source.backup(copy)
            copy.close()
        finally:
            source.close()
        return target

    def dispose(self) -> None:
        self.engine.dispose()
