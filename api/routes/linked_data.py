"""Routes: linked data — `/id/{id}` with content negotiation, `/sparql` and `/vocab`.

- `GET /id/{id}`: the node as JSON (`service.show`, the default, also for `*/*` and browsers), or
  its RDF description as JSON-LD (`Accept: application/ld+json`) or Turtle (`text/turtle`);
  `?as=json|jsonld|ttl` wins over Accept. Nothing acceptable → 406; unknown id → 404.
- `GET|HEAD|POST /sparql`: the SPARQL 1.1 protocol (query only) answered by Oxigraph (the
  build's store, or YGO_SPARQL_ENDPOINT); results as SPARQL JSON (default), XML, CSV or TSV,
  graphs as Turtle (default), JSON-LD, N-Triples or RDF/XML with the declared prefixes. Statuses
  (SPARQL_STATUS below): 400 malformed, 422 refused, 503 too large (no Retry-After: too many rows,
  too many bytes, too much memory), 503 + Retry-After stopped, busy or its worker restarting. A query waits in the route's own thread pool (SparqlGate: at most
  SPARQL_REQUESTS answered or waiting, more → 503 at once), never in the shared one, so the
  other routes stay free however many SPARQL requests queue up.
- `GET /vocab`: the vocabulary as HTML (default) or Turtle / JSON-LD.
- `GET /context.jsonld`: the JSON-LD `@context` the compacted JSON-LD of `/id/{id}`, `/vocab` and
  `/export.jsonld` names by its public address (`<base>context.jsonld`).
HEAD is answered on every GET route, like GET without the body (api.caching). The SPARQL workers are
started when the app starts (its lifespan) in a background thread, and the server answers at once:
the start does not wait for them (~0.5 s, a store rebuild far longer); a query sent meanwhile waits
for the first worker.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import math
import threading
from collections.abc import AsyncIterator, Callable, Container
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import asynccontextmanager
from html import escape
from typing import Annotated, Any, TypeVar
from urllib.parse import parse_qs

from fastapi import FastAPI, Query, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response
from rdflib import RDF, RDFS, Graph, URIRef
from rdflib.namespace import OWL, XSD
from starlette.exceptions import HTTPException

from api.contract import JSON_LD_BODY, TEXT, TEXT_BODY, fixed, mark
from api.errors import ENVELOPE_REF, error_envelope, error_responses
from kb.errors import unknown_value
from kb.linked_data.rdf import namespaces, vocabulary
from kb.linked_data.sparql import (
    GRAPH_TYPES,
    SOLUTION_TYPES,
    EndpointBusy,
    MalformedQuery,
    NotAcceptable,
    QueryRefused,
    QueryStopped,
    QueryTooLarge,
    UpdateRefused,
    WorkerRestarting,
    negotiate,
)
from kb.schemas import NodeView
from kb.service import RulingsService

ID_OFFERS = {
    "application/json": "json",
    "application/ld+json": "jsonld",
    "text/turtle": "ttl",
    "text/html": "json",
}
VOCAB_OFFERS = {"text/html": "html", "text/turtle": "ttl", "application/ld+json": "jsonld"}
RDF_MEDIA = {"jsonld": "application/ld+json", "ttl": "text/turtle"}
VARY = {"Vary": "Accept"}
DATASET_PARAMS = (
    "default-graph-uri",
    "named-graph-uri",
    "using-graph-uri",
    "using-named-graph-uri",
)
FORM = "application/x-www-form-urlencoded"
SPARQL_REQUESTS = 16  # SPARQL requests one app answers or holds waiting for a worker at once
RESTART_SECONDS = 2  # Retry-After when a query's worker died: a new one starts in about a second
log = logging.getLogger(__name__)
T = TypeVar("T")

IdAs = Annotated[
    str | None,
    Query(
        alias="as",
        description="Representation; overrides the Accept header.",
        json_schema_extra=fixed(enum=list(dict.fromkeys(ID_OFFERS.values()))),
    ),
]
VocabAs = Annotated[
    str | None,
    Query(
        alias="as",
        description="Representation; overrides the Accept header.",
        json_schema_extra=fixed(enum=list(dict.fromkeys(VOCAB_OFFERS.values()))),
    ),
]
RDF_TEXT = TEXT_BODY
ID_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {
        "description": "The node (NodeView), or its RDF description by `as` or Accept.",
        "content": {"application/ld+json": JSON_LD_BODY, "text/turtle": RDF_TEXT},
    },
    **error_responses(404, 406, 422),
}
VOCAB_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {
        "description": "The vocabulary page, or the vocabulary as Turtle or JSON-LD.",
        "content": {"text/turtle": RDF_TEXT, "application/ld+json": JSON_LD_BODY},
    },
    **error_responses(406, 422, json_route=False),
}
ENVELOPE = {"application/json": {"schema": ENVELOPE_REF}}
# What each status of /sparql means: the protocol's 400 is for malformed queries only, so SPARQL
# clients report the other failures as what they are.
SPARQL_STATUS = {
    400: "Malformed query (the envelope has the parser's `line` and `column`), an unknown "
    "prefix, or a SPARQL Update (the endpoint is read-only).",
    406: "No result format the Accept header allows: `available` lists them.",
    415: "POST with a content type other than application/sparql-query or a form.",
    422: "A well-formed query the endpoint will not run: SERVICE, FROM / FROM NAMED, GRAPH or "
    "the dataset parameters (one closed default graph); an evaluation error; or a missing query.",
    503: "With Retry-After: stopped after `sparql_timeout` seconds, or every worker busy, or too "
    "many waiting requests, or the worker answering it stopped and a new one is starting "
    "(`worker_restarting`); retry after the header's seconds (a stopped query will stop again "
    "unless narrowed). Without Retry-After: the result is past a bound, more than "
    "`sparql_max_results` rows or triples, more than `sparql_max_result_bytes` bytes or more "
    "memory than a query may use (the message names it: add a LIMIT; nothing is silently "
    "truncated).",
}
SPARQL_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {
        "description": "SELECT / ASK: SPARQL results (JSON by default, XML, CSV, TSV; ASK has no "
        "CSV/TSV); CONSTRUCT / DESCRIBE: RDF (Turtle by default, JSON-LD, N-Triples, RDF/XML) "
        "with the declared prefixes. By the Accept header.",
        "content": {media: RDF_TEXT for media in {**SOLUTION_TYPES, **GRAPH_TYPES}},
    },
    **{code: {"description": text, "content": ENVELOPE} for code, text in SPARQL_STATUS.items()},
}
SPARQL_DESCRIPTION = (
    "A read-only SPARQL 1.1 query (the protocol's query operation) over the knowledge base, "
    "answered by Oxigraph. The prefixes `ygo: kb: skos: dcterms: prov: rdf: rdfs: xsd: owl:` are "
    "predeclared. Bounds: `sparql_timeout` seconds (then 503 with Retry-After), "
    "`sparql_max_results` rows or triples and `sparql_max_result_bytes` bytes (then 503 without "
    "Retry-After, naming the limit: results are never silently truncated), at most "
    f"{SPARQL_REQUESTS} requests answered or waiting (then 503). HEAD answers like GET without "
    "the body."
)


def choose(as_: str | None, accept: str | None, offers: dict[str, str]) -> str:
    """The representation named by `as`, else the one the Accept header prefers."""
    names = list(dict.fromkeys(offers.values()))
    if as_ is not None:
        if as_ not in names:
            raise unknown_value(
                "as", as_, f"unknown representation {as_!r}; use {', '.join(names)}"
            )
        return as_
    media = negotiate(accept, list(offers))
    if media is None:
        raise NotAcceptable(accept or "", list(offers))
    return offers[media]


class SparqlGate:
    """The SPARQL route's limiter: its own thread pool, and a cap on requests in it.

    A request is admitted only while fewer than `size` are being answered or waiting for a
    worker (each waits at most `sparql_timeout`), else EndpointBusy at once; the threads are not
    the shared pool's, so /health and the other routes never wait behind SPARQL. Loop-agnostic
    (a thread lock and a future), so it works whichever event loop drives the app.
    """

    def __init__(self, size: int = SPARQL_REQUESTS) -> None:
        self.size = size
        self._pool = ThreadPoolExecutor(size, thread_name_prefix="sparql-request")
        self._lock = threading.Lock()
        self._pending = 0

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        with self._lock:
            if self._pending >= self.size:
                raise EndpointBusy(
                    f"{self.size} SPARQL requests are already answered or waiting; try again later"
                )
            self._pending += 1
        try:
            # in the request's context, so its log lines carry the request id
            future: Future[T] = self._pool.submit(contextvars.copy_context().run, fn, *args)
        except BaseException:
            self._done(None)
            raise
        future.add_done_callback(self._done)
        return await asyncio.wrap_future(future)

    def _done(self, _: object) -> None:
        with self._lock:
            self._pending -= 1


def warm_endpoint(service: RulingsService) -> None:
    """Open (or rebuild) the SPARQL store and start its workers; never raises."""
    try:
        service.sparql_endpoint().warm()
    except Exception:  # never a failed start: the first query will try again
        log.exception("the SPARQL endpoint could not be prepared")


def warm_with_the_app(app: FastAPI, service: RulingsService) -> None:
    """Start the SPARQL workers when the app starts, in a background thread (`app.state.
    sparql_warm`) the start does not wait for: the server answers at once, and a query sent
    before they are ready waits for the first one instead of starting its own."""
    outer = app.router.lifespan_context

    @asynccontextmanager
    async def lifespan(app_: Any) -> AsyncIterator[Any]:
        warm = threading.Thread(
            target=warm_endpoint, args=(service,), name="sparql-warm", daemon=True
        )
        app.state.sparql_warm = warm
        warm.start()
        async with outer(app_) as state:
            yield state

    app.router.lifespan_context = lifespan


def register(app: FastAPI, service: RulingsService) -> None:
    """Add the linked-data routes and the translation of their errors to the app."""
    install_error_handlers(app, retry_after=max(1, math.ceil(service.settings.sparql_timeout)))
    warm_with_the_app(app, service)
    gate = SparqlGate()

    @app.get(
        "/id/{node_id:path}",
        response_class=JSONResponse,
        response_model=NodeView,
        responses=ID_RESPONSES,
    )
    def node(node_id: str, request: Request, as_: IdAs = None) -> Response:
        """A node: JSON (default), JSON-LD or Turtle, by `?as=` or the Accept header."""
        fmt = choose(as_, request.headers.get("accept"), ID_OFFERS)
        if fmt == "json":
            return JSONResponse(service.show(node_id), headers=VARY)
        return Response(service.node_rdf(node_id, fmt), media_type=RDF_MEDIA[fmt], headers=VARY)

    async def answer(query: str | None, request: Request) -> Response:
        refuse_dataset(request.query_params)
        accept = request.headers.get("accept")
        body, media = await gate.run(service.sparql, query or "", accept)
        return Response(body, media_type=media, headers=VARY)

    @app.get(
        "/sparql",
        response_class=Response,
        responses=SPARQL_RESPONSES,
        description=SPARQL_DESCRIPTION,
    )
    async def sparql_get(
        request: Request,
        query: Annotated[
            str | None, Query(description="A SPARQL 1.1 query.", json_schema_extra=mark("sparql"))
        ] = None,
    ) -> Response:
        """Run a read-only SPARQL query given as `?query=`."""
        return await answer(query, request)

    @app.post(
        "/sparql",
        response_class=Response,
        responses=SPARQL_RESPONSES,
        description=SPARQL_DESCRIPTION,
        openapi_extra={"requestBody": POST_BODY},
    )
    async def sparql_post(request: Request) -> Response:
        """Run a read-only SPARQL query sent as a form field or an application/sparql-query body."""
        return await answer(await posted_query(request), request)

    @app.get(
        "/context.jsonld",
        response_class=JSONResponse,
        responses={200: {"content": {"application/ld+json": JSON_LD_BODY}}},
    )
    def jsonld_context() -> Response:
        """The JSON-LD context of the compacted JSON-LD (`/id/{id}`, `/vocab`, the export)."""
        return JSONResponse(service.jsonld_context(), media_type="application/ld+json")

    @app.get("/vocab", response_class=HTMLResponse, responses=VOCAB_RESPONSES)
    def vocab(request: Request, as_: VocabAs = None) -> Response:
        """Every class and property: HTML (default), Turtle or JSON-LD."""
        fmt = choose(as_, request.headers.get("accept"), VOCAB_OFFERS)
        if fmt == "html":
            graph = vocabulary(service.settings.base_iri)
            return HTMLResponse(vocab_html(graph, service.settings.base_iri), headers=VARY)
        return Response(service.vocab(fmt), media_type=RDF_MEDIA[fmt], headers=VARY)


POST_BODY = {
    "content": {
        "application/sparql-query": {"schema": {"type": "string", "pattern": TEXT}},
        FORM: {
            "schema": {
                "type": "object",
                "properties": {"query": {"type": "string", "pattern": TEXT}},
                "required": ["query"],
            }
        },
    }
}


def install_error_handlers(app: FastAPI, retry_after: int = 1) -> None:
    """The SPARQL statuses (SPARQL_STATUS): 400 with the position for MalformedQuery (other
    SparqlErrors are 400 through the KBError handler), 406, 422 for QueryRefused, 503 without
    Retry-After for QueryTooLarge, 503 with Retry-After for EndpointBusy (1 s), WorkerRestarting
    (RESTART_SECONDS) and QueryStopped (`retry_after` s)."""

    @app.exception_handler(NotAcceptable)
    async def _not_acceptable(_: Request, exc: NotAcceptable) -> JSONResponse:
        return error_envelope(406, exc, available=exc.offers)

    @app.exception_handler(EndpointBusy)
    async def _busy(request: Request, exc: EndpointBusy) -> JSONResponse:
        count_stop(request, "busy")
        response = error_envelope(503, exc)
        response.headers["Retry-After"] = "1"
        return response

    @app.exception_handler(WorkerRestarting)
    async def _restarting(request: Request, exc: WorkerRestarting) -> JSONResponse:
        count_stop(request, "restart")
        response = error_envelope(503, exc)
        response.headers["Retry-After"] = str(RESTART_SECONDS)
        return response

    @app.exception_handler(QueryStopped)
    async def _stopped(request: Request, exc: QueryStopped) -> JSONResponse:
        count_stop(request, "timeout")
        response = error_envelope(503, exc)
        response.headers["Retry-After"] = str(retry_after)
        return response

    @app.exception_handler(QueryTooLarge)
    async def _too_large(_: Request, exc: QueryTooLarge) -> JSONResponse:
        return error_envelope(503, exc)

    @app.exception_handler(QueryRefused)
    async def _refused(_: Request, exc: QueryRefused) -> JSONResponse:
        return error_envelope(422, exc)

    @app.exception_handler(MalformedQuery)
    async def _malformed(_: Request, exc: MalformedQuery) -> JSONResponse:
        return error_envelope(400, exc, line=exc.line, column=exc.column)


def count_stop(request: Request, reason: str) -> None:
    """Count a stopped SPARQL request in the app's metrics (api.metrics), when it has them."""
    metrics = getattr(request.app.state, "metrics", None)
    if metrics is not None:
        metrics.sparql_stops.labels(reason).inc()


def refuse_dataset(params: Container[str]) -> None:
    """The protocol's dataset parameters name other graphs; this endpoint has only its own."""
    named = [p for p in DATASET_PARAMS if p in params]
    if named:
        raise QueryRefused(
            f"{', '.join(named)} is not supported: the endpoint has one default graph"
        )


async def posted_query(request: Request) -> str | None:
    """The query of a POST: an application/sparql-query body or a form's `query` field."""
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind == "application/sparql-update":
        raise UpdateRefused("SPARQL Update is not allowed: the endpoint is read-only")
    if kind not in ("application/sparql-query", FORM):
        raise HTTPException(
            415,
            f"unsupported content type {kind or 'none'!r}; use application/sparql-query or {FORM}",
        )
    try:
        text = (await request.body()).decode("utf-8")
    except UnicodeDecodeError:
        raise HTTPException(400, "the request body is not UTF-8") from None
    if kind == "application/sparql-query":
        return text
    form = parse_qs(text, keep_blank_values=True)
    if "update" in form:
        raise UpdateRefused("SPARQL Update is not allowed: the endpoint is read-only")
    refuse_dataset(form)
    return form.get("query", [None])[0]


# --- the vocabulary page ---------------------------------------------------------------------


def vocab_html(graph: Graph, base_iri: str) -> str:
    """An HTML page documenting every class and property of the vocabulary graph."""
    voc = str(namespaces(base_iri)[1])
    classes = _terms(graph, OWL.Class)
    properties = _terms(graph, RDF.Property)
    return VOCAB_PAGE.format(
        ns=escape(voc),
        classes="\n".join(_term_row(graph, voc, c, with_range=False) for c in classes),
        properties="\n".join(_term_row(graph, voc, p, with_range=True) for p in properties),
    )


def _terms(graph: Graph, kind: URIRef) -> list[URIRef]:
    """The IRIs typed `kind`, sorted."""
    return sorted(t for t in graph.subjects(RDF.type, kind) if isinstance(t, URIRef))


def _label(graph: Graph, term: URIRef, lang: str) -> str:
    labels = [
        str(o) for o in graph.objects(term, RDFS.label) if getattr(o, "language", None) == lang
    ]
    return escape(labels[0]) if labels else ""


def _link(voc: str, term: object) -> str:
    if term is None:
        return "—"
    if not str(term).startswith(voc):  # a datatype: xsd:integer …
        return f"<code>xsd:{escape(str(term).removeprefix(str(XSD)))}</code>"
    name = str(term).removeprefix(voc)
    return f'<a href="#{escape(name)}"><code>ygo:{escape(name)}</code></a>'


def _term_row(graph: Graph, voc: str, term: URIRef, *, with_range: bool) -> str:
    name = escape(str(term).removeprefix(voc))
    cells = [
        f'<td id="{name}"><code>ygo:{name}</code></td>',
        f'<td lang="en">{_label(graph, term, "en")}</td>',
        f'<td lang="pt">{_label(graph, term, "pt")}</td>',
        f"<td>{escape(str(graph.value(term, RDFS.comment) or ''))}</td>",
    ]
    if with_range:
        cells.append(f"<td>{_link(voc, graph.value(term, RDFS.domain))}</td>")
        cells.append(f"<td>{_link(voc, graph.value(term, RDFS.range))}</td>")
    return f"<tr>{''.join(cells)}</tr>"


VOCAB_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>ygo-rulings vocabulary</title>
<style>body{{font-family:system-ui,sans-serif;margin:2rem;max-width:70rem}}
table{{border-collapse:collapse;width:100%}}td,th{{border:1px solid #ccc;padding:.3rem .5rem;
text-align:left;vertical-align:top}}th{{background:#f3f3f3}}</style></head>
<body><h1>ygo-rulings vocabulary</h1>
<p>Namespace <code>{ns}</code> (prefix <code>ygo:</code>). Resources live under
<code>…/id/</code>; labels are <code>skos:prefLabel</code> (pt, en), containment is
<code>dcterms:isPartOf</code>, every typed fact is also a <code>ygo:Fact</code> with
<code>prov:wasDerivedFrom</code> its source passage. Also as
<a href="?as=ttl">Turtle</a> and <a href="?as=jsonld">JSON-LD</a>; the data:
<a href="export.ttl">export.ttl</a>, <a href="sparql">SPARQL endpoint</a>.</p>
<h2>Classes</h2>
<table><tr><th>class</th><th>en</th><th>pt</th><th>comment</th></tr>
{classes}
</table>
<h2>Properties</h2>
<table><tr><th>property</th><th>en</th><th>pt</th><th>comment</th><th>domain</th><th>range</th></tr>
{properties}
</table></body></html>
"""
