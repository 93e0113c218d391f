"""Faults a server meets at start: a damaged embedding cache is recomputed with a warning, the
temporary directories of interrupted builds are removed, /health shows failures without local
paths."""

from __future__ import annotations

import logging
import os
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from api.errors import without_local_paths
from api.runtime import load_runtime
from ingest.build import ensure_kb
from kb.adapters.embedding_cache import _file, cached_embeddings
from kb.config import Settings
from kb.search.embedding import HashEmbedder
from kb.service import RulingsService
from kb.store import _hold_lock, remove_abandoned

if TYPE_CHECKING:
    from conftest import Built

TEXTS = ["Jinzo nega armadilhas.", "Cyber Dragon é invocado.", "Uma Corrente tem Elos."]


def sound_cache(cache: Path) -> Path:
    """A written cache without its memory-mapped matrix (derived from it, so the vectors file is
    what a start reads)."""
    cached_embeddings(HashEmbedder(), TEXTS, cache)
    drop_matrices(cache)
    return _file(cache, HashEmbedder().name)


def drop_matrices(cache: Path) -> None:
    for matrix in cache.glob("mat-*.npy"):
        matrix.unlink()


DAMAGES = {
    "empty": lambda raw: b"",
    "truncated": lambda raw: raw[: len(raw) // 2],
    "tail cut": lambda raw: raw[:-7],
    "not a zip": lambda raw: b"these are not the vectors you are looking for" * 4,
    "a pickle": lambda raw: b"\x80\x04\x95" + raw[3:],
}


@pytest.mark.parametrize("damage", list(DAMAGES))
def test_a_damaged_embedding_cache_is_recomputed_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, damage: str
) -> None:
    path = sound_cache(tmp_path)
    path.write_bytes(DAMAGES[damage](path.read_bytes()))
    with caplog.at_level(logging.WARNING, logger="kb.adapters.embedding_cache"):
        vectors, fresh = cached_embeddings(HashEmbedder(), TEXTS, tmp_path)
    assert fresh == len(TEXTS)
    assert np.allclose(vectors, HashEmbedder().embed_passages(TEXTS))
    assert any("damaged" in r.getMessage() and path.name in r.getMessage() for r in caplog.records)
    assert cached_embeddings(HashEmbedder(), TEXTS, tmp_path)[1] == 0  # rewritten, sound again


@pytest.mark.parametrize("sealed", [True, False], ids=["checksummed", "before-checksums"])
def test_a_cache_entry_of_the_wrong_shape_is_recomputed(tmp_path: Path, sealed: bool) -> None:
    """Rewritten whole: the file fails its checksum and every vector is embedded again. A file
    from before the checksums (no `.sha256` beside it) loses only its malformed entry."""
    path = sound_cache(tmp_path)
    with np.load(path) as data:
        store = {k: data[k] for k in data.files}
    first = sorted(store)[0]
    store[first] = np.zeros(3, dtype=np.float32)
    np.savez(path, **store)  # type: ignore[arg-type]
    if not sealed:
        path.with_name(path.name + ".sha256").unlink()
    vectors, fresh = cached_embeddings(HashEmbedder(), TEXTS, tmp_path)
    assert fresh == (len(TEXTS) if sealed else 1)
    assert np.allclose(vectors, HashEmbedder().embed_passages(TEXTS))


@pytest.fixture
def lite_copy(lite_built: Built, tmp_path: Path) -> Path:
    target = tmp_path / "data"
    shutil.copytree(lite_built.data_dir, target, symlinks=True)
    return target


def test_a_server_starts_over_a_damaged_cache(lite_copy: Path, lite_corpus: Path) -> None:
    settings = Settings(data_dir=lite_copy, corpus_dir=lite_corpus, embedder="hash")
    first = load_runtime(settings)
    cache = next((lite_copy / "cache").glob("emb-*.npz"))
    cache.write_bytes(b"")
    drop_matrices(lite_copy / "cache")
    again = load_runtime(settings)  # was: EOFError, which the CLI reported as "Aborted."
    assert again.embedded_now == first.embedded_now > 0


def test_interrupted_builds_leave_no_temporary_directories(
    lite_copy: Path, lite_corpus: Path, caplog: pytest.LogCaptureFixture
) -> None:
    builds = lite_copy / "builds"
    killed = builds / ".tmp-killed"  # a writer killed mid-build: its lock died with it
    killed.mkdir()
    (killed / "graph.json").write_text("{", "utf-8")
    _hold_lock(killed).close()
    unlocked = builds / ".tmp-unlocked"  # killed before it could lock, long ago
    unlocked.mkdir()
    os.utime(unlocked, (0, 0))
    running = builds / ".tmp-running"  # another process's build in progress
    running.mkdir()
    held = _hold_lock(running)
    try:
        with caplog.at_level(logging.WARNING, logger="ingest.build"):
            loaded = ensure_kb(lite_corpus, lite_copy)
        assert not loaded.rebuilt
        left = sorted(p.name for p in builds.iterdir() if p.name.startswith(".tmp-"))
        assert left == [".tmp-running", ".tmp-running.lock"]
        assert sum("interrupted build" in r.getMessage() for r in caplog.records) == 2
    finally:
        held.close()
    assert remove_abandoned(lite_copy) == [".tmp-running"]
    assert not [p for p in builds.iterdir() if p.name.startswith(".tmp-")]


def test_health_reports_a_failed_rebuild_without_local_paths(
    lite_copy: Path, lite_corpus: Path, tmp_path: Path
) -> None:
    corpus = tmp_path / "corpus"
    shutil.copytree(lite_corpus, corpus)
    (corpus / "004_30f7390a4e398762.txt").write_bytes(b"")  # an empty document: IngestError
    loaded = ensure_kb(corpus, lite_copy)
    assert loaded.stale_error is not None and str(tmp_path) in loaded.stale_error
    settings = Settings(data_dir=lite_copy, corpus_dir=corpus)
    app = create_app(RulingsService(loaded.artifact, settings), stale_error=loaded.stale_error)
    health = TestClient(app).get("/health").json()
    assert health["stale"] is True
    assert health["stale_error"].startswith("004_30f7390a4e398762.txt")
    assert str(tmp_path) not in health["stale_error"] and "/tmp" not in health["stale_error"]


def test_paths_are_made_relative_or_cut_to_their_name() -> None:
    roots = [Path("/srv/ygo/corpus")]
    message = "/srv/ygo/corpus/cards.yaml:12: bad; /home/me/x/y.txt and https://w3id.org/a/b"
    assert (
        without_local_paths(message, roots) == "cards.yaml:12: bad; y.txt and https://w3id.org/a/b"
    )
