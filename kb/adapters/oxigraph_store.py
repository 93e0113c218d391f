"""The embedded Oxigraph store: built with the artifact, opened read-only, answering one query.

Inside a build directory (see kb.store), for the default base IRI:
  sparql/store/      an Oxigraph (RocksDB) store holding the RDF export's triples
  sparql/meta.json   what it holds: triple count, base IRI, pyoxigraph version, file checksums
  sparql/export.ttl, sparql/export.jsonld   the store dumped for download, with the build
A server configured with another YGO_BASE_IRI keeps its own `sparql-<hash>/` beside it, written
when it starts. Every file is checksummed in the build's manifest (kb.store).

`write_store` fills a store from the RDF export's triples (kb.linked_data.rdf.graph_triples)
while `ygo-rulings ingest` writes the build; `ensure_store` checks it when a server opens the
SPARQL endpoint and rebuilds a missing, damaged or foreign one with a warning, never failing the
start; `execute` answers one query over an opened store (the worker processes of
kb.adapters.sparql_workers call it, so a query that overruns can be stopped).
"""

from __future__ import annotations

import atexit
import hashlib
import json
import logging
import os
import shutil
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pyoxigraph as ox
from rdflib import BNode, Literal, URIRef
from rdflib.term import Node as RdfTerm

from kb.config import Settings
from kb.errors import KBError
from kb.linked_data.sparql import (
    QueryRefused,
    SparqlBackend,
    choose_writer,
    declared_prefixes,
    engine_syntax_error,
    prepare,
)
from kb.linked_data.sparql_results import render

log = logging.getLogger(__name__)

RdfTriple = tuple[RdfTerm, RdfTerm, RdfTerm]

STORE_DIR = "sparql"
STORE_FORMAT = 1
META = "meta.json"
# The whole-graph downloads (`ygo-rulings export`, /export.*): file name and format by name.
DUMPS = {
    "ttl": ("export.ttl", ox.RdfFormat.TURTLE),
    "jsonld": ("export.jsonld", ox.RdfFormat.JSON_LD),
}


def store_dir(build_dir: Path, base_iri: str) -> Path:
    """Where the store for `base_iri` lives in a build (the default base: `sparql/`)."""
    if base_iri == Settings().base_iri:
        return build_dir / STORE_DIR
    digest = hashlib.sha256(base_iri.encode("utf-8")).hexdigest()[:12]
    return build_dir / f"{STORE_DIR}-{digest}"


def _checksums(directory: Path) -> dict[str, str]:
    return {
        p.name: hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(directory.iterdir())
        if p.is_file()
    }


def write_store(target: Path, triples: Iterable[RdfTriple], base_iri: str) -> dict[str, Any]:
    """Create the store directory `target` (it must not exist) from RDF triples (an rdflib Graph
    or kb.linked_data.rdf.graph_triples; a triple given twice is stored once): its meta."""
    target.mkdir(parents=True)
    store = ox.Store(str(target / "store"))
    store.bulk_extend(_quads(triples))
    store.optimize()
    store.flush()
    count = len(store)
    del store  # closes RocksDB: the files are final from here on
    for path in (target / "store").iterdir():
        with open(path, "rb") as fh:
            os.fsync(fh.fileno())
    meta = {
        "format": STORE_FORMAT,
        "triples": count,
        "base_iri": base_iri,
        "pyoxigraph": ox.__version__,
        "files": _checksums(target / "store"),
    }
    (target / META).write_text(json.dumps(meta, indent=2, sort_keys=True), "utf-8")
    return {k: v for k, v in meta.items() if k != "files"}


def _quads(triples: Iterable[RdfTriple]) -> Iterator[ox.Quad]:
    """rdflib triples as Oxigraph quads of the default graph (each IRI converted once)."""
    iris: dict[str, ox.NamedNode] = {}

    def named(term: str) -> ox.NamedNode:
        node = iris.get(term)
        if node is None:
            node = iris[term] = ox.NamedNode(term)
        return node

    def convert(term: RdfTerm) -> ox.NamedNode | ox.BlankNode | ox.Literal:
        if isinstance(term, URIRef):
            return named(str(term))
        if isinstance(term, BNode):
            return ox.BlankNode(str(term))
        if isinstance(term, Literal):
            if term.language:
                return ox.Literal(str(term), language=term.language)
            if term.datatype is not None:
                return ox.Literal(str(term), datatype=named(str(term.datatype)))
            return ox.Literal(str(term))
        raise TypeError(f"not an RDF term of a triple: {term!r}")

    for s, p, o in triples:
        yield ox.Quad(convert(s), convert(p), convert(o))  # type: ignore[arg-type]


def store_problem(target: Path, base_iri: str) -> str | None:
    """None when the store directory holds a sound store of this base IRI, else what is wrong."""
    if not target.is_dir():
        return "is missing"
    try:
        meta = json.loads((target / META).read_text("utf-8"))
    except (OSError, ValueError):
        return "has no readable meta.json"
    if not isinstance(meta, dict) or meta.get("format") != STORE_FORMAT:
        return "has an unknown format"
    if meta.get("base_iri") != base_iri:
        return f"was built for the base IRI {meta.get('base_iri')!r}"
    if meta.get("pyoxigraph") != ox.__version__:
        return f"was written by pyoxigraph {meta.get('pyoxigraph')}, not {ox.__version__}"
    try:
        if _checksums(target / "store") != meta.get("files"):
            return "is damaged (its files changed since it was written)"
        # The files are the ones written, so they hold the triples counted then: opening them
        # is the check left (counting them again took a tenth of a second of every start).
        ox.Store.read_only(str(target / "store"))
    except (OSError, RuntimeError, ValueError) as exc:
        return f"cannot be opened ({type(exc).__name__})"
    return None


def ensure_store(
    build_dir: Path, base_iri: str, triples: Callable[[], Iterable[RdfTriple]]
) -> Path:
    """The path to open read-only: the build's store, rebuilt first when it is not sound.

    A rebuild goes to a temporary directory beside it, then replaces it by renames; when the build
    directory cannot be written, the store is built in a temporary directory removed at exit.
    """
    target = store_dir(build_dir, base_iri)
    problem = store_problem(target, base_iri)
    if problem is None:
        return target / "store"
    log.warning("rebuilding the SPARQL store of build %s: it %s", build_dir.name, problem)
    try:
        return _replace(target, base_iri, triples) / "store"
    except OSError as exc:
        scratch = Path(tempfile.mkdtemp(prefix="ygo-sparql-"))
        atexit.register(shutil.rmtree, scratch, ignore_errors=True)
        log.warning(
            "cannot write the SPARQL store into the build (%s); using a temporary copy",
            type(exc).__name__,
        )
        write_store(scratch / STORE_DIR, triples(), base_iri)
        return scratch / STORE_DIR / "store"


def _replace(target: Path, base_iri: str, triples: Callable[[], Iterable[RdfTriple]]) -> Path:
    fresh = Path(tempfile.mkdtemp(prefix=f".{target.name}-tmp-", dir=target.parent))
    try:
        fresh.rmdir()
        write_store(fresh, triples(), base_iri)
        if target.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{target.name}-old-", dir=target.parent))
            os.rename(target, old / target.name)
            shutil.rmtree(old, ignore_errors=True)
        try:
            os.rename(fresh, target)
        except OSError:
            if store_problem(target, base_iri) is not None:  # not a sound one from a peer
                raise
    finally:
        shutil.rmtree(fresh, ignore_errors=True)
    return target


def export_path(store_path: Path, fmt: str) -> Path:
    """Where the `fmt` export of the store at `store_path` lives: beside the store."""
    return store_path.parent / DUMPS[fmt][0]


def write_exports(
    store_path: Path,
    prefixes: Mapping[str, str],
    base_iri: str,
    triples: Callable[[], Iterable[RdfTriple]],
) -> list[Path]:
    """Write every export format beside the store, replacing what is there (a build, or a repair
    when a server starts; never while serving): Turtle dumped by Oxigraph, JSON-LD compacted with
    the served @context from `triples()`, the ones the store holds."""
    from kb.adapters.jsonld_export import write_compacted

    return [
        write_compacted(triples(), export_path(store_path, fmt), base_iri)
        if fmt == "jsonld"
        else _write_dump(store_path, export_path(store_path, fmt), rdf_format, prefixes)
        for fmt, (_, rdf_format) in DUMPS.items()
    ]


def rebuild_store(
    build_dir: Path, base_iri: str, triples: Callable[[], Iterable[RdfTriple]]
) -> Path:
    """Write the store of `base_iri` anew from `triples()`, whatever is there: the store's path."""
    return _replace(store_dir(build_dir, base_iri), base_iri, triples) / "store"


def dump_file(store_path: Path, fmt: str, prefixes: Mapping[str, str]) -> Path:
    """The store's triples as one Turtle ('ttl') or JSON-LD ('jsonld') file beside the store.

    Oxigraph writes it on first use (seconds, streamed to disk, the GIL released, nothing kept
    in memory), to a temporary name then renamed, so the workers and later starts share one
    file; a store directory that cannot be written gets a temporary copy removed at exit."""
    name, rdf_format = DUMPS[fmt]
    target = store_path.parent / name
    if target.is_file():
        return target
    try:
        return _write_dump(store_path, target, rdf_format, prefixes)
    except OSError as exc:
        scratch = Path(tempfile.mkdtemp(prefix="ygo-export-"))
        atexit.register(shutil.rmtree, scratch, ignore_errors=True)
        log.warning("cannot write %s beside the store (%s); using a temporary copy", name, exc)
        return _write_dump(store_path, scratch / name, rdf_format, prefixes)


def _write_dump(
    store_path: Path, target: Path, rdf_format: ox.RdfFormat, prefixes: Mapping[str, str]
) -> Path:
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}-tmp-", dir=target.parent)
    os.close(fd)
    try:
        store = open_store(store_path)
        store.dump(tmp, rdf_format, from_graph=ox.DefaultGraph(), prefixes=dict(prefixes))
        os.replace(tmp, target)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return target


def open_store(path: Path) -> ox.Store:
    """The store at `path`, read-only (several processes may open it at once)."""
    return ox.Store.read_only(str(path))


def execute(
    store: ox.Store,
    text: str,
    accept: str | None,
    max_results: int,
    prefixes: Mapping[str, str],
    max_bytes: int | None = None,
) -> tuple[str, str]:
    """Answer one query over `store` in this process: (body, media type)."""
    form = prepare(text, prefixes)
    fmt, media = choose_writer(form, accept)
    try:  # the result is passed on, not kept here: see `render` on dropping it
        return render(
            form,
            store.query(text, prefixes=dict(prefixes)),
            fmt,
            max_results,
            prefixes,
            max_bytes=max_bytes,
        ), media
    except SyntaxError as exc:  # what rdflib's parser accepted and Oxigraph's does not
        raise engine_syntax_error(exc, text) from None
    except (KBError, MemoryError):
        raise
    except Exception as exc:  # evaluation errors are about the query (types, functions, …)
        raise QueryRefused(f"the query failed: {type(exc).__name__}: {exc}") from None


def open_endpoint(
    settings: Settings, build_dir: Path, triples: Callable[[], Iterable[RdfTriple]]
) -> SparqlBackend:
    """The SPARQL backend the settings name: the external server of `sparql_endpoint`, else
    worker processes over this build's store (checked, and rebuilt from `triples()` if needed)."""
    prefixes = declared_prefixes(settings.base_iri)
    timeout, rows = settings.sparql_timeout, settings.sparql_max_results
    size = settings.sparql_max_result_bytes
    if settings.sparql_endpoint:
        from kb.adapters.sparql_remote import RemoteEndpoint

        return RemoteEndpoint(settings.sparql_endpoint, timeout, rows, prefixes, max_bytes=size)
    from kb.adapters.sparql_workers import SparqlEndpoint

    store = ensure_store(build_dir, settings.base_iri, triples)
    return SparqlEndpoint(store, timeout, rows, prefixes, max_bytes=size)
