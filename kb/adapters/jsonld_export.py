"""The whole-graph JSON-LD download, compacted (kb.linked_data.jsonld), written from the store.

Oxigraph's own JSON-LD writer only writes expanded JSON-LD, so `/export.jsonld` is written here:
the store's default-graph triples, read in its subject order (each subject's triples together),
are compacted one subject at a time and streamed to a temporary file renamed into place, so the
download never holds the graph in memory. Written with the build, beside the store, like the
Turtle dump (kb.adapters.oxigraph_store.write_exports).
"""

from __future__ import annotations

import itertools
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pyoxigraph as ox

from kb.linked_data.jsonld import Statement, Value, write_compact

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


def write_compacted(store_path: Path, target: Path, base_iri: str) -> Path:
    """The store's triples as compacted JSON-LD (the served @context) at `target`, written to a
    temporary name then renamed."""
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}-tmp-", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            write_compact(subjects(ox.Store.read_only(str(store_path))), out, base_iri)
        os.replace(tmp, target)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return target
