"""Routes: the web page at `/` and the few read-only JSON views it needs.

The page itself is three plain files under `api/static/` (no build step, no network assets): the
same `index.html` is served at `/` (ask, search, browse, cards, quiz, node views chosen by
`?view=`) and at `/doc/{document}` (the whole document with a cited span highlighted; the span is
in the fragment, `#s=START-END` or `#n=NODE_ID`). Everything else the page shows comes from the
API routes (`/ask`, `/search`, `/id/{id}`, `/stats`, and the wiki group's `/rules`, `/cards`,
`/quiz` when they exist).

The JSON views added here exist for the page (they have no CLI twin; they are presentations of
the loaded artifact, not new queries):

- `GET /documents` → `{documents: [{id, title, title_en, format, length, outline}], topics}`:
  each document's Sections and Rules in reading order with their depth, span and topic ids
  (concepts the node is `about` or its own passages mention); `topics` labels every topic id.
- `GET /documents/{doc}` → `{id, title, title_en, format, text}`: the exact source text that
  citation offsets index (`text[start:end] == citation.text`).
- `GET /catalog` → `{cards: [{id, label_pt, label_en, card_type}]}`, sorted by pt-BR name.
- `GET /documents/{doc}/layout` → headings and paragraphs of sentences as offsets into that text
  (api/doc_layout.py): the page breaks a wall of text into blocks without changing a character.
- `GET /catalog/page?q=&type=&attribute=&format=&offset=&limit=` → one page of the card table
  (every card the card database knows), best name matches first or alphabetically, with the total.
- `GET /briefs?id=…` → a few nodes' labels (pt, en), text and place, for lists of related ids.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any

from fastapi import FastAPI, Query
from fastapi.responses import FileResponse, Response
from fastapi.staticfiles import StaticFiles
from rapidfuzz import process

from api.doc_layout import document_layout
from api.errors import error_responses
from kb.cards.banlist import STATUS_NAMES, list_status
from kb.cards.table import CardRecord
from kb.errors import InvalidQuery, NotFound, out_of_range, too_long, unknown_value
from kb.formats import FormatSpec
from kb.graph import KnowledgeGraph
from kb.ids import fold
from kb.presentation.codes import codes_json
from kb.schemas import (
    Catalog,
    CatalogPage,
    DocumentLayout,
    Documents,
    DocumentText,
    NodeBriefs,
)
from kb.service import RulingsService

STATIC_DIR = Path(__file__).resolve().parent.parent / "static"
INDEX_HTML = STATIC_DIR / "index.html"
OUTLINE_TYPES = ("Section", "Rule")
# Leaf types whose mentions count towards the topics of the Section/Rule that holds them.
TEXT_LEAVES = ("Passage", "Example", "Step")
MAX_PAGE = 100  # cards on one catalog page
MAX_BRIEFS = 50  # ids one /briefs request may name


def page(status_code: int = 200) -> FileResponse:
    """The single-page front end (never cached stale: it is small and names its assets)."""
    return FileResponse(
        INDEX_HTML,
        status_code=status_code,
        media_type="text/html; charset=utf-8",
        headers={"cache-control": "no-cache"},
    )


def document_ids(kg: KnowledgeGraph) -> list[str]:
    return sorted(n.id for n in kg.of_type("Document"))


def resolve_document(service: RulingsService, doc: str) -> str:
    """The id of a loaded document, or NotFound naming the close ones."""
    if doc in service.artifact.documents:
        return doc
    known = sorted(service.artifact.documents)
    close = [m[0] for m in process.extract(doc, known, limit=3, score_cutoff=40)]
    raise NotFound("document", doc, close or known)


def document_meta(service: RulingsService, doc: str) -> dict[str, Any]:
    node = service.kg.get(doc)
    source = service.artifact.manifest.get("sources", {}).get(doc, {})
    text = service.artifact.documents[doc]
    return {
        "id": doc,
        "title": (node.label_pt if node else None) or source.get("title_pt") or doc,
        "title_en": (node.label_en if node else None) or source.get("title_en"),
        "format": source.get("format"),
        "length": len(text),
    }


def topics_of(kg: KnowledgeGraph, node_id: str) -> list[str]:
    """Concepts a Section/Rule is about, then those its own text leaves mention (most first)."""
    about = [f.object for f in kg.out(node_id, "about") if f.object.startswith("concept/")]
    mentioned: Counter[str] = Counter()
    stack = [node_id]
    while stack:
        current = stack.pop()
        for child in kg.children(current):
            child_node = kg.node(child)
            if child_node.type in OUTLINE_TYPES:
                continue  # a sub-section lists its own topics
            if child_node.type in TEXT_LEAVES:
                for f in kg.out(child, "mentions"):
                    if f.object.startswith("concept/"):
                        mentioned[f.object] += 1
            stack.append(child)
    ordered = list(dict.fromkeys(about))
    ordered += [c for c, _ in mentioned.most_common() if c not in ordered]
    return ordered


def outline_of(kg: KnowledgeGraph, doc: str) -> list[dict[str, Any]]:
    """The document's Sections and Rules, depth-first in reading order."""
    rows: list[dict[str, Any]] = []

    def walk(parent: str, depth: int) -> None:
        kids = [kg.node(c) for c in kg.children(parent)]
        kids = [n for n in kids if n.type in OUTLINE_TYPES]
        kids.sort(key=lambda n: (n.span.start if n.span else 0, n.order or 0))
        for n in kids:
            rows.append(
                {
                    "id": n.id,
                    "type": n.type,
                    "label": n.label_pt or n.text or n.id,
                    "label_en": n.label_en,
                    "number": n.props.get("number"),
                    "depth": depth,
                    "start": n.span.start if n.span else None,
                    "end": n.span.end if n.span else None,
                    "topics": topics_of(kg, n.id),
                }
            )
            walk(n.id, depth + 1)

    walk(doc, 0)
    return rows


def documents_view(service: RulingsService) -> dict[str, Any]:
    kg = service.kg
    docs = []
    used: Counter[str] = Counter()
    for doc in document_ids(kg):
        if doc not in service.artifact.documents:
            continue
        outline = outline_of(kg, doc)
        for row in outline:
            used.update(row["topics"])
        docs.append({**document_meta(service, doc), "outline": outline})
    topics = []
    for concept_id, count in used.items():
        node = kg.get(concept_id)
        if node is None:
            continue
        topics.append(
            {
                "id": concept_id,
                "label_pt": node.label_pt or node.label_en or concept_id,
                "label_en": node.label_en or node.label_pt or concept_id,
                "count": count,
            }
        )
    topics.sort(key=lambda t: str(t["label_pt"]).casefold())
    return {"documents": docs, "topics": topics}


def catalog_view(service: RulingsService) -> dict[str, Any]:
    cards = [
        {
            "id": n.id,
            "label_pt": n.label_pt,
            "label_en": n.label_en,
            "card_type": n.props.get("card_type"),
        }
        for n in service.kg.of_type("Card")
    ]
    cards.sort(key=lambda c: str(c["label_pt"] or c["label_en"] or c["id"]).casefold())
    return {"cards": cards}


def list_marks(r: CardRecord, specs: Sequence[FormatSpec]) -> list[dict[str, str]]:
    """The card's status on each list that names it (formats without a list are skipped)."""
    marks = []
    for spec in specs:
        status = list_status(r, spec)
        if status is not None:
            marks.append({"format": spec.id, "status": STATUS_NAMES[status]})
    return marks


def catalog_entry(r: CardRecord, specs: Sequence[FormatSpec] = ()) -> dict[str, Any]:
    return {
        "id": r.id,
        "name_en": r.name_en,
        "name_pt": r.name_pt,
        "card_type": r.card_type,
        "property": r.property,
        "attribute": r.attribute,
        "monster_classes": list(r.monster_classes),
        "level": r.level,
        "rank": r.rank,
        "link_rating": r.link_rating,
        "lists": list_marks(r, specs),
    }


def catalog_page(
    service: RulingsService,
    q: str | None = None,
    type: str | None = None,
    attribute: str | None = None,
    format: str | None = None,
    offset: int = 0,
    limit: int = 25,
    orders: dict[tuple[str | None, ...], list[int]] | None = None,
    lang: str = "pt",
) -> dict[str, Any]:
    """One page of the card table: name matches best first, else every card by its name in
    `lang` (pt-BR or en; that order computed once per filter set when `orders` keeps it)."""
    cards = service.card_service
    if not 1 <= limit <= MAX_PAGE:
        raise out_of_range("limit", 1, MAX_PAGE, limit)
    if offset < 0:
        raise InvalidQuery("offset", f"must be 0 or more, got {offset}")
    if q is not None and len(q) > cards.max_query_chars:
        raise too_long("q", len(q), cards.max_query_chars)
    if lang not in ("pt", "en"):
        raise unknown_value("lang", lang, f"must be pt or en, got {lang!r}")
    card_type, attr, fmt, pool = cards.filters(type, attribute, format)
    index = cards.index
    query = q.strip() if q else ""
    if query:
        matches = index.matches(query, len(index.records), card_type, attr, pool)
        order = [m.record for m in matches]
    else:
        key = (card_type, attr, fmt, lang)
        cached = orders.get(key) if orders is not None else None
        order = cached if cached is not None else alphabetical(service, card_type, attr, fmt, lang)
        if orders is not None:
            orders[key] = order
    listed = [spec for spec in service.formats.specs if spec.banlist is not None]
    page = [catalog_entry(index.records[i], listed) for i in order[offset : offset + limit]]
    return {
        "q": query or None,
        "type": card_type,
        "attribute": attr,
        "format": fmt,
        "total": len(order),
        "offset": offset,
        "limit": limit,
        "cards": page,
    }


def alphabetical(
    service: RulingsService,
    card_type: str | None,
    attr: str | None,
    fmt: str | None,
    lang: str = "pt",
) -> list[int]:
    """Record indices under the filters, by folded name in `lang` (English when no pt name)."""
    cards = service.card_service
    index = cards.index

    def name(i: int) -> str:
        r = index.records[i]
        return fold((r.name_pt if lang == "pt" else None) or r.name_en)

    by_name = sorted(range(len(index.records)), key=name)
    if card_type is None and attr is None and fmt is None:
        return by_name
    _, _, _, pool = cards.filters(card_type, attr, fmt)
    return [
        i
        for i in by_name
        if (r := index.records[i])
        and (card_type is None or r.card_type == card_type or card_type in r.monster_classes)
        and (attr is None or r.attribute == attr)
        and (pool is None or pool(r))
    ]


def briefs_view(service: RulingsService, ids: list[str]) -> dict[str, Any]:
    """Each known id's labels, text and place; the unknown ones listed apart."""
    if len(ids) > MAX_BRIEFS:
        raise InvalidQuery("id", f"names {len(ids)} nodes; the limit is {MAX_BRIEFS}")
    kg = service.kg
    nodes: list[dict[str, Any]] = []
    missing: list[str] = []
    for node_id in dict.fromkeys(ids):
        node = kg.get(node_id)
        if node is None:
            missing.append(node_id)
            continue
        section = kg.section_of(node_id) if node.span else None
        doc = node.span.document if node.span else None
        nodes.append(
            {
                "id": node.id,
                "type": node.type,
                "label_pt": node.label_pt,
                "label_en": node.label_en,
                "text": node.text,
                "document": doc,
                "start": node.span.start if node.span else None,
                "end": node.span.end if node.span else None,
                "section": section.id if section else None,
                "section_pt": section.label_pt if section else None,
                "section_en": section.label_en if section else None,
                "document_title": document_meta(service, doc)["title"]
                if doc in service.artifact.documents
                else None,
            }
        )
    return {"nodes": nodes, "missing": missing}


def register(app: FastAPI, service: RulingsService) -> None:
    """Add the page (`/`, `/doc/{document}`, `/static/*`) and its JSON views."""

    # Before the mount, which would answer every /static/ path: the code labels the wiki pages
    # read too (kb.presentation.codes), one table for both.
    @app.get("/static/codes.json", include_in_schema=False)
    def code_labels() -> Response:
        return Response(codes_json(), media_type="application/json")

    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")

    @app.get("/", include_in_schema=False)
    def home() -> FileResponse:
        return page()

    @app.get("/doc/{doc}", include_in_schema=False)
    def document_page(doc: str) -> FileResponse:
        # The page explains an unknown document itself (from /documents/{doc}'s 404 envelope).
        return page(200 if doc in service.artifact.documents else 404)

    views: dict[str, dict[str, Any]] = {}  # the artifact is read-only: build each view once
    orders: dict[tuple[str | None, ...], list[int]] = {}  # catalog orders by filter set

    @app.get("/documents", tags=["web"], response_model=Documents)
    def documents() -> dict[str, Any]:
        """Every document with its outline (Sections, Rules) and the topics they cover."""
        if "documents" not in views:
            views["documents"] = documents_view(service)
        return views["documents"]

    @app.get(
        "/documents/{doc}",
        tags=["web"],
        response_model=DocumentText,
        responses=error_responses(404),
    )
    def document(doc: str) -> dict[str, Any]:
        """A document's exact source text (what citation offsets index)."""
        doc = resolve_document(service, doc)
        return {**document_meta(service, doc), "text": service.artifact.documents[doc]}

    @app.get(
        "/documents/{doc}/layout",
        tags=["web"],
        response_model=DocumentLayout,
        responses=error_responses(404),
    )
    def layout(doc: str) -> dict[str, Any]:
        """A document's headings and paragraphs of sentences, as offsets into its exact text."""
        doc = resolve_document(service, doc)
        key = "layout " + doc
        if key not in views:
            text = service.artifact.documents[doc]
            blocks = document_layout(service.kg, doc, text)
            views[key] = {"id": doc, "length": len(text), "blocks": blocks}
        return views[key]

    @app.get(
        "/catalog/page",
        tags=["web"],
        response_model=CatalogPage,
        responses=error_responses(422),
    )
    def catalog_paged(
        q: Annotated[
            str | None, Query(description="A card name or its beginning, pt or en.")
        ] = None,
        type: Annotated[str | None, Query(description="monster, spell, trap or a class.")] = None,
        attribute: Annotated[str | None, Query(description="DARK, LIGHT, EARTH …")] = None,
        format: Annotated[str | None, Query(description="Only this format's card pool.")] = None,
        offset: Annotated[int, Query(description="Cards to skip.")] = 0,
        limit: Annotated[int, Query(description=f"Cards on the page (1..{MAX_PAGE}).")] = 25,
        lang: Annotated[str, Query(description="Whose names order the list: pt or en.")] = "pt",
    ) -> dict[str, Any]:
        """One page of every card: best name matches first, or alphabetically without `q`."""
        return catalog_page(service, q, type, attribute, format, offset, limit, orders, lang)

    @app.get("/briefs", tags=["web"], response_model=NodeBriefs, responses=error_responses(422))
    def briefs(
        id: Annotated[list[str], Query(description=f"Node ids (at most {MAX_BRIEFS}).")],
    ) -> dict[str, Any]:
        """A few nodes' pt/en labels, text and place (document, section), in the order asked."""
        return briefs_view(service, id)

    @app.get("/catalog", tags=["web"], response_model=Catalog)
    def catalog() -> dict[str, Any]:
        """Every card with its pt-BR and English names (for the page's card index)."""
        if "catalog" not in views:
            views["catalog"] = catalog_view(service)
        return views["catalog"]
