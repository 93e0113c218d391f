"""Reasoners read the typed question, not its text: no regular expressions under kb/reason and
no read of a question's raw text (`q.text`, `q.folded`).

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


RAW = frozenset({"text", "folded"})  # the question's own words, which kb/reading reads


def _raw_reads(path: Path) -> list[str]:
    """`q.text` / `q.folded` in the functions of a module whose parameter `q` is a Question."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for fn in ast.walk(tree):
        if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        questions = {
            a.arg
            for a in [*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs]
            if a.annotation is not None and ast.unparse(a.annotation).strip("'\"") == "Question"
        }
        for node in ast.walk(fn):
            if (
                isinstance(node, ast.Attribute)
                and node.attr in RAW
                and isinstance(node.value, ast.Name)
                and node.value.id in questions
            ):
                found.append(f"{path.name}:{node.lineno} {node.value.id}.{node.attr}")
    return found


def test_reasoners_read_no_question_text() -> None:
    reads = [r for p in sorted(REASON.glob("*.py")) for r in _raw_reads(p)]
    assert not reads, f"kb/reason reads the question's raw text: {reads}"


def test_the_check_sees_a_text_read(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text(
        "def f(kg, q: Question) -> int:\n    return len(q.text) + len(q.folded)\n",
        encoding="utf-8",
    )
    assert len(_raw_reads(probe)) == 2
    probe.write_text("def f(node) -> str:\n    return node.text\n", encoding="utf-8")
    assert _raw_reads(probe) == []
