"""Read-only SPARQL 1.1 over the knowledge base's RDF graph: checking, answering, negotiating.

`execute` answers one query in the current process: it parses the text, refuses anything that is
not a plain query over the local graph (updates, SERVICE, FROM / FROM NAMED, GRAPH) by looking at
the parsed request and its algebra (never a regex), caps the number of results and serializes
them in the negotiated format. Bounding the time a query runs needs a process that can be killed:
`kb.adapters.sparql_workers.SparqlEndpoint` runs `execute` in forked, sandboxed workers.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from pyparsing import ParseBaseException, ParseResults
from rdflib import Graph, URIRef
from rdflib.namespace import SKOS
from rdflib.plugins.sparql.algebra import translateQuery
from rdflib.plugins.sparql.evaluate import evalQuery
from rdflib.plugins.sparql.parser import parseQuery, parseUpdate
from rdflib.plugins.sparql.parserutils import CompValue
from rdflib.plugins.sparql.processor import SPARQLResult
from rdflib.plugins.sparql.sparql import Query

from kb.errors import KBError

# Media types a result can be written in, by query form; the first is the default.
SOLUTION_TYPES = {
    "application/sparql-results+json": "json",
    "application/json": "json",
    "application/sparql-results+xml": "xml",
    "application/xml": "xml",
    "text/xml": "xml",
    "text/csv": "csv",
}
BOOLEAN_TYPES = {k: v for k, v in SOLUTION_TYPES.items() if v != "csv"}
GRAPH_TYPES = {
    "text/turtle": "turtle",
    "application/ld+json": "json-ld",
    "application/n-triples": "nt",
    "application/rdf+xml": "xml",
}
# The media type each serializer's output is labelled with.
CANONICAL = {
    "json": "application/sparql-results+json",
    "xml": "application/sparql-results+xml",
    "csv": "text/csv",
}
FORBIDDEN_PATTERNS = {
    "ServiceGraphPattern": "SERVICE (federated queries) is not allowed: "
    "the endpoint never contacts other services",
    "DatasetClause": "FROM / FROM NAMED is not supported: "
    "the endpoint queries its own single default graph and never loads other graphs",
    "Graph": "GRAPH patterns are not supported: the knowledge base is one default graph "
    "without named graphs",
}
CONTEXT_CHARS = 60  # of the offending line shown either side of a syntax error


class SparqlError(KBError):
    """A query the endpoint refuses or could not answer (HTTP 400)."""


class MalformedQuery(SparqlError):
    """A query the SPARQL parser rejects; `line` and `column` locate the error (1-based)."""

    def __init__(self, reason: str, line: int, column: int, text_line: str) -> None:
        self.reason = reason
        self.line = line
        self.column = column
        self.text_line = text_line
        start = max(0, column - 1 - CONTEXT_CHARS)
        excerpt = text_line[start : column - 1 + CONTEXT_CHARS]
        caret = " " * (column - 1 - start) + "^"
        super().__init__(
            f"malformed SPARQL query at line {line}, column {column}: {reason}\n{excerpt}\n{caret}"
        )


class QueryStopped(SparqlError):
    """A query that ran past the time bound and was stopped."""


class NotAcceptable(KBError):
    """No media type the client accepts can carry this result (HTTP 406)."""

    def __init__(self, accept: str, offers: Sequence[str]) -> None:
        self.accept = accept
        self.offers = list(offers)
        super().__init__(f"cannot answer in {accept!r}; available: {', '.join(offers)}")


class EndpointBusy(KBError):
    """Every query worker stayed busy for the whole time bound (HTTP 503)."""


# --- content negotiation ---------------------------------------------------------------------


def parse_accept(header: str) -> list[tuple[str, float]]:
    """(media range, q) pairs of an Accept header; malformed q values count as 1."""
    ranges: list[tuple[str, float]] = []
    for part in header.split(","):
        media, *params = (p.strip() for p in part.split(";"))
        if not media:
            continue
        q = 1.0
        for param in params:
            key, _, value = param.partition("=")
            if key.strip().lower() == "q":
                try:
                    q = min(max(float(value), 0.0), 1.0)
                except ValueError:
                    q = 1.0
        ranges.append((media.lower(), q))
    return ranges


def _quality(offer: str, ranges: list[tuple[str, float]]) -> float:
    """q of the most specific range matching an offer (0 when none does)."""
    patterns = {offer: 2, offer.split("/")[0] + "/*": 1, "*/*": 0}
    matches = [(patterns[media], q) for media, q in ranges if media in patterns]
    return max(matches, key=lambda match: match[0])[1] if matches else 0.0


def negotiate(accept: str | None, offers: Sequence[str]) -> str | None:
    """The offer the client prefers (ties go to the earlier offer); the first when no Accept."""
    if accept is None or not accept.strip():
        return offers[0]
    ranges = parse_accept(accept)
    scored = [(_quality(offer, ranges), -i, offer) for i, offer in enumerate(offers)]
    q, _, offer = max(scored)
    return offer if q > 0 else None


# --- checking a query ------------------------------------------------------------------------


def _walk(node: object) -> Iterator[CompValue]:
    """Every algebra / parse node under `node` (CompValues inside dicts, lists, parse results)."""
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, CompValue):
            yield item
            stack.extend(item.values())
        elif isinstance(item, list | tuple | set | ParseResults):
            stack.extend(item)


def _refuse_update(text: str) -> None:
    """Raise a clear error if the text is a SPARQL Update (which the query parser rejected)."""
    try:
        request = parseUpdate(text)
    except (ParseBaseException, RecursionError):
        return
    operations = sorted({op.name for op in request.request if isinstance(op, CompValue)})
    raise SparqlError(
        f"SPARQL Update ({', '.join(operations) or 'update'}) is not allowed: "
        "the endpoint is read-only"
    )


def prepare(text: str, namespaces: Mapping[str, Any]) -> Query:
    """The parsed and checked query, or SparqlError (malformed, update, SERVICE, FROM, GRAPH)."""
    try:
        tree = parseQuery(text)
    except ParseBaseException as exc:
        _refuse_update(text)
        found = getattr(exc, "found", "")
        reason = f"{exc.msg}, found {found}" if found else exc.msg
        raise MalformedQuery(reason, exc.lineno, exc.col, exc.line) from None
    except RecursionError:
        raise SparqlError("the query is nested too deeply") from None
    try:
        query = translateQuery(tree, initNs=dict(namespaces))
    except Exception as exc:  # rdflib raises bare Exceptions, e.g. for unknown prefixes
        raise SparqlError(f"invalid SPARQL query: {exc}") from None
    for node in _walk(query.algebra):
        if node.name in FORBIDDEN_PATTERNS:
            raise SparqlError(FORBIDDEN_PATTERNS[node.name])
    return query


# --- answering a query -----------------------------------------------------------------------


def _offers(form: str) -> dict[str, str]:
    if form == "SELECT":
        return SOLUTION_TYPES
    if form == "ASK":
        return BOOLEAN_TYPES
    return GRAPH_TYPES


def _too_many(limit: int) -> SparqlError:
    return SparqlError(
        f"the query has more than {limit} results (sparql_max_results); "
        "add a LIMIT or narrow the pattern"
    )


def _solutions(result: Mapping[str, Any], limit: int) -> SPARQLResult:
    """A SELECT result holding at most `limit` rows (read lazily; more is an error)."""
    rows = list(itertools.islice(result["bindings"], limit + 1))
    if len(rows) > limit:
        raise _too_many(limit)
    return SPARQLResult({"type_": "SELECT", "vars_": result["vars_"], "bindings": rows})


def execute(graph: Graph, text: str, accept: str | None, max_results: int) -> tuple[str, str]:
    """Answer one query over `graph` in this process: (body, media type)."""
    query = prepare(text, dict(graph.namespaces()))
    form = query.algebra.name.removesuffix("Query").upper()
    offers = _offers(form)
    media = negotiate(accept, list(offers))
    if media is None:
        raise NotAcceptable(accept or "", list(offers))
    fmt = offers[media]
    try:
        raw = evalQuery(graph, query)
        if form == "SELECT":
            return _serialize(_solutions(raw, max_results), fmt), CANONICAL[fmt]
        if form == "ASK":
            return _serialize(SPARQLResult(raw), fmt), CANONICAL[fmt]
        result: Graph = raw["graph"]
        if len(result) > max_results:
            raise _too_many(max_results)
        return result.serialize(format=fmt), media
    except (KBError, MemoryError, PermissionError):
        raise
    except Exception as exc:  # evaluation errors are about the query (types, functions, …)
        raise SparqlError(f"the query failed: {type(exc).__name__}: {exc}") from None


def _serialize(result: SPARQLResult, fmt: str) -> str:
    data = result.serialize(format=fmt)
    return data.decode("utf-8") if data is not None else ""


# --- a node's description --------------------------------------------------------------------


def describe(graph: Graph, subject: URIRef, fact_subject: URIRef) -> Graph:
    """The subject's own triples, the labels of what they point to, and the facts it states.

    A fact resource (`ygo:Fact`) belongs to the description when its `fact_subject` property
    (ygo:subject) is the node; its own triples come along.
    """
    out = Graph()
    for prefix, ns in graph.namespaces():
        out.bind(prefix, ns, override=True, replace=True)
    for s, p, o in graph.triples((subject, None, None)):
        out.add((s, p, o))
        if isinstance(o, URIRef):
            for label in graph.objects(o, SKOS.prefLabel):
                out.add((o, SKOS.prefLabel, label))
    for fact in graph.subjects(fact_subject, subject):
        for triple in graph.triples((fact, None, None)):
            out.add(triple)
    return out
