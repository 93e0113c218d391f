"""Routes: linked data — `/id/{id}` with content negotiation, `/sparql` and `/vocab`.

- `GET /id/{id}`: the node as JSON (`service.show`, the default, also for `*/*` and browsers), or
  its RDF description as JSON-LD (`Accept: application/ld+json`) or Turtle (`text/turtle`);
  `?as=json|jsonld|ttl` wins over Accept. Nothing acceptable → 406; unknown id → 404.
- `GET|POST /sparql`: the SPARQL 1.1 protocol (query only) over the exported graph; results as
  SPARQL JSON (default), XML or CSV, graphs as Turtle (default), JSON-LD, N-Triples or RDF/XML.
  Refused or malformed queries → 400 (malformed ones also carry `line` and `column`), a query
  stopped at `sparql_timeout` or over `sparql_max_results` → 400, every worker busy → 503.
  The query runs in a worker thread that waits on a worker process (the endpoint bounds how
  many run at once), so the event loop and the other routes stay free.
- `GET /vocab`: the vocabulary as HTML (default) or Turtle / JSON-LD.
"""

from __future__ import annotations

from collections.abc import Container
from html import escape
from typing import Annotated
from urllib.parse import parse_qs

import anyio
from fastapi import FastAPI, Query, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response
from rdflib import RDF, RDFS, Graph, URIRef
from rdflib.namespace import OWL
from starlette.exceptions import HTTPException

from api.errors import envelope
from kb.errors import InvalidQuery
from kb.linked_data.rdf import namespaces, vocabulary
from kb.linked_data.sparql import EndpointBusy, MalformedQuery, NotAcceptable, negotiate
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

AsParam = Annotated[
    str | None,
    Query(alias="as", description="Representation; overrides the Accept header."),
]


def choose(as_: str | None, accept: str | None, offers: dict[str, str]) -> str:
    """The representation named by `as`, else the one the Accept header prefers."""
    names = list(dict.fromkeys(offers.values()))
    if as_ is not None:
        if as_ not in names:
            raise InvalidQuery("as", f"unknown representation {as_!r}; use {', '.join(names)}")
        return as_
    media = negotiate(accept, list(offers))
    if media is None:
        raise NotAcceptable(accept or "", list(offers))
    return offers[media]


def register(app: FastAPI, service: RulingsService) -> None:
    """Add the linked-data routes and the translation of their errors to the app."""
    install_error_handlers(app)

    @app.get("/id/{node_id:path}", response_class=JSONResponse)
    def node(node_id: str, request: Request, as_: AsParam = None) -> Response:
        """A node: JSON (default), JSON-LD or Turtle, by `?as=` or the Accept header."""
        fmt = choose(as_, request.headers.get("accept"), ID_OFFERS)
        if fmt == "json":
            return JSONResponse(service.show(node_id), headers=VARY)
        return Response(service.node_rdf(node_id, fmt), media_type=RDF_MEDIA[fmt], headers=VARY)

    async def answer(query: str | None, request: Request) -> Response:
        refuse_dataset(request.query_params)
        accept = request.headers.get("accept")
        # No app-level anyio limiter: one created outside the serving event loop can strand a
        # waiting request when the app is driven by several loops (as TestClient does). The SPARQL
        # endpoint bounds concurrency itself (a semaphore with a timeout → 503).
        body, media = await anyio.to_thread.run_sync(service.sparql, query or "", accept)
        return Response(body, media_type=media, headers=VARY)

    @app.get("/sparql", response_class=Response)
    async def sparql_get(
        request: Request,
        query: Annotated[str | None, Query(description="A SPARQL 1.1 query.")] = None,
    ) -> Response:
        """Run a read-only SPARQL query given as `?query=`."""
        return await answer(query, request)

    @app.post("/sparql", response_class=Response, openapi_extra={"requestBody": POST_BODY})
    async def sparql_post(request: Request) -> Response:
        """Run a read-only SPARQL query sent as a form field or an application/sparql-query body."""
        return await answer(await posted_query(request), request)

    @app.get("/vocab", response_class=HTMLResponse)
    def vocab(request: Request, as_: AsParam = None) -> Response:
        """Every class and property: HTML (default), Turtle or JSON-LD."""
        fmt = choose(as_, request.headers.get("accept"), VOCAB_OFFERS)
        if fmt == "html":
            graph = vocabulary(service.settings.base_iri)
            return HTMLResponse(vocab_html(graph, service.settings.base_iri), headers=VARY)
        return Response(service.vocab(fmt), media_type=RDF_MEDIA[fmt], headers=VARY)


POST_BODY = {
    "content": {
        "application/sparql-query": {"schema": {"type": "string"}},
        FORM: {
            "schema": {
                "type": "object",
                "properties": {"query": {"type": "string"}},
                "required": ["query"],
            }
        },
    }
}


def install_error_handlers(app: FastAPI) -> None:
    """406 for NotAcceptable, 503 for EndpointBusy, 400 with the position for MalformedQuery."""

    @app.exception_handler(NotAcceptable)
    async def _not_acceptable(_: Request, exc: NotAcceptable) -> JSONResponse:
        return envelope(406, str(exc), available=exc.offers)

    @app.exception_handler(EndpointBusy)
    async def _busy(_: Request, exc: EndpointBusy) -> JSONResponse:
        response = envelope(503, str(exc))
        response.headers["Retry-After"] = "1"
        return response

    @app.exception_handler(MalformedQuery)
    async def _malformed(_: Request, exc: MalformedQuery) -> JSONResponse:
        return envelope(400, str(exc), line=exc.line, column=exc.column)


def refuse_dataset(params: Container[str]) -> None:
    """The protocol's dataset parameters name other graphs; this endpoint has only its own."""
    named = [p for p in DATASET_PARAMS if p in params]
    if named:
        raise HTTPException(
            400, f"{', '.join(named)} is not supported: the endpoint has one default graph"
        )


async def posted_query(request: Request) -> str | None:
    """The query of a POST: an application/sparql-query body or a form's `query` field."""
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind == "application/sparql-update":
        raise HTTPException(400, "SPARQL Update is not allowed: the endpoint is read-only")
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
        raise HTTPException(400, "SPARQL Update is not allowed: the endpoint is read-only")
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
