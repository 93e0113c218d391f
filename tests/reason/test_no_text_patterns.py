"""Reasoners read the typed question, not its text: no regular expressions under kb/reason.

The reasoners written before the reader still match patterns; each leaves PATTERNED when it
reads the question's senses and roles instead, and the set may only shrink."""

from __future__ import annotations

import ast
from pathlib import Path

REASON = Path(__file__).resolve().parents[2] / "kb" / "reason"
PATTERNED = {"chain.py"}


def _imports_re(path: Path) -> bool:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import) and any(a.name == "re" for a in node.names):
            return True
        if isinstance(node, ast.ImportFrom) and node.module == "re":
            return True
    return False


def test_reasoners_import_no_re() -> None:
    patterned = {p.name for p in REASON.glob("*.py") if _imports_re(p)}
    assert patterned <= PATTERNED, f"new pattern matching in kb/reason: {patterned - PATTERNED}"


def test_the_patterned_list_only_shrinks() -> None:
    """A module that no longer imports re leaves PATTERNED."""
    patterned = {p.name for p in REASON.glob("*.py") if _imports_re(p)}
    assert patterned >= PATTERNED, f"leave PATTERNED: {PATTERNED - patterned}"
