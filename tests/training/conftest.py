"""Fixtures of the training tests: every test that takes `database` runs on SQLite (a file under
tmp_path) and on a real PostgreSQL server started once per session; a fixed clock."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

from kb.errors import InvalidQuery
from kb.training.database import Database, database_url
from kb.training.service import TrainingService
from training.bank import small_bank  # type: ignore[import-not-found]
from training.postgres import fresh_database, postgres_server  # type: ignore[import-not-found]

FORMATS = ("edison", "general", "tag")
_names = itertools.count()


class FixedClock:
    """UTC now, moved by hand."""

    def __init__(self) -> None:
        self.now = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


@pytest.fixture(scope="session")
def postgres_base() -> Iterator[str]:
    with postgres_server() as base:
        yield base


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url_for_test(request: pytest.FixtureRequest, tmp_path) -> str:  # type: ignore[no-untyped-def]
    if request.param == "sqlite":
        return database_url(None, tmp_path)
    base = request.getfixturevalue("postgres_base")
    return database_url(fresh_database(base, f"training_{next(_names)}"), tmp_path)


@pytest.fixture
def database(database_url_for_test: str) -> Iterator[Database]:
    db = Database(database_url_for_test)
    yield db
    db.dispose()


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock()


def check_format(value: str | None) -> str | None:
    if value is not None and value not in FORMATS:
        raise InvalidQuery("format", f"unknown format {value!r}")
    return value


@pytest.fixture
def training(database: Database, clock: FixedClock) -> TrainingService:
    bank = small_bank()
    return TrainingService(lambda: bank, "build-1", check_format, database, clock)
