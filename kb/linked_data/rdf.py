"""RDF export of the graph with rdflib: Turtle and JSON-LD, deterministic byte for byte.

Resources live under `<base>id/<node id>`; the vocabulary under `<base>vocab#`. Labels are SKOS
(pt and en), containment is dcterms:isPartOf, and every typed fact is also a `ygo:Fact` resource
(IRI derived from its content) with prov:wasDerivedFrom its source passage and ygo:authority.
"""

from __future__ import annotations

import hashlib

from rdflib import RDF, RDFS, Graph, Literal, Namespace, URIRef
from rdflib.namespace import DCTERMS, OWL, PROV, SKOS, XSD

from kb.graph import KnowledgeGraph
from kb.linked_data.vocab import CLASSES, PROPERTIES, camel

STRUCTURAL = {"part_of"}


def namespaces(base_iri: str) -> tuple[Namespace, Namespace, Namespace]:
    """(resources, vocabulary, facts) namespaces under a base IRI."""
    base = base_iri if base_iri.endswith("/") else base_iri + "/"
    return Namespace(base + "id/"), Namespace(base + "vocab#"), Namespace(base + "fact/")


def iri(base_iri: str, node_id: str) -> URIRef:
    return namespaces(base_iri)[0][node_id]


def to_rdf(kg: KnowledgeGraph, base_iri: str) -> Graph:
    """The whole knowledge graph as an rdflib Graph."""
    res, voc, fact_ns = namespaces(base_iri)
    g = Graph()
    g.bind("ygo", voc)
    g.bind("skos", SKOS)
    g.bind("dcterms", DCTERMS)
    g.bind("prov", PROV)
    g.bind("kb", res)
    for n in kg.nodes:
        s = res[n.id]
        g.add((s, RDF.type, voc[n.type]))
        if n.label_pt:
            g.add((s, SKOS.prefLabel, Literal(n.label_pt, lang="pt")))
        if n.label_en:
            g.add((s, SKOS.prefLabel, Literal(n.label_en, lang="en")))
        for alias in n.props.get("aliases", []):
            g.add((s, SKOS.altLabel, Literal(alias)))
        for key in ("definition_pt", "definition_en"):
            if n.props.get(key):
                g.add((s, SKOS.definition, Literal(n.props[key], lang=key[-2:])))
        if n.text is not None:
            g.add((s, voc.text, Literal(n.text, lang="pt")))
        if n.span is not None:
            g.add((s, voc.document, res[n.span.document]))
            g.add((s, voc.start, Literal(n.span.start, datatype=XSD.integer)))
            g.add((s, voc.end, Literal(n.span.end, datatype=XSD.integer)))
        if n.order is not None:
            g.add((s, voc.order, Literal(n.order, datatype=XSD.integer)))
        if n.parent is not None:
            g.add((s, DCTERMS.isPartOf, res[n.parent]))
        if n.type == "Card":
            g.add((s, voc.cardType, Literal(n.props["card_type"])))
            if n.props.get("property"):
                g.add((s, voc.property, Literal(n.props["property"])))
        if n.type == "Claim":
            g.add((s, voc.holds, Literal(bool(n.props["holds"]))))
        if n.props.get("number") is not None:
            g.add((s, DCTERMS.identifier, Literal(str(n.props["number"]))))
    for f in kg.facts:
        if f.predicate in STRUCTURAL:
            continue
        s, o = res[f.subject], res[f.object]
        p = voc[camel(f.predicate)]
        g.add((s, p, o))
        digest = hashlib.sha1(
            f"{f.subject}|{f.predicate}|{f.object}|{f.source}|{f.authority}|{sorted(f.props.items())}".encode()
        ).hexdigest()[:20]
        fnode = fact_ns[digest]
        g.add((fnode, RDF.type, voc.Fact))
        g.add((fnode, voc.subject, s))
        g.add((fnode, voc.predicate, p))
        g.add((fnode, voc.object, o))
        g.add((fnode, voc.authority, Literal(f.authority)))
        if f.source is not None:
            g.add((fnode, PROV.wasDerivedFrom, res[f.source]))
    return g


def vocabulary(base_iri: str) -> Graph:
    """The vocabulary itself as RDF (classes, properties, labels, comments, domain/range)."""
    _res, voc, _f = namespaces(base_iri)
    g = Graph()
    g.bind("ygo", voc)
    for t in CLASSES:
        c = voc[t.name]
        g.add((c, RDF.type, OWL.Class))
        g.add((c, RDFS.label, Literal(t.label_en, lang="en")))
        g.add((c, RDFS.label, Literal(t.label_pt, lang="pt")))
        g.add((c, RDFS.comment, Literal(t.comment, lang="en")))
    for t in PROPERTIES:
        p = voc[t.name]
        g.add((p, RDF.type, RDF.Property))
        g.add((p, RDFS.label, Literal(t.label_en, lang="en")))
        g.add((p, RDFS.label, Literal(t.label_pt, lang="pt")))
        g.add((p, RDFS.comment, Literal(t.comment, lang="en")))
        if t.domain:
            g.add((p, RDFS.domain, voc[t.domain]))
        if t.range:
            g.add((p, RDFS.range, voc[t.range]))
    return g


def serialize(g: Graph, fmt: str) -> str:
    """Turtle ('ttl') or JSON-LD ('jsonld') text."""
    if fmt == "ttl":
        return g.serialize(format="turtle")
    if fmt == "jsonld":
        return g.serialize(format="json-ld", indent=1, sort_keys=True)
    raise ValueError(f"unknown RDF format {fmt!r} (use ttl or jsonld)")
