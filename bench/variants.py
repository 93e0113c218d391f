"""Corpus variants the quality bench measures beside today's build.

- ``documents-alone``: the corpus as a new user would bring it — the documents and their manifest
  rows only: no curated claims (``claims/``) and no bespoke parser (the ``parser:`` key of each
  manifest row is dropped). Cards, glossary and formats stay: they are the KB's vocabulary, not
  knowledge about one document.
- ``newdoc:<folder>``: today's corpus plus one document added with its manifest row alone (a
  folder of ``tests/fixtures/newdocs`` holding ``<id>.txt``, ``manifest_entry.yaml`` and
  ``questions.jsonl``).

Each variant is written to a folder of its own (a fresh copy each time), with its own data
directory sharing the prepared model of the main one by a symbolic link.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
NEWDOCS = REPO / "tests" / "fixtures" / "newdocs"


@dataclass(frozen=True)
class Variant:
    name: str
    corpus_dir: Path
    data_dir: Path


def _manifest(corpus: Path) -> dict[str, object]:
    loaded = yaml.safe_load((corpus / "manifest.yaml").read_text(encoding="utf-8"))
    assert isinstance(loaded, dict)
    return loaded


def _write_manifest(corpus: Path, manifest: dict[str, object]) -> None:
    text = yaml.safe_dump(manifest, allow_unicode=True, sort_keys=False)
    (corpus / "manifest.yaml").write_text(text, encoding="utf-8")


def documents_only(source: Path, target: Path) -> None:
    """Copy `source` into `target` without curated claims and without bespoke parsers."""
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("claims"))
    manifest = _manifest(target)
    docs = manifest.get("documents")
    assert isinstance(docs, list)
    manifest["documents"] = [{k: v for k, v in d.items() if k != "parser"} for d in docs]
    _write_manifest(target, manifest)


def with_new_document(source: Path, target: Path, folder: Path) -> None:
    """Copy `source` into `target` and add the document of `folder` by its manifest row alone."""
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(source, target)
    entries = yaml.safe_load((folder / "manifest_entry.yaml").read_text(encoding="utf-8"))
    assert isinstance(entries, list) and len(entries) == 1, folder
    entry = entries[0]
    shutil.copyfile(folder / entry["file"], target / entry["file"])
    manifest = _manifest(target)
    docs = manifest.get("documents")
    assert isinstance(docs, list)
    docs.append(entry)
    _write_manifest(target, manifest)


def new_documents() -> list[Path]:
    """The folders of real documents kept for the new-document measure."""
    if not NEWDOCS.is_dir():
        return []
    return sorted(p for p in NEWDOCS.iterdir() if (p / "manifest_entry.yaml").is_file())


def prepare(name: str, corpus: Path, data: Path) -> Variant:
    """Write the variant `name` next to the data directory `data` and return where it lives."""
    root = data / "variants" / name.replace(":", "-")
    corpus_dir, data_dir = root / "corpus", root / "data"
    if name == "documents-alone":
        documents_only(corpus, corpus_dir)
    elif name.startswith("newdoc:"):
        folder = NEWDOCS / name.split(":", 1)[1]
        if not folder.is_dir():
            raise SystemExit(f"error: no new document folder {folder}")
        with_new_document(corpus, corpus_dir, folder)
    else:
        raise SystemExit(f"error: unknown variant {name!r}: documents-alone or newdoc:<folder>")
    data_dir.mkdir(parents=True, exist_ok=True)
    models = data_dir / "models"
    if not models.exists():
        models.symlink_to((data / "models").resolve(), target_is_directory=True)
    return Variant(name, corpus_dir, data_dir)
