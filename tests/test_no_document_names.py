"""The generic core knows no document by name: only the document registry (`ingest/documents/`)
names a document id or a format other than the base one; everything else finds rules through the
graph and reads formats from the manifest."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
REGISTRY = ROOT / "ingest" / "documents"


def _manifest() -> dict[str, object]:
    loaded = yaml.safe_load((ROOT / "corpus" / "manifest.yaml").read_text("utf-8"))
    assert isinstance(loaded, dict)
    return loaded


def _ids() -> set[str]:
    """Document ids and the ids of every format but the base one."""
    manifest = _manifest()
    docs = {str(d["id"]) for d in manifest["documents"]}  # type: ignore[attr-defined]
    formats = {str(f["id"]) for f in manifest["formats"] if not f.get("base")}  # type: ignore[attr-defined]
    return docs | formats


def _labels() -> set[str]:
    """The names the manifest gives the formats with documents ("Edison", "Tag Duel")."""
    manifest = _manifest()
    out: set[str] = set()
    for f in manifest["formats"]:  # type: ignore[attr-defined]
        if f.get("base"):
            continue
        for key in ("label_pt", "label_en", "badge_pt", "badge_en"):
            if f.get(key):
                out.add(str(f[key]))
    return out


def pattern() -> re.Pattern[str]:
    """A document or format id used as an id (the whole string, or before `/`, `:`, `-rule`),
    or a format's name anywhere ("Formato Edison"). A document id that is also a plain word
    ("rulings") in prose is not an id."""
    ids = "|".join(map(re.escape, sorted(_ids(), key=len, reverse=True)))
    labels = "|".join(map(re.escape, sorted(_labels(), key=len, reverse=True)))
    return re.compile(
        rf"^(?:{ids})$|format/(?:{ids})\b|(?<![\w-])(?:{ids})(?=[/:]|-rule\b)|(?<![\w-])(?:{labels})(?![\w])",
        re.I,
    )


def _docstrings(tree: ast.AST) -> set[int]:
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                out.add(id(body[0].value))
    return out


def offenders() -> list[str]:
    """String constants (not docstrings) outside the registry that name a document or format."""
    found_in = pattern()
    found = []
    for package in ("kb", "ingest", "api", "bench"):
        for path in sorted((ROOT / package).rglob("*.py")):
            if REGISTRY in path.parents:
                continue
            tree = ast.parse(path.read_text("utf-8"))
            docs = _docstrings(tree)
            for node in ast.walk(tree):
                if isinstance(node, ast.Constant) and isinstance(node.value, str):
                    if id(node) in docs:
                        continue
                    m = found_in.search(node.value)
                    if m:
                        found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {m.group(0)!r}")
    return found


def test_no_module_outside_the_registry_names_a_document_or_format() -> None:
    assert offenders() == []


@pytest.mark.parametrize(
    ("text", "caught"),
    [
        ('"edison"', True),
        ("edison/rule-08", True),
        ("tag:basic-rules", True),
        ("No Formato Edison, ...", True),
        ("Tag Duel", True),
        ("edison-rule-05", True),
        ("Yu-Gi-Oh! rulings knowledge base", False),
        ("a tagline about staging", False),
        ("tag force", False),
        ("format/tag", True),
        ("concept/chain", False),
    ],
)
def test_the_check_tells_an_id_from_a_word(text: str, caught: bool) -> None:
    assert bool(pattern().search(text.strip('"'))) is caught
