"""The README stays true: its settings table and quick start match the code."""

from __future__ import annotations

from pathlib import Path

from kb.config import settings_table

README = (Path(__file__).resolve().parents[1] / "README.md").read_text("utf-8")


def test_settings_table_matches_the_settings() -> None:
    for env, default, help_ in settings_table():
        assert f"| `{env}` | `{default}` | {help_} |" in README, env


def test_quick_start_is_the_two_make_commands() -> None:
    assert "make run" in README and "make test" in README
