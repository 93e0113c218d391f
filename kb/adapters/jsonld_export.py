"""The whole-graph JSON-LD download, compacted (kb.linked_data.jsonld), written from the store.

Oxigraph's own JSON-LD writer only writes expanded JSON-LD, so `/export.jsonld` is written here:
the store's default-graph triples, read in its subject order (each subject's triples together),
are compacted one subject at a time and streamed to a temporary file renamed into place, so the
download never holds the graph in memory. Written beside the store on first use, like the Turtle
dump (kb.adapters.oxigraph_store.dump_file).
"""

from __future__ import annotations

import atexit
import itertools
import logging
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pyoxigraph as ox

from kb.linked_data.jsonld import Statement, Value, write_compact

log = logging.getLogger(__name__)
EXPORT_NAME = "export-compacted.jsonld"
_STRING = "http://www.w3.org/2001/XMLSchema#string"


def ox_value(term: ox.NamedNode | ox.BlankNode | ox.Literal | ox.Triple) -> Value:
    """An Oxigraph term as a Value (a plain or language-tagged literal has no datatype)."""
    if isinstance(term, ox.NamedNode):
        return Value("iri", term.value)
    if isinstance(term, ox.BlankNode):
        return Value("blank", f"_:{term.value}")
    if isinstance(term, ox.Literal):
        if term.language:
            return Value("literal", term.value, None, term.language)
        datatype = term.datatype.value
        return Value("literal", term.value, None if datatype == _STRING else datatype)
    raise TypeError(f"RDF-star triples are not exported: {term!r}")


def subjects(store: ox.Store) -> Iterator[tuple[str, list[Statement]]]:
    """Each subject of the default graph with its (predicate, object) statements."""
    quads = store.quads_for_pattern(None, None, None, ox.DefaultGraph())
    for subject, group in itertools.groupby(quads, key=lambda q: q.subject):
        yield ox_value(subject).value, [(q.predicate.value, ox_value(q.object)) for q in group]


def write_jsonld_export(store_path: Path, base_iri: str) -> Path:
    """The compacted JSON-LD export beside the store (written once, then reused); a store
    directory that cannot be written gets a temporary copy removed at exit."""
    target = store_path.parent / EXPORT_NAME
    if target.is_file():
        return target
    try:
        return _write(store_path, target, base_iri)
    except OSError as exc:
        scratch = Path(tempfile.mkdtemp(prefix="ygo-export-"))
        atexit.register(shutil.rmtree, scratch, ignore_errors=True)
        log.warning("cannot write %s beside the store (%s); using a temporary copy", target, exc)
        return _write(store_path, scratch / EXPORT_NAME, base_iri)


def _write(store_path: Path, target: Path, base_iri: str) -> Path:
    fd, tmp = tempfile.mkstemp(prefix=f".{EXPORT_NAME}-tmp-", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            write_compact(subjects(ox.Store.read_only(str(store_path))), out, base_iri)
        os.replace(tmp, target)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return target
