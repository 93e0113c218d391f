"""RDF export of the graph with rdflib: Turtle and JSON-LD, deterministic byte for byte.

Resources live under `<base>id/<node id>`; the vocabulary under `<base>vocab#`. Labels are SKOS
(pt and en), containment is dcterms:isPartOf, and every typed fact is also a `ygo:Fact` resource
(IRI derived from its content) with prov:wasDerivedFrom its source passage and ygo:authority.
A Card carries its card-facts table data (`card_triples`): attribute, Type, Type line, Level,
Rank, Link rating, ATK/DEF, password, first TCG date, and per format with card rules its pool
membership and its status on the format's Forbidden & Limited list (`ygo:limitedIn format/…`).
JSON-LD is compacted with the context of `kb.linked_data.jsonld`.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Sequence

from rdflib import RDF, RDFS, Graph, Literal, Namespace, URIRef
from rdflib.namespace import DCTERMS, OWL, PROV, SKOS, XSD
from rdflib.term import Node as Term

from kb.cards.banlist import STATUS_NAMES, has_card_rules, in_pool, list_status
from kb.cards.nodes import record_of
from kb.formats import Formats, FormatSpec
from kb.graph import KnowledgeGraph
from kb.linked_data.jsonld import compact_graph
from kb.linked_data.vocab import CLASSES, PROPERTIES, camel
from kb.model import Fact, Node

STRUCTURAL = {"part_of"}
Triple = tuple[URIRef, URIRef, Term]
# Card-record field -> (property, XSD datatype; None: a plain string) of the card data a Card
# carries as literals.
CARD_LITERALS: tuple[tuple[str, str, URIRef | None], ...] = (
    ("attribute", "attribute", None),
    ("race", "race", None),
    ("type_line", "typeLine", None),
    ("level", "level", XSD.integer),
    ("rank", "rank", XSD.integer),
    ("link_rating", "linkRating", XSD.integer),
    ("atk", "atk", XSD.integer),
    ("defense", "def", XSD.integer),
    ("password", "password", XSD.integer),
    ("first_tcg_date", "firstTcgDate", XSD.date),
)
# A list status (kb.cards.banlist.STATUS_NAMES) -> the property stating it.
STATUS_PROPERTIES = {
    "forbidden": "forbiddenIn",
    "limited": "limitedIn",
    "semi-limited": "semiLimitedIn",
}


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
    g = new_graph(base_iri)
    for triple in graph_triples(kg, base_iri):
        g.add(triple)
    return g


def graph_triples(kg: KnowledgeGraph, base_iri: str) -> Iterator[Triple]:
    """The whole knowledge graph's triples, one at a time (a triple may come twice): what
    `to_rdf` holds, without building an rdflib Graph (the SPARQL store is loaded from these)."""
    res, voc, fact_ns = namespaces(base_iri)
    specs = card_rule_specs(kg)
    for n in kg.nodes:
        yield from node_triples(n, res, voc, specs)
    for f in kg.facts:
        if f.predicate not in STRUCTURAL:
            yield fact_edge(f, res, voc)
            yield from fact_triples(f, res, voc, fact_ns)


def describe_node(kg: KnowledgeGraph, node_id: str, base_iri: str) -> Graph:
    """A node's description, built from its own records (not from the whole graph): the node's
    triples, the pt/en labels of the resources they point to, and every `ygo:Fact` it is the
    `ygo:subject` of with that fact's triples. The same graph as picking those triples out of
    `to_rdf(kg, base_iri)`."""
    res, voc, fact_ns = namespaces(base_iri)
    g = new_graph(base_iri)
    facts = [f for f in kg.out(node_id) if f.predicate not in STRUCTURAL]
    own = [
        *node_triples(kg.node(node_id), res, voc, card_rule_specs(kg)),
        *(fact_edge(f, res, voc) for f in facts),
    ]
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


def card_rule_specs(kg: KnowledgeGraph) -> tuple[FormatSpec, ...]:
    """The formats of the graph that declare a card pool or a Forbidden & Limited list."""
    return tuple(s for s in Formats.of_nodes(kg.of_type("Format")).specs if has_card_rules(s))


def card_triples(
    n: Node, res: Namespace, voc: Namespace, specs: Sequence[FormatSpec]
) -> Iterator[Triple]:
    """A Card's card-facts data: typed literals, then per format with card rules its pool
    membership and its list status (a card the list does not name has none)."""
    s = res[n.id]
    record = record_of(n)
    for field, name, datatype in CARD_LITERALS:
        value = getattr(record, field)
        if value is not None:
            yield s, voc[name], Literal(value, datatype=datatype)
    for spec in specs:
        where = res[spec.node_id]
        if spec.card_pool and in_pool(record, spec):
            yield s, voc.inCardPoolOf, where
        status = list_status(record, spec)
        if status is not None:
            yield s, voc[STATUS_PROPERTIES[STATUS_NAMES[status]]], where


def node_triples(
    n: Node, res: Namespace, voc: Namespace, specs: Sequence[FormatSpec] = ()
) -> Iterator[Triple]:
    """The triples whose subject is the node, but for its facts' edges (`fact_edge`); a Card's
    list statuses are those of the formats `specs`."""
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
        yield from card_triples(n, res, voc, specs)
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
        elif t.datatype and t.datatype != "langString":
            g.add((p, RDFS.range, XSD[t.datatype]))
    return g


def serialize(g: Graph, fmt: str, base_iri: str) -> str:
    """Turtle ('ttl') or JSON-LD ('jsonld': compacted, its `@context` the one served at
    `<base>context.jsonld`) text."""
    if fmt == "ttl":
        return g.serialize(format="turtle")
    if fmt == "jsonld":
        return json.dumps(compact_graph(g, base_iri), ensure_ascii=False, indent=1, sort_keys=True)
    raise ValueError(f"unknown RDF format {fmt!r} (use ttl or jsonld)")
