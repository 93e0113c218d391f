"""Routes: wiki pages (`/rules/{id}`, `/cards/{id}`, `?as=`) and judge training (`/quiz`).

Thin adapters over `RulingsService.render`, `.quiz` and `.quiz_check`: the same output as the
`ygo-rulings render` and `ygo-rulings quiz --json` commands.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import FastAPI, Query
from fastapi.responses import Response

from api.errors import error_responses
from kb.presentation.markup import MEDIA_TYPES
from kb.schemas import Quiz, QuizCheck, QuizCheckRequest, WikiPage
from kb.service import RulingsService

AsParam = Annotated[
    str,
    Query(alias="as", description="wikitext (default), markdown, html or json."),
]


# `?as=json` is the page's data (WikiPage); the other markups are text.
PAGE_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {
        "model": WikiPage,
        "description": "The page in the markup `as` names.",
        "content": {
            MEDIA_TYPES[m].split(";")[0]: {"schema": {"type": "string"}}
            for m in ("wikitext", "markdown", "html")
        },
    },
    **error_responses(404, 422),
}


def register(app: FastAPI, service: RulingsService) -> None:
    """Add the wiki page and quiz routes."""

    @app.get(
        "/rules/{node_id:path}",
        response_class=Response,
        tags=["wiki"],
        responses=PAGE_RESPONSES,
    )
    def rule_page(node_id: str, as_: AsParam = "wikitext") -> Response:
        """A Rule, Section or Document page: badge, text, steps, examples, cards, citations."""
        return Response(service.render(node_id, as_), media_type=MEDIA_TYPES[as_])

    @app.get(
        "/cards/{card_id:path}",
        response_class=Response,
        tags=["wiki"],
        responses=PAGE_RESPONSES,
    )
    def card_page(card_id: str, as_: AsParam = "wikitext") -> Response:
        """A card page (`card/jinzo` or `jinzo`): names, types, every rule and example naming it."""
        node_id = card_id if card_id.startswith("card/") else f"card/{card_id}"
        return Response(service.render(node_id, as_), media_type=MEDIA_TYPES[as_])

    @app.get("/quiz", tags=["training"], response_model=Quiz, responses=error_responses(422))
    def quiz(
        response: Response,
        format: Annotated[
            str | None, Query(description="A format id declared in the manifest (see /stats).")
        ] = None,
        topic: Annotated[
            str | None,
            Query(
                description="A topic: a top-level rule or section id, or a theme (summon, chain, spell-speed)."
            ),
        ] = None,
        n: Annotated[int, Query(description="Number of questions (1..50).")] = 10,
        seed: Annotated[
            int | None, Query(description="Same seed, same questions; random when absent.")
        ] = None,
    ) -> dict[str, Any]:
        """Questions from the documents with answer keys, explanations and citations."""
        if seed is None:  # random questions: a cache must not keep them
            response.headers["cache-control"] = "no-store"
        return service.quiz(format=format, topic=topic, n=n, seed=seed)

    @app.post(
        "/quiz/check",
        tags=["training"],
        response_model=QuizCheck,
        responses=error_responses(422),
    )
    def quiz_check(body: QuizCheckRequest) -> dict[str, Any]:
        """Grade answers; every result carries the explanation and the citation."""
        return service.quiz_check([a.model_dump() for a in body.answers])
