"""Read-only SPARQL 1.1 over the knowledge base's RDF: errors, checking, negotiating.

Oxigraph answers the queries (`kb.adapters.oxigraph_store`, inside the killable worker processes
of `kb.adapters.sparql_workers`, or an external server: `kb.adapters.sparql_remote`); this module
and `kb.linked_data.sparql_results` (the writers) hold what does not depend on where a query runs.
`prepare` parses the text with rdflib's SPARQL parser and refuses anything that is not a plain
query over the local graph (updates, SERVICE, FROM / FROM NAMED, GRAPH) by looking at the parsed
request and its algebra (never a regex); `choose_writer` negotiates the result's media type.

Status codes (the edges translate): MalformedQuery and the other plain SparqlErrors (updates,
unknown prefixes) are 400; QueryRefused (a well-formed query this endpoint will not run) is 422;
QueryTooLarge (past the row / triple, byte or memory bound) is 503 without Retry-After (the same
query fails again: it must be narrowed); QueryStopped, EndpointBusy and WorkerRestarting (the
worker died and is being replaced) are 503 with Retry-After; NotAcceptable is 406.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Protocol

from pyparsing import ParseBaseException, ParseResults
from rdflib import URIRef
from rdflib.namespace import DCTERMS, OWL, PROV, RDF, RDFS, SKOS, XSD
from rdflib.plugins.sparql.algebra import translateQuery
from rdflib.plugins.sparql.parser import parseQuery, parseUpdate
from rdflib.plugins.sparql.parserutils import CompValue

from kb.errors import KBError

# Media types a result can be written in, by query form; the first is the default.
SOLUTION_TYPES = {
    "application/sparql-results+json": "json",
    "application/json": "json",
    "application/sparql-results+xml": "xml",
    "application/xml": "xml",
    "text/xml": "xml",
    "text/csv": "csv",
    "text/tab-separated-values": "tsv",
}
BOOLEAN_TYPES = {k: v for k, v in SOLUTION_TYPES.items() if v not in ("csv", "tsv")}
GRAPH_TYPES = {
    "text/turtle": "turtle",
    "application/ld+json": "json-ld",
    "application/n-triples": "nt",
    "application/rdf+xml": "xml",
}
# The media type each result serializer's output is labelled with.
CANONICAL = {
    "json": "application/sparql-results+json",
    "xml": "application/sparql-results+xml",
    "csv": "text/csv",
    "tsv": "text/tab-separated-values",
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
    """A query the endpoint cannot take (an update, an unknown prefix…): HTTP 400."""

    code = "invalid_query"


class UpdateRefused(SparqlError):
    """A SPARQL Update: the endpoint is read-only (HTTP 400)."""

    code = "sparql_update"


class MalformedQuery(SparqlError):
    """A query the SPARQL parser rejects; `line` and `column` locate the error (1-based)."""

    code = "malformed_query"

    def __init__(self, reason: str, line: int, column: int, text_line: str) -> None:
        self.reason = reason
        self.line = line
        self.column = column
        self.params = {"line": line, "column": column}
        self.text_line = text_line
        start = max(0, column - 1 - CONTEXT_CHARS)
        excerpt = text_line[start : column - 1 + CONTEXT_CHARS]
        caret = " " * (column - 1 - start) + "^"
        super().__init__(
            f"malformed SPARQL query at line {line}, column {column}: {reason}\n{excerpt}\n{caret}"
        )


class QueryRefused(SparqlError):
    """A well-formed query this endpoint will not run (SERVICE, FROM, GRAPH…) or whose
    evaluation failed on its own terms (a type error…): HTTP 422."""

    code = "query_refused"


class QueryTooLarge(SparqlError):
    """A query past the endpoint's size bounds (rows or triples, memory): HTTP 503, no
    Retry-After, since only a narrower query (a LIMIT) gets an answer."""

    code = "query_too_large"


class TooManyResults(QueryTooLarge):
    """A result with more rows or triples than `sparql_max_results` (HTTP 503)."""

    code = "too_many_results"

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.params = {"limit": limit}
        super().__init__(
            f"the query has more than {limit} results (sparql_max_results); "
            "add a LIMIT or narrow the pattern"
        )


class ResultTooLarge(QueryTooLarge):
    """A result whose body is longer than `sparql_max_result_bytes` (HTTP 503, no Retry-After):
    a few rows can be huge (a GROUP_CONCAT over the whole graph), and a row bound alone lets them
    through."""

    code = "result_too_large"

    def __init__(self, limit: int, size: int | None = None) -> None:
        self.limit = limit
        self.size = size
        self.params = {"limit": limit} if size is None else {"limit": limit, "size": size}
        got = f"{size} bytes, more" if size is not None else "more"
        super().__init__(
            f"the query's result is {got} than the limit of {limit} bytes "
            "(sparql_max_result_bytes); select fewer or shorter values, or add a LIMIT"
        )


class QueryStopped(SparqlError):
    """A query that ran past the time bound and was stopped (HTTP 503, Retry-After)."""

    code = "query_stopped"


class NotAcceptable(KBError):
    """No media type the client accepts can carry this result (HTTP 406)."""

    code = "not_acceptable"

    def __init__(self, accept: str, offers: Sequence[str]) -> None:
        self.accept = accept
        self.offers = list(offers)
        super().__init__(f"cannot answer in {accept!r}; available: {', '.join(offers)}")


class EndpointBusy(KBError):
    """No query worker (or external server) could take the query in time (HTTP 503)."""

    code = "busy"


class WorkerRestarting(EndpointBusy):
    """The worker answering the query stopped (killed, or out of memory past what Python can
    catch) and a new one is starting (HTTP 503, Retry-After)."""

    code = "worker_restarting"


class SparqlBackend(Protocol):
    """Where checked queries are answered: embedded Oxigraph workers or an external server."""

    def query(self, text: str, accept: str | None = None) -> tuple[str, str]:
        """(body, media type) of one query's result, or a SparqlError / NotAcceptable."""
        ...

    def warm(self) -> None:
        """Get ready to answer (start workers, check the server); never raises."""
        ...

    def close(self) -> None:
        """Release what `warm` or the queries started."""
        ...


def declared_prefixes(base_iri: str) -> dict[str, str]:
    """The prefixes every query may use without declaring them (prefix → namespace IRI)."""
    from kb.linked_data.rdf import namespaces  # lazily: query workers need no graph code

    res, voc, _facts = namespaces(base_iri)
    spaces = {"ygo": voc, "kb": res, "skos": SKOS, "dcterms": DCTERMS, "prov": PROV}
    spaces |= {"rdf": RDF, "rdfs": RDFS, "xsd": XSD, "owl": OWL}
    return {prefix: str(ns) for prefix, ns in spaces.items()}


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


def offers_for(form: str) -> dict[str, str]:
    """Media type → writer name for a query form (SELECT, ASK, CONSTRUCT, DESCRIBE)."""
    if form == "SELECT":
        return SOLUTION_TYPES
    if form == "ASK":
        return BOOLEAN_TYPES
    return GRAPH_TYPES


def choose_writer(form: str, accept: str | None) -> tuple[str, str]:
    """(writer name, media type) the client accepts for this form, or NotAcceptable."""
    offers = offers_for(form)
    media = negotiate(accept, list(offers))
    if media is None:
        raise NotAcceptable(accept or "", list(offers))
    fmt = offers[media]
    if form in ("SELECT", "ASK"):
        return fmt, CANONICAL[fmt]
    return fmt, media


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
    raise UpdateRefused(
        f"SPARQL Update ({', '.join(operations) or 'update'}) is not allowed: "
        "the endpoint is read-only"
    )


def prepare(text: str, prefixes: Mapping[str, str]) -> str:
    """The form (SELECT, ASK, CONSTRUCT, DESCRIBE) of a checked query, or a SparqlError.

    Malformed text and updates are SparqlErrors (400); SERVICE, FROM and GRAPH are QueryRefused.
    Accepted queries are remembered (wikis send the same few queries again and again).
    """
    return _checked_form(text, tuple(sorted(prefixes.items())))


@functools.lru_cache(maxsize=256)
def _checked_form(text: str, prefixes: tuple[tuple[str, str], ...]) -> str:
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
        query = translateQuery(tree, initNs={p: URIRef(ns) for p, ns in prefixes})
    except RecursionError:
        raise SparqlError("the query is nested too deeply") from None
    except Exception as exc:  # rdflib raises bare Exceptions, e.g. for unknown prefixes
        raise SparqlError(f"invalid SPARQL query: {exc}") from None
    for node in _walk(query.algebra):
        if node.name in FORBIDDEN_PATTERNS:
            raise QueryRefused(FORBIDDEN_PATTERNS[node.name])
    return str(query.algebra.name).removesuffix("Query").upper()


_OXIGRAPH_POSITION = re.compile(r"error at (\d+):(\d+)(?:-\d+:\d+)?: ?(.*)", re.DOTALL)


def engine_syntax_error(exc: SyntaxError, text: str) -> SparqlError:
    """A syntax error Oxigraph found in a query rdflib's parser let through, located if it can."""
    found = _OXIGRAPH_POSITION.search(str(exc))
    if found is None:
        return SparqlError(f"malformed SPARQL query: {exc}")
    line, column = int(found[1]), int(found[2])
    lines = text.split("\n")
    text_line = lines[line - 1] if 0 < line <= len(lines) else ""
    return MalformedQuery(found[3].strip() or "syntax error", line, max(column, 1), text_line)
