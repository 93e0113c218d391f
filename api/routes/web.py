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
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles
from rapidfuzz import process

from api.errors import error_responses
from kb.errors import NotFound
from kb.graph import KnowledgeGraph
from kb.schemas import Catalog, Documents, DocumentText
from kb.service import RulingsService

STATIC_DIR = Path(__file__).resolve().parent.parent / "static"
INDEX_HTML = STATIC_DIR / "index.html"
OUTLINE_TYPES = ("Section", "Rule")
# Leaf types whose mentions count towards the topics of the Section/Rule that holds them.
TEXT_LEAVES = ("Passage", "Example", "Step")


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


def register(app: FastAPI, service: RulingsService) -> None:
    """Add the page (`/`, `/doc/{document}`, `/static/*`) and its JSON views."""
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")

    @app.get("/", include_in_schema=False)
    def home() -> FileResponse:
        return page()

    @app.get("/doc/{doc}", include_in_schema=False)
    def document_page(doc: str) -> FileResponse:
        # The page explains an unknown document itself (from /documents/{doc}'s 404 envelope).
        return page(200 if doc in service.artifact.documents else 404)

    views: dict[str, dict[str, Any]] = {}  # the artifact is read-only: build each view once

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

    @app.get("/catalog", tags=["web"], response_model=Catalog)
    def catalog() -> dict[str, Any]:
        """Every card with its pt-BR and English names (for the page's card index)."""
        if "catalog" not in views:
            views["catalog"] = catalog_view(service)
        return views["catalog"]
