"""Build the knowledge base artifact from the corpus, and make sure a fresh one is available."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

from ingest.corpus import corpus_hash
from ingest.pipeline import ingest_corpus
from kb.errors import ArtifactError, IngestError
from kb.graph import KnowledgeGraph
from kb.reading.lexicon import everyday_lexicon
from kb.store import Artifact, load_artifact, remove_abandoned, write_artifact

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class BuildReport:
    """What a build wrote and how well it linked."""

    path: Path
    node_counts: dict[str, int]
    edge_counts: dict[str, int]
    unlinked: list[dict[str, object]]


def build_kb(corpus_dir: Path, data_dir: Path) -> BuildReport:
    """Ingest the corpus and write a new artifact atomically (the old one stays on any error)."""
    corpus = ingest_corpus(corpus_dir)
    kg = KnowledgeGraph(corpus.nodes, corpus.facts)
    nodes, edges = kg.counts()
    unlinked = [
        {"node": c.node, "start": c.start, "end": c.end, "text": c.text} for c in corpus.unlinked
    ]
    docs = {d.id: d.text for d in corpus.documents}
    sources = {
        d.id: {
            "file": d.file,
            "sha256": d.sha256,
            "format": d.format,
            "title_pt": d.title_pt,
            "title_en": d.title_en,
        }
        for d in corpus.documents
    }
    path = write_artifact(
        data_dir,
        corpus.nodes,
        corpus.facts,
        docs,
        corpus.corpus_hash,
        {
            "node_counts": nodes,
            "edge_counts": edges,
            "unlinked": unlinked,
            "sources": sources,
            "everyday_words": everyday_lexicon(kg),
        },
        derived=lambda tmp: {"sparql_store": sparql_store(tmp, kg)},
    )
    return BuildReport(path, nodes, edges, unlinked)


def sparql_store(build_dir: Path, kg: KnowledgeGraph) -> dict[str, object]:
    """Write the build's Oxigraph store (for the default base IRI) and describe it."""
    from kb.adapters.oxigraph_store import store_dir, write_store
    from kb.config import Settings
    from kb.linked_data.rdf import to_rdf

    base_iri = Settings().base_iri
    return write_store(store_dir(build_dir, base_iri), to_rdf(kg, base_iri), base_iri)


@dataclass(frozen=True)
class Loaded:
    """The artifact to serve, and whether it is the last good build of a corpus that now fails."""

    artifact: Artifact
    rebuilt: bool
    stale_error: str | None = None


def ensure_kb(corpus_dir: Path, data_dir: Path) -> Loaded:
    """Load the current artifact; rebuild it when missing, stale or corrupt.

    If the corpus itself is broken (IngestError), the previous good build is served and the error
    is reported, never a half-written one. Temporary directories of interrupted builds go first.
    """
    for name in remove_abandoned(data_dir):
        log.warning("removed %s, left by an interrupted build", name)
    try:
        expected = corpus_hash(corpus_dir) if corpus_dir.exists() else None
        return Loaded(load_artifact(data_dir, expected), rebuilt=False)
    except ArtifactError as problem:
        log.warning("rebuilding the knowledge base: %s", problem)
    try:
        build_kb(corpus_dir, data_dir)
    except IngestError as exc:
        log.error("corpus cannot be ingested: %s", exc)
        try:
            return Loaded(load_artifact(data_dir), rebuilt=False, stale_error=str(exc))
        except ArtifactError:
            raise exc from None
    return Loaded(load_artifact(data_dir), rebuilt=True)
