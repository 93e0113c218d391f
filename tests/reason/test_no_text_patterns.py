"""Reasoners read the typed question, not its text: no regular expressions under kb/reason.

What a question says is read once, by kb/reading (its senses, amounts, clauses and mentions);
reasoners ask that reading and traverse the graph."""

from __future__ import annotations

import ast
from pathlib import Path

REASON = Path(__file__).resolve().parents[2] / "kb" / "reason"


def _imports_re(path: Path) -> bool:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import) and any(a.name == "re" for a in node.names):
            return True
        if isinstance(node, ast.ImportFrom) and node.module == "re":
            return True
    return False


def test_reasoners_import_no_re() -> None:
    patterned = sorted(p.name for p in REASON.glob("*.py") if _imports_re(p))
    assert not patterned, f"pattern matching in kb/reason: {patterned}"


def test_the_check_sees_an_import(tmp_path: Path) -> None:
    """The check can fail: a module importing re, either way, is seen."""
    for source in ("import re\n", "from re import compile\n", "import os, re\n"):
        probe = tmp_path / "probe.py"
        probe.write_text(source, encoding="utf-8")
        assert _imports_re(probe), source
