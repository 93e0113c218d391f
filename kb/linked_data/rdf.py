"""RDF export of the graph with rdflib: Turtle and JSON-LD, deterministic byte for byte.

Resources live under `<base>id/<node id>`; the vocabulary under `<base>vocab#`. Labels are SKOS
(pt and en), containment is dcterms:isPartOf, and every typed fact is also a `ygo:Fact` resource
(IRI derived from its content) with prov:wasDerivedFrom its source passage and ygo:authority.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator

from rdflib import RDF, RDFS, Graph, Literal, Namespace, URIRef
from rdflib.namespace import DCTERMS, OWL, PROV, SKOS, XSD
from rdflib.term import Node as Term

from kb.graph import KnowledgeGraph
from kb.linked_data.vocab import CLASSES, PROPERTIES, camel
from kb.model import Fact, Node

STRUCTURAL = {"part_of"}
Triple = tuple[URIRef, URIRef, Term]


def namespaces(base_iri: str) -> tuple[Namespace, Namespace, Namespace]:
    """(resources, vocabulary, facts) namespaces under a base IRI."""
    base = base_iri if base_iri.endswith("/") else base_iri + "/"
    return Namespace(base + "id/"), Namespace(base + "vocab#"), Namespace(base + "fact/")


def iri(base_iri: str, node_id: str) -> URIRef:
    return namespaces(base_iri)[0][node_id]


def new_graph(base_iri: str) -> Graph:
    """An empty graph with the export's prefixes bound."""
    res, voc, _facts = namespaces(base_iri)
    g = Graph()
    g.bind("ygo", voc)
    g.bind("skos", SKOS)
    g.bind("dcterms", DCTERMS)
    g.bind("prov", PROV)
    g.bind("kb", res)
    return g


def to_rdf(kg: KnowledgeGraph, base_iri: str) -> Graph:
    """The whole knowledge graph as an rdflib Graph."""
    res, voc, fact_ns = namespaces(base_iri)
    g = new_graph(base_iri)
    for n in kg.nodes:
        for triple in node_triples(n, res, voc):
            g.add(triple)
    for f in kg.facts:
        if f.predicate not in STRUCTURAL:
            g.add(fact_edge(f, res, voc))
            for triple in fact_triples(f, res, voc, fact_ns):
                g.add(triple)
    return g


def describe_node(kg: KnowledgeGraph, node_id: str, base_iri: str) -> Graph:
    """A node's description, built from its own records (not from the whole graph): the node's
    triples, the pt/en labels of the resources they point to, and every `ygo:Fact` it is the
    `ygo:subject` of with that fact's triples. The same graph as picking those triples out of
    `to_rdf(kg, base_iri)`."""
    res, voc, fact_ns = namespaces(base_iri)
    g = new_graph(base_iri)
    facts = [f for f in kg.out(node_id) if f.predicate not in STRUCTURAL]
    own = [*node_triples(kg.node(node_id), res, voc), *(fact_edge(f, res, voc) for f in facts)]
    for s, p, o in own:
        g.add((s, p, o))
        for triple in labels_at(kg, res, o):
            g.add(triple)
    for f in facts:
        for triple in fact_triples(f, res, voc, fact_ns):
            g.add(triple)
    return g


def labels_at(kg: KnowledgeGraph, res: Namespace, term: Term) -> Iterator[Triple]:
    """The skos:prefLabel triples of the node `term` names, when it names one of the graph's."""
    if not (isinstance(term, URIRef) and term.startswith(res)):
        return
    n = kg.get(term[len(res) :])
    for label in pref_labels(n) if n is not None else ():
        yield term, SKOS.prefLabel, label


def pref_labels(n: Node) -> Iterator[Literal]:
    """A node's skos:prefLabel values (pt, en)."""
    if n.label_pt:
        yield Literal(n.label_pt, lang="pt")
    if n.label_en:
        yield Literal(n.label_en, lang="en")


def node_triples(n: Node, res: Namespace, voc: Namespace) -> Iterator[Triple]:
    """The triples whose subject is the node, but for its facts' edges (`fact_edge`)."""
    s = res[n.id]
    yield s, RDF.type, voc[n.type]
    for label in pref_labels(n):
        yield s, SKOS.prefLabel, label
    for alias in n.props.get("aliases", []):
        yield s, SKOS.altLabel, Literal(alias)
    for key in ("definition_pt", "definition_en"):
        if n.props.get(key):
            yield s, SKOS.definition, Literal(n.props[key], lang=key[-2:])
    if n.text is not None:
        yield s, voc.text, Literal(n.text, lang="pt")
    if n.span is not None:
        yield s, voc.document, res[n.span.document]
        yield s, voc.start, Literal(n.span.start, datatype=XSD.integer)
        yield s, voc.end, Literal(n.span.end, datatype=XSD.integer)
    if n.order is not None:
        yield s, voc.order, Literal(n.order, datatype=XSD.integer)
    if n.parent is not None:
        yield s, DCTERMS.isPartOf, res[n.parent]
    if n.type == "Card":
        yield s, voc.cardType, Literal(n.props["card_type"])
        if n.props.get("property"):
            yield s, voc.property, Literal(n.props["property"])
    if n.type == "Claim":
        yield s, voc.holds, Literal(bool(n.props["holds"]))
    if n.props.get("number") is not None:
        yield s, DCTERMS.identifier, Literal(str(n.props["number"]))


def fact_edge(f: Fact, res: Namespace, voc: Namespace) -> Triple:
    """A typed fact as one direct triple (subject, predicate, object)."""
    return res[f.subject], voc[camel(f.predicate)], res[f.object]


def fact_triples(f: Fact, res: Namespace, voc: Namespace, fact_ns: Namespace) -> Iterator[Triple]:
    """A typed fact as a `ygo:Fact` resource (IRI from its content): its parts, authority, source."""
    digest = hashlib.sha1(
        f"{f.subject}|{f.predicate}|{f.object}|{f.source}|{f.authority}|{sorted(f.props.items())}".encode()
    ).hexdigest()[:20]
    fnode = fact_ns[digest]
    yield fnode, RDF.type, voc.Fact
    yield fnode, voc.subject, res[f.subject]
    yield fnode, voc.predicate, voc[camel(f.predicate)]
    yield fnode, voc.object, res[f.object]
    yield fnode, voc.authority, Literal(f.authority)
    if f.source is not None:
        yield fnode, PROV.wasDerivedFrom, res[f.source]


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
