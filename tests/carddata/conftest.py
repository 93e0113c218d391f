"""Fixtures of the card-data tests: a small corpus and card database of invented cards."""

from __future__ import annotations

from pathlib import Path

import pytest
from carddata_support import CURATED_YAML, write_sqlite  # type: ignore[import-not-found]


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    """A corpus folder whose curated table names two of the invented cards."""
    root = tmp_path / "corpus"
    root.mkdir()
    (root / "cards.yaml").write_text(CURATED_YAML, "utf-8")
    return root


@pytest.fixture
def sqlite_file(tmp_path: Path) -> Path:
    return write_sqlite(tmp_path / "cards.sqlite")
