"""The generic core knows no document by name: only the document registry (`ingest/documents/`)
names a document id or a format other than the base one; everything else finds rules through the
graph and reads formats from the manifest."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
REGISTRY = ROOT / "ingest" / "documents"


def _names() -> set[str]:
    manifest = yaml.safe_load((ROOT / "corpus" / "manifest.yaml").read_text("utf-8"))
    docs = {str(d["id"]) for d in manifest["documents"]}
    formats = {str(f["id"]) for f in manifest["formats"] if not f.get("base")}
    return docs | formats


def _docstrings(tree: ast.AST) -> set[int]:
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                out.add(id(body[0].value))
    return out


def offenders() -> list[str]:
    names = _names()
    pattern = re.compile(rf"(?<![\w-])({'|'.join(map(re.escape, sorted(names)))})(?![\w])", re.I)
    found = []
    for package in ("kb", "ingest", "api"):
        for path in sorted((ROOT / package).rglob("*.py")):
            if REGISTRY in path.parents:
                continue
            tree = ast.parse(path.read_text("utf-8"))
            docs = _docstrings(tree)
            for node in ast.walk(tree):
                if isinstance(node, ast.Constant) and isinstance(node.value, str):
                    if id(node) in docs:
                        continue
                    m = pattern.search(node.value)
                    if m:
                        found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {m.group(0)!r}")
                elif isinstance(node, ast.Name | ast.Attribute):
                    name = node.id if isinstance(node, ast.Name) else node.attr
                    m = pattern.search(name.replace("_", "-"))
                    if m:
                        found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {name}")
    return found


def test_no_module_outside_the_registry_names_a_document_or_format() -> None:
    assert offenders() == []


def test_the_check_would_catch_a_document_id(tmp_path: Path) -> None:
    names = _names()
    assert {"edison", "rulings", "tag"} <= names  # the check knows what to look for
    pattern = re.compile(rf"(?<![\w-])({'|'.join(map(re.escape, sorted(names)))})(?![\w])", re.I)
    assert pattern.search('RULE = "edison/rule-08"')
    assert not pattern.search("a tagline about staging")
