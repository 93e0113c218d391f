"""Every file a server serves is checksummed: the exports, the SPARQL store and the embedding
matrix are checked at start and a damaged one is rebuilt (a warning in /health), never served;
serving never writes into the build directory."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from api.runtime import load_runtime
from ingest.build import ensure_kb
from kb.config import Settings
from kb.store import current_path, derived_problems, file_digest

if TYPE_CHECKING:
    from conftest import Built


@pytest.fixture
def data(lite_built: Built, tmp_path: Path) -> Path:
    copy = tmp_path / "data"
    shutil.copytree(lite_built.data_dir, copy, symlinks=True)
    return copy


def settings(data: Path, corpus: Path) -> Settings:
    return Settings(data_dir=data, corpus_dir=corpus, embedder="hash", log_json=False)


def client(data: Path, corpus: Path) -> TestClient:
    """A fresh start over `data`: load (checking and repairing), then the app."""
    runtime = load_runtime(settings(data, corpus))
    return TestClient(create_app(runtime.service, repaired=runtime.repaired))


def build(data: Path) -> Path:
    path = current_path(data)
    assert path is not None
    return path


def snapshot(folder: Path) -> dict[str, tuple[int, int]]:
    """Every file below `folder` with its size and modification time."""
    return {
        p.relative_to(folder).as_posix(): (p.stat().st_size, p.stat().st_mtime_ns)
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def test_every_file_of_a_build_is_in_its_manifest(lite_built: Built) -> None:
    path = build(lite_built.data_dir)
    manifest = lite_built.artifact.manifest
    listed = {*manifest["files"], *manifest["derived"]}
    assert set(snapshot(path)) - {"manifest.json"} == listed
    assert {"sparql/export.ttl", "sparql/export.jsonld", "sparql/meta.json"} <= listed
    assert any(name.startswith("sparql/store/") for name in listed)
    assert all(file_digest(path / n) == d for n, d in manifest["derived"].items())


@pytest.mark.parametrize("fmt", ["ttl", "jsonld"])
def test_an_export_cut_short_is_rebuilt_at_start_never_served(
    data: Path, lite_corpus: Path, fmt: str
) -> None:
    export = build(data) / "sparql" / f"export.{fmt}"
    whole = export.read_bytes()
    export.write_bytes(whole[: len(whole) // 100])  # cut to 1 %
    with client(data, lite_corpus) as http:
        served = http.get(f"/export.{fmt}")
        health = http.get("/health").json()
    assert served.status_code == 200 and served.content == whole
    assert health["repaired"] == [f"sparql/export.{fmt} is damaged (checksum mismatch); rebuilt"]
    assert export.read_bytes() == whole
    assert derived_problems(build(data), ensure_kb(lite_corpus, data).artifact.manifest) == {}


def test_an_export_damaged_while_serving_is_refused_not_served(
    data: Path, lite_corpus: Path
) -> None:
    export = build(data) / "sparql" / "export.ttl"
    with client(data, lite_corpus) as http:
        assert http.get("/export.ttl").status_code == 200
        whole = export.read_bytes()
        export.write_bytes(whole[: len(whole) // 100])
        before = snapshot(build(data))
        refused = http.get("/export.ttl")
        assert snapshot(build(data)) == before, "serving rewrote the build"
    assert refused.status_code == 503
    body = refused.json()
    assert body["ok"] is False and body["code"] == "export_unavailable"
    assert "damaged" in body["error"] and str(data) not in body["error"]


def test_the_exports_are_served_without_writing_into_the_build(
    data: Path, lite_corpus: Path
) -> None:
    with client(data, lite_corpus) as http:
        before = snapshot(build(data))
        for fmt in ("jsonld", "ttl"):
            assert http.get(f"/export.{fmt}").status_code == 200
        assert snapshot(build(data)) == before


def test_a_damaged_store_file_is_rebuilt_at_start(data: Path, lite_corpus: Path) -> None:
    store = build(data) / "sparql" / "store"
    victim = max((p for p in store.iterdir() if p.is_file()), key=lambda p: p.stat().st_size)
    raw = bytearray(victim.read_bytes())
    raw[len(raw) // 2] ^= 0xFF
    victim.write_bytes(bytes(raw))
    loaded = ensure_kb(lite_corpus, data)
    name = f"sparql/store/{victim.name}"
    assert loaded.repaired == (f"{name} is damaged (checksum mismatch); rebuilt",)
    assert derived_problems(build(data), loaded.artifact.manifest) == {}
    assert ensure_kb(lite_corpus, data).repaired == (), "recorded: the next start is quiet"


def _top(http: TestClient, query: str) -> list[str]:
    hits = http.get("/search", params={"q": query, "k": 5}).json()["hits"]
    return [hit["id"] for hit in hits]


def test_an_embedding_matrix_overwritten_at_its_shape_is_rebuilt(
    data: Path, lite_corpus: Path
) -> None:
    queries = ["Can I chain to a summon?", "Damage Step", "corrente e velocidade de magia"]
    with client(data, lite_corpus) as http:
        expected = [_top(http, q) for q in queries]
    (matrix,) = (data / "cache").glob("mat-*.npy")
    original = np.load(matrix)
    good = matrix.read_bytes()
    np.save(matrix, np.random.default_rng(7).random(original.shape, dtype=np.float32))
    assert np.load(matrix).shape == original.shape
    with client(data, lite_corpus) as http:
        assert [_top(http, q) for q in queries] == expected
        health = http.get("/health").json()
    assert health["repaired"] == [
        f"embedding matrix {matrix.name} is damaged (checksum mismatch); rebuilt"
    ]
    assert matrix.read_bytes() == good


def test_a_per_text_embedding_store_that_fails_its_checksum_is_embedded_again(
    data: Path, lite_corpus: Path
) -> None:
    load_runtime(settings(data, lite_corpus))  # writes the cache and its checksums
    (store,) = (data / "cache").glob("emb-*.npz")
    with np.load(store) as vectors:
        keys = list(vectors.files)
        forged = {k: np.zeros_like(vectors[k]) for k in keys}
    np.savez(store, **forged)  # a well-formed file, every vector wrong
    for matrix in (data / "cache").glob("mat-*.npy"):
        matrix.unlink()  # so the matrix is built from the per-text store
    runtime = load_runtime(settings(data, lite_corpus))
    assert runtime.embedded_now == len(keys)
    assert runtime.repaired == (
        f"embedding cache {store.name} is damaged (checksum mismatch); rebuilt",
    )
