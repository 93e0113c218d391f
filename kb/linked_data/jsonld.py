"""Compacted JSON-LD: the one `@context` (served at `<base>context.jsonld`) and RDF compacted to it.

The context holds the prefixes (`ygo:` the vocabulary, `kb:` the resources, `fact:` the facts,
`skos: dcterms: prov: rdf: rdfs: xsd: owl:`), one term per vocabulary class and property
(`kb.linked_data.vocab`: `Card`, `mentions`, `atk`, `limitedIn` …) and the SKOS, Dublin Core and
PROV terms the export uses (`prefLabel`, `altLabel`, `isPartOf`, `wasDerivedFrom` …).

Compaction never loses a triple: a value is written under a term only when the term's definition
expands it back to the same RDF (a resource under a `"@type": "@id"` term, a plain string, a
canonical integer or boolean as a JSON number or boolean, a literal of the term's datatype, a
language map when each value has its own language); any other value goes under the property's
compact IRI as a value object. Expanding the output with the context gives back the graph (the
tests compare them by isomorphism). The input is neutral (`Value`): a node's description and the
whole-graph download (kb.adapters.jsonld_export) are compacted by the same code.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, TextIO

from rdflib import BNode, Graph, Literal, URIRef
from rdflib.namespace import DCTERMS, OWL, PROV, RDF, RDFS, SKOS, XSD

from kb.linked_data.vocab import CLASSES, PROPERTIES

CONTEXT_PATH = "context.jsonld"
_INTEGER = re.compile(r"-?(?:0|[1-9][0-9]*)")
_XSD = str(XSD)
_STRING = _XSD + "string"
# Terms for the properties the export borrows from other vocabularies: name -> (IRI, kind).
# A kind is a vocabulary Term's datatype: None (resources), "langString", "string", "integer" …
_BORROWED: dict[str, tuple[str, str | None]] = {
    "prefLabel": (str(SKOS.prefLabel), "langString"),
    "altLabel": (str(SKOS.altLabel), "string"),
    "definition": (str(SKOS.definition), "langString"),
    "isPartOf": (str(DCTERMS.isPartOf), None),
    "identifier": (str(DCTERMS.identifier), "string"),
    "wasDerivedFrom": (str(PROV.wasDerivedFrom), None),
    "label": (str(RDFS.label), "langString"),
    "comment": (str(RDFS.comment), "langString"),
    "domain": (str(RDFS.domain), None),
    "range": (str(RDFS.range), None),
}


@dataclass(frozen=True, order=True)
class Value:
    """An RDF term as an object of a triple: a resource (`iri`), a blank node (`blank`, value
    `_:id`) or a literal (its datatype IRI, None for a plain string; its language tag)."""

    kind: str
    value: str
    datatype: str | None = None
    language: str | None = None


Statement = tuple[str, Value]  # (predicate IRI, object) of one subject


@dataclass(frozen=True)
class Context:
    """One base IRI's context: the document, and the lookups compaction needs."""

    url: str
    prefixes: tuple[tuple[str, str], ...]  # (prefix, namespace), longest namespace first
    terms: Mapping[str, tuple[str, str | None]]  # property IRI -> (term, kind)
    classes: Mapping[str, str]  # class IRI -> term

    def document(self) -> dict[str, Any]:
        """The context document (`{"@context": {...}}`) served at `url`."""
        body: dict[str, Any] = {prefix: ns for prefix, ns in sorted(self.prefixes)}
        for iri, term in self.classes.items():
            body[term] = self.compact_iri(iri)
        for iri, (term, kind) in self.terms.items():
            body[term] = _definition(self.compact_iri(iri), kind)
        return {"@context": dict(sorted(body.items()))}

    def compact_iri(self, iri: str) -> str:
        """`prefix:local` under the longest matching namespace, else the IRI itself."""
        for prefix, ns in self.prefixes:
            if iri.startswith(ns) and len(iri) > len(ns) and not iri[len(ns) :].startswith("//"):
                return f"{prefix}:{iri[len(ns) :]}"
        return iri


def _definition(compact: str, kind: str | None) -> dict[str, str]:
    """A term's definition for a property whose values are of `kind`."""
    if kind is None:
        return {"@id": compact, "@type": "@id"}
    if kind == "langString":
        return {"@id": compact, "@container": "@language"}
    if kind in ("string", "integer", "boolean"):  # JSON strings, numbers, booleans as they are
        return {"@id": compact}
    return {"@id": compact, "@type": f"xsd:{kind}"}


@lru_cache(maxsize=8)
def context(base_iri: str) -> Context:
    """The context of the export under `base_iri`."""
    base = base_iri if base_iri.endswith("/") else base_iri + "/"
    spaces = {
        "ygo": base + "vocab#",
        "kb": base + "id/",
        "fact": base + "fact/",
        "skos": str(SKOS),
        "dcterms": str(DCTERMS),
        "prov": str(PROV),
        "rdf": str(RDF),
        "rdfs": str(RDFS),
        "xsd": _XSD,
        "owl": str(OWL),
    }
    prefixes = tuple(sorted(spaces.items(), key=lambda kv: (-len(kv[1]), kv[0])))
    voc = spaces["ygo"]
    terms = {voc + t.name: (t.name, t.datatype) for t in PROPERTIES}
    terms |= {iri: (name, kind) for name, (iri, kind) in _BORROWED.items()}
    classes = {voc + t.name: t.name for t in CLASSES}
    return Context(base + CONTEXT_PATH, prefixes, terms, classes)


# --- compaction --------------------------------------------------------------------------------


def _as_native(v: Value, kind: str | None) -> Any:
    """The value as the term of `kind` writes it, or None when that term cannot carry it."""
    if v.kind != "literal" or kind is None:
        return None
    if kind == "langString" or v.language is not None:
        return None
    if v.datatype in (None, _STRING):
        return v.value if kind in ("string", "integer", "boolean") else None
    if kind not in ("string", "integer", "boolean"):
        return v.value if v.datatype == _XSD + str(kind) else None
    if v.datatype == _XSD + "integer" and _INTEGER.fullmatch(v.value):
        return int(v.value)
    if v.datatype == _XSD + "boolean" and v.value in ("true", "false"):
        return v.value == "true"
    return None


def _value_object(ctx: Context, v: Value) -> dict[str, str]:
    """A value in expanded form (its IRIs compacted)."""
    if v.kind == "iri":
        return {"@id": ctx.compact_iri(v.value)}
    if v.kind == "blank":
        return {"@id": v.value}
    out = {"@value": v.value}
    if v.language is not None:
        out["@language"] = v.language
    elif v.datatype not in (None, _STRING):
        assert v.datatype is not None
        out["@type"] = ctx.compact_iri(v.datatype)
    return out


def _one_or_many(values: list[Any]) -> Any:
    return values[0] if len(values) == 1 else values


def _property(ctx: Context, predicate: str, values: Sequence[Value]) -> Iterator[tuple[str, Any]]:
    """The (key, value) pairs of one property of a node: under its term what the term carries,
    the rest under its compact IRI."""
    term, kind = ctx.terms.get(predicate, (None, None))
    rest = list(values)
    if term is not None and kind == "langString":
        langs = [v.language for v in values if v.kind == "literal"]
        if len(langs) == len(values) and None not in langs and len(set(langs)) == len(langs):
            yield term, {v.language: v.value for v in values}
            return
    elif term is not None:
        carried: list[Any] = []
        rest = []
        for v in values:
            native = v.value if kind is None and v.kind != "literal" else _as_native(v, kind)
            # (a resource under a `"@type": "@id"` term; a literal as the term writes it)
            if native is None:
                rest.append(v)
            else:
                carried.append(ctx.compact_iri(native) if v.kind == "iri" else native)
        if carried:
            yield term, _one_or_many(carried)
    if rest:
        yield ctx.compact_iri(predicate), _one_or_many([_value_object(ctx, v) for v in rest])


def compact_node(ctx: Context, subject: str, statements: Iterable[Statement]) -> dict[str, Any]:
    """One subject's statements as a compacted node object (values in a stable order)."""
    by_predicate: dict[str, list[Value]] = {}
    for predicate, value in statements:
        by_predicate.setdefault(predicate, []).append(value)
    node: dict[str, Any] = {
        "@id": subject if subject.startswith("_:") else ctx.compact_iri(subject)
    }
    types = sorted(by_predicate.pop(str(RDF.type), []))
    if any(t.kind == "literal" for t in types):  # never in our graphs; kept exact all the same
        by_predicate[str(RDF.type)] = [t for t in types if t.kind == "literal"]
    names = [
        ctx.classes.get(t.value) or (ctx.compact_iri(t.value) if t.kind == "iri" else t.value)
        for t in types
        if t.kind != "literal"
    ]
    if names:
        node["@type"] = _one_or_many(names)
    for predicate in sorted(by_predicate):
        for key, value in _property(ctx, predicate, sorted(by_predicate[predicate])):
            node[key] = value
    return node


def rdflib_value(term: Any) -> Value:
    """An rdflib term as a Value."""
    if isinstance(term, URIRef):
        return Value("iri", str(term))
    if isinstance(term, BNode):
        return Value("blank", f"_:{term}")
    if isinstance(term, Literal):
        datatype = str(term.datatype) if term.datatype is not None else None
        return Value("literal", str(term), datatype, term.language)
    raise TypeError(f"not an RDF term: {term!r}")


def by_subject(triples: Iterable[tuple[Any, Any, Any]]) -> list[tuple[str, list[Statement]]]:
    """rdflib triples grouped by subject, in @id order (a triple given twice is kept once)."""
    subjects: dict[str, dict[Statement, None]] = {}
    for s, p, o in triples:
        subjects.setdefault(rdflib_value(s).value, {})[(str(p), rdflib_value(o))] = None
    return [(s, list(subjects[s])) for s in sorted(subjects)]


def compact_graph(g: Graph, base_iri: str) -> dict[str, Any]:
    """An rdflib graph as one compacted JSON-LD document, its nodes in @id order."""
    ctx = context(base_iri)
    graph = [compact_node(ctx, s, statements) for s, statements in by_subject(g)]
    return {"@context": ctx.url, "@graph": graph}


def write_compact(
    nodes: Iterable[tuple[str, Iterable[Statement]]], out: TextIO, base_iri: str
) -> int:
    """Stream subjects (each once, with all its statements) into `out` as one compacted JSON-LD
    document, one node object per line; the number of nodes written."""
    ctx = context(base_iri)
    out.write('{"@context": ' + json.dumps(ctx.url) + ', "@graph": [')
    count = 0
    for subject, statements in nodes:
        node = compact_node(ctx, subject, statements)
        out.write(("\n" if count == 0 else ",\n") + json.dumps(node, ensure_ascii=False))
        count += 1
    out.write("\n]}\n")
    return count


def expand_with(document: Mapping[str, Any], base_iri: str) -> dict[str, Any]:
    """The document with its `@context` URL replaced by the context itself, for JSON-LD
    processors that do not fetch contexts (offline parsing, the tests)."""
    ctx = context(base_iri)
    if document.get("@context") != ctx.url:
        raise ValueError(f"the document's @context is not {ctx.url}")
    return {**document, "@context": ctx.document()["@context"]}
