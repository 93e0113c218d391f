"""Build the knowledge base artifact from the corpus, and make sure a fresh one is available."""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any

from ingest.corpus import corpus_hash
from kb.errors import ArtifactError, IngestError
from kb.graph import KnowledgeGraph
from kb.reading.lexicon import everyday_lexicon
from kb.store import (
    Artifact,
    current_path,
    derived_problems,
    load_artifact,
    read_manifest,
    record_derived,
    remove_abandoned,
    write_artifact,
)

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
    from ingest.pipeline import ingest_corpus  # the parsers: only a build imports them

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
            "machine_translated": d.machine_translated,
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
    """Write the build's Oxigraph store (for the default base IRI) and its exports (Turtle,
    JSON-LD: a server only reads them), and describe the store."""
    from kb.adapters.oxigraph_store import store_dir, write_exports, write_store
    from kb.config import Settings
    from kb.linked_data.rdf import graph_triples
    from kb.linked_data.sparql import declared_prefixes

    base_iri = Settings().base_iri
    folder = store_dir(build_dir, base_iri)
    triples = list(graph_triples(kg, base_iri))  # made once: the store and the JSON-LD read them
    meta = write_store(folder, triples, base_iri)
    write_exports(folder / "store", declared_prefixes(base_iri), base_iri, lambda: triples)
    return meta


def repair_derived(artifact: Artifact, base_iri: str) -> list[str]:
    """Check what the build derived from its graph for `base_iri` (the SPARQL store, the exports)
    against the manifest's checksums, and rebuild what is damaged or missing before anything is
    served: the warnings (for /health), one per damaged file. A server with another base IRI
    gets its store and exports written here, on its first start, without a warning."""
    from kb.adapters.oxigraph_store import DUMPS, rebuild_store, store_dir, write_exports
    from kb.linked_data.rdf import graph_triples
    from kb.linked_data.sparql import declared_prefixes

    build = artifact.path
    folder = store_dir(build, base_iri)
    under = folder.relative_to(build).as_posix()
    problems = derived_problems(build, artifact.manifest, under)
    exports = {f"{under}/{name}" for name, _ in DUMPS.values()}
    missing = sorted(name for name in exports if not (build / name).is_file())
    if not problems and not missing:
        return []
    found = [f"{name} {problem}" for name, problem in sorted(problems.items())]
    for problem in found:
        log.warning("build %s: %s; rebuilding it", build.name, problem)
    try:
        triples = partial(graph_triples, artifact.graph, base_iri)
        if set(problems) - exports or not (folder / "store").is_dir():
            rebuild_store(build, base_iri, triples)
        write_exports(folder / "store", declared_prefixes(base_iri), base_iri, triples)
        updated = record_derived(build, artifact.manifest, under)
    except OSError as exc:
        log.error("build %s: cannot rebuild %s: %s", build.name, under, exc)
        return [f"{p}; it could not be rebuilt ({type(exc).__name__}): not served" for p in found]
    artifact.manifest.clear()
    artifact.manifest.update(updated)
    return [f"{p}; rebuilt" for p in found]


@dataclass(frozen=True)
class Loaded:
    """The artifact to serve, and whether it is the last good build of a corpus that now fails."""

    artifact: Artifact
    rebuilt: bool
    stale_error: str | None = None
    repaired: tuple[str, ...] = ()


def ensure_kb(
    corpus_dir: Path, data_dir: Path, base_iri: str | None = None, *, derived: bool = True
) -> Loaded:
    """Load the current artifact; rebuild it when missing, stale or corrupt, and rebuild what it
    derived (SPARQL store, exports of `base_iri`, the default one unless given) when damaged.
    `derived=False` leaves the derived files unchecked: for a command that reads neither the
    store nor the exports (a query of the CLI), which saves reading them all.

    If the corpus itself is broken (IngestError), the previous good build is served and the error
    is reported, never a half-written one. Temporary directories of interrupted builds go first.
    """
    loaded = _load_or_build(corpus_dir, data_dir)
    if not derived:
        return loaded
    repaired = repair_derived(loaded.artifact, base_iri or _default_base_iri())
    return replace(loaded, repaired=tuple(repaired))


def current_build(corpus_dir: Path, data_dir: Path) -> tuple[Path, dict[str, Any]] | None:
    """The current build's folder and manifest when `ensure_kb` would load it as it is (it
    exists and was built from today's corpus), else None. Its files are not read."""
    path = current_path(data_dir)
    if path is None:
        return None
    try:
        manifest = read_manifest(path)
    except ArtifactError:
        return None
    if corpus_dir.exists() and manifest.get("corpus_hash") != corpus_hash(corpus_dir):
        return None
    return path, manifest


def _default_base_iri() -> str:
    from kb.config import Settings

    return Settings().base_iri


def _load_or_build(corpus_dir: Path, data_dir: Path) -> Loaded:
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
