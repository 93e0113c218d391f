"""The on-disk artifact: atomic writes, verified loads, rebuilds, and a broken corpus never wins."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

import kb.store
from ingest.build import build_kb, ensure_kb
from ingest.corpus import corpus_hash
from kb.errors import ArtifactError, IngestError
from kb.graph import fact_from_record, fact_record, node_from_record, node_record
from kb.model import Fact, Node, Span
from kb.store import current_path, load_artifact, read_manifest, write_artifact

if TYPE_CHECKING:
    from conftest import Built


def tiny(text: str) -> tuple[list[Node], list[Fact], dict[str, str]]:
    nodes = [
        Node("d", "Document", label_pt="D", span=Span("d", 0, len(text))),
        Node("d/p-01", "Passage", text=text, span=Span("d", 0, len(text)), parent="d", order=1),
    ]
    facts = [Fact("d/p-01", "part_of", "d", "d/p-01", "document")]
    return nodes, facts, {"d": text}


def write(data: Path, text: str, corpus: str) -> Path:
    nodes, facts, docs = tiny(text)
    return write_artifact(data, nodes, facts, docs, corpus, {"note": text})


def build_id(data: Path) -> str:
    """The build `current` points to (from its manifest only: cheap)."""
    path = current_path(data)
    assert path is not None
    return read_manifest(path)["build_id"]


def temp_dirs(data: Path) -> list[str]:
    return sorted(p.name for p in (data / "builds").iterdir() if p.name.startswith(".tmp-"))


# --- write and load ----------------------------------------------------------------------------


def test_write_then_load_round_trips(tmp_path: Path) -> None:
    path = write(tmp_path, "Olá “mundo”", "hash-1")
    art = load_artifact(tmp_path, "hash-1")
    assert art.path == path == current_path(tmp_path)
    assert os.readlink(tmp_path / "current") == f"builds/{path.name}"  # relative: relocatable
    assert [n.id for n in art.graph.nodes] == ["d", "d/p-01"]
    assert art.graph.node("d/p-01").span == Span("d", 0, 11)
    assert art.documents == {"d": "Olá “mundo”"}
    assert art.manifest["corpus_hash"] == "hash-1" and art.manifest["note"] == "Olá “mundo”"
    assert set(art.manifest["files"]) == {"graph.json", "documents/d.txt"}
    assert temp_dirs(tmp_path) == []


def test_records_hold_every_field_and_read_back_equal() -> None:
    node = Node("d/p-01", "Passage", "P", "P", "t", Span("d", 0, 1), "d", 2, {"k": [1, {"x": 2}]})
    fact = Fact("a", "mentions", "b", "d/p-01", "document", {"score": [0.5]})
    assert node_record(node) == asdict(node) and fact_record(fact) == asdict(fact)
    assert node_from_record(node_record(node)) == node
    assert fact_from_record(fact_record(fact)) == fact


def test_same_content_gives_the_same_build(tmp_path: Path) -> None:
    first = write(tmp_path, "texto", "h")
    again = write(tmp_path, "texto", "h")
    assert first == again
    assert build_id(tmp_path) == first.name
    assert temp_dirs(tmp_path) == []


def test_old_builds_are_pruned_keeping_the_previous_one(tmp_path: Path) -> None:
    paths = []
    for i in range(4):
        paths.append(write(tmp_path, f"texto {i}", f"h{i}"))
        os.utime(paths[-1], (1_000_000 + i, 1_000_000 + i))  # distinct ages, however fast
    left = sorted(p.name for p in (tmp_path / "builds").iterdir())
    assert left == sorted(p.name for p in paths[-2:])


def test_abandoned_temporary_directories_do_not_displace_the_previous_build(
    tmp_path: Path,
) -> None:
    previous = write(tmp_path, "um", "h1")
    fresh = tmp_path / "builds" / ".tmp-running"
    old = tmp_path / "builds" / ".tmp-crashed"
    fresh.mkdir()
    old.mkdir()
    os.utime(old, (0, 0))
    latest = write(tmp_path, "dois", "h2")
    left = {p.name for p in (tmp_path / "builds").iterdir()}
    assert left == {previous.name, latest.name, fresh.name}


def _crash(*_args: object, **_kwargs: object) -> None:
    raise OSError("simulated crash")


@pytest.mark.parametrize(
    "target",
    ["_versions", "_sha", "_point_current", "os.fsync", "os.rename"],
)
def test_a_crash_mid_write_leaves_the_previous_build_current(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, target: str
) -> None:
    before = write(tmp_path, "versão 1", "h1")
    if target == "_sha":
        # Let graph.json be written and hashed, then fail on the first document.
        real = kb.store._sha
        calls = iter(range(100))

        def flaky(data: bytes) -> str:
            if next(calls) == 1:
                raise OSError("simulated crash")
            return real(data)

        monkeypatch.setattr(kb.store, "_sha", flaky)
    elif target.startswith("os."):
        monkeypatch.setattr(kb.store.os, target[3:], _crash)
    else:
        monkeypatch.setattr(kb.store, target, _crash)
    with pytest.raises(OSError, match="simulated crash"):
        write(tmp_path, "versão 2", "h2")
    monkeypatch.undo()
    assert current_path(tmp_path) == before
    art = load_artifact(tmp_path, "h1")
    assert art.documents == {"d": "versão 1"}
    assert temp_dirs(tmp_path) == []
    assert not list(tmp_path.glob(".current-*"))


def test_an_interrupt_mid_write_leaves_no_temporary_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = write(tmp_path, "versão 1", "h1")

    def interrupt() -> dict[str, str]:
        raise KeyboardInterrupt

    monkeypatch.setattr(kb.store, "_versions", interrupt)
    with pytest.raises(KeyboardInterrupt):
        write(tmp_path, "versão 2", "h2")
    assert current_path(tmp_path) == before
    assert temp_dirs(tmp_path) == []


# --- verification on load -----------------------------------------------------------------------


def test_missing_artifact(tmp_path: Path) -> None:
    with pytest.raises(ArtifactError, match="no built knowledge base"):
        load_artifact(tmp_path)


def test_flipped_byte_in_graph_is_corrupt(data_copy: Path) -> None:
    graph = data_copy / "current" / "graph.json"
    raw = bytearray(graph.read_bytes())
    raw[len(raw) // 2] ^= 0x01
    graph.write_bytes(bytes(raw))
    with pytest.raises(ArtifactError, match="corrupt"):
        load_artifact(data_copy)


def test_edited_document_copy_is_corrupt(data_copy: Path) -> None:
    doc = data_copy / "current" / "documents" / "edison.txt"
    doc.write_text(doc.read_text("utf-8").replace("Edison", "Edisom", 1), "utf-8")
    with pytest.raises(ArtifactError, match="corrupt"):
        load_artifact(data_copy)


def test_missing_artifact_file(data_copy: Path) -> None:
    (data_copy / "current" / "documents" / "tag.txt").unlink()
    with pytest.raises(ArtifactError, match="missing"):
        load_artifact(data_copy)


@pytest.mark.parametrize("content", ["{not json", '{"artifact_version": 999}'])
def test_unreadable_or_foreign_manifest(data_copy: Path, content: str) -> None:
    (data_copy / "current" / "manifest.json").write_text(content, "utf-8")
    with pytest.raises(ArtifactError, match="manifest"):
        load_artifact(data_copy)


def test_changed_corpus_hash_is_stale(built: Built, data_copy: Path, corpus_dir: Path) -> None:
    assert built.artifact.manifest["corpus_hash"] == corpus_hash(corpus_dir)
    with pytest.raises(ArtifactError, match="stale"):
        load_artifact(data_copy, "0" * 64)


# --- ensure_kb ----------------------------------------------------------------------------------


def test_ensure_kb_serves_a_fresh_build_as_is(data_copy: Path, corpus_dir: Path) -> None:
    loaded = ensure_kb(corpus_dir, data_copy)
    assert not loaded.rebuilt and loaded.stale_error is None


def test_ensure_kb_builds_when_missing(
    tmp_path: Path, lite_corpus: Path, lite_built: Built
) -> None:
    corpus_dir, built = lite_corpus, lite_built
    loaded = ensure_kb(corpus_dir, tmp_path / "data")
    assert loaded.rebuilt and loaded.stale_error is None
    assert loaded.artifact.manifest["build_id"] == built.artifact.manifest["build_id"]


def test_ensure_kb_rebuilds_when_stale(data_copy: Path, corpus_copy: Path) -> None:
    before = build_id(data_copy)
    glossary = corpus_copy / "glossary.yaml"
    glossary.write_text(glossary.read_text("utf-8") + "# an edit\n", "utf-8")
    loaded = ensure_kb(corpus_copy, data_copy)
    assert loaded.rebuilt and loaded.stale_error is None
    assert loaded.artifact.manifest["corpus_hash"] == corpus_hash(corpus_copy)
    assert loaded.artifact.manifest["build_id"] != before
    assert not ensure_kb(corpus_copy, data_copy).rebuilt


def test_ensure_kb_rebuilds_when_corrupt(data_copy: Path, corpus_dir: Path) -> None:
    (data_copy / "current" / "graph.json").write_bytes(b"{}")
    loaded = ensure_kb(corpus_dir, data_copy)
    assert loaded.rebuilt and loaded.stale_error is None
    assert len(loaded.artifact.graph.nodes) > 500


# --- a broken corpus ----------------------------------------------------------------------------

EDISON = "000_4b105a357d19ec69.txt"
TAG = "004_30f7390a4e398762.txt"


def line_of(path: Path, needle: str) -> int:
    lines = path.read_text("utf-8").splitlines()
    return next(i for i, ln in enumerate(lines, start=1) if ln == needle)


def non_utf8(corpus: Path) -> tuple[str, int | None]:
    path = corpus / EDISON
    lines = path.read_bytes().split(b"\n")
    lines[2] = b"\xff" + lines[2]
    path.write_bytes(b"\n".join(lines))
    return EDISON, 3


def empty(corpus: Path) -> tuple[str, int | None]:
    (corpus / TAG).write_bytes(b"")
    return TAG, None


def bad_card_type(corpus: Path) -> tuple[str, int | None]:
    path = corpus / "cards.yaml"
    line = line_of(path, "  - id: armageddon-knight")
    text = path.read_text("utf-8")
    head, tail = text.split("  - id: armageddon-knight\n", 1)
    tail = tail.replace("card_type: monster", "card_type: wizard", 1)
    path.write_text(f"{head}  - id: armageddon-knight\n{tail}", "utf-8")
    return "cards.yaml", line


def duplicate_card(corpus: Path) -> tuple[str, int | None]:
    path = corpus / "cards.yaml"
    text = path.read_text("utf-8").rstrip("\n") + "\n"
    line = len(text.splitlines()) + 1
    entry = "  - id: cyber-dragon\n    en: Cyber Dragon\n    card_type: monster\n"
    path.write_text(text + entry + "    monster_types: [effect]\n", "utf-8")
    return "cards.yaml", line


def manifest_names_missing_file(corpus: Path) -> tuple[str, int | None]:
    path = corpus / "manifest.yaml"
    path.write_text(path.read_text("utf-8").replace(TAG, "missing.txt"), "utf-8")
    return "manifest.yaml", None


# Each table-level error (missing field, bad YAML, unknown reference …) has a fast unit test in
# test_curated.py; these go through the whole build to check the previous artifact survives.
BREAKAGES: list[Callable[[Path], tuple[str, int | None]]] = [
    non_utf8,
    empty,
    bad_card_type,
    duplicate_card,
    manifest_names_missing_file,
]


def check_names_the_place(exc: IngestError, corpus: Path, file: str, line: int | None) -> None:
    assert exc.path == str(corpus / file)
    assert file in str(exc)
    if line is not None:
        assert exc.line == line
        assert f"{file}:{line}:" in str(exc)


@pytest.mark.parametrize("breakage", BREAKAGES, ids=lambda b: b.__name__)
def test_broken_corpus_fails_naming_the_file_and_keeps_the_previous_build(
    data_copy: Path, corpus_copy: Path, breakage: Callable[[Path], tuple[str, int | None]]
) -> None:
    before = build_id(data_copy)
    file, line = breakage(corpus_copy)
    with pytest.raises(IngestError) as info:
        build_kb(corpus_copy, data_copy)
    check_names_the_place(info.value, corpus_copy, file, line)
    if breakage is manifest_names_missing_file:
        assert "missing.txt" in str(info.value)
    assert build_id(data_copy) == before
    assert temp_dirs(data_copy) == []

    loaded = ensure_kb(corpus_copy, data_copy)
    assert not loaded.rebuilt
    assert loaded.artifact.manifest["build_id"] == before
    assert loaded.stale_error is not None and file in loaded.stale_error


def test_broken_corpus_without_a_previous_build_raises(tmp_path: Path, corpus_copy: Path) -> None:
    empty(corpus_copy)
    with pytest.raises(IngestError, match=re.escape(TAG)):
        ensure_kb(corpus_copy, tmp_path / "data")
