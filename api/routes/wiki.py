"""Routes: wiki pages (`/rules/{id}`, `/cards/{id}`, `?as=`) and judge training (`/quiz`).

Thin adapters over `RulingsService.render`, `.quiz` and `.quiz_check`: the same output as the
`ygo-rulings render` and `ygo-rulings quiz --json` commands.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import FastAPI, Query
from fastapi.responses import Response
from pydantic import BaseModel, Field

from kb.presentation.markup import MEDIA_TYPES
from kb.service import RulingsService

AsParam = Annotated[
    str,
    Query(alias="as", description="wikitext (default), markdown, html or json."),
]


class QuizAnswer(BaseModel):
    """One answer: a question id from GET /quiz and an option key (or yes/no, true/false)."""

    id: str = Field(description="The question id, as the quiz returned it.")
    answer: str | bool | int = Field(description="An option key, its text, or true/false.")


class QuizCheckRequest(BaseModel):
    """The body of POST /quiz/check."""

    answers: list[QuizAnswer]


def register(app: FastAPI, service: RulingsService) -> None:
    """Add the wiki page and quiz routes."""

    @app.get("/rules/{node_id:path}", response_class=Response, tags=["wiki"])
    def rule_page(node_id: str, as_: AsParam = "wikitext") -> Response:
        """A Rule, Section or Document page: badge, text, steps, examples, cards, citations."""
        return Response(service.render(node_id, as_), media_type=MEDIA_TYPES[as_])

    @app.get("/cards/{card_id:path}", response_class=Response, tags=["wiki"])
    def card_page(card_id: str, as_: AsParam = "wikitext") -> Response:
        """A card page (`card/jinzo` or `jinzo`): names, types, every rule and example naming it."""
        node_id = card_id if card_id.startswith("card/") else f"card/{card_id}"
        return Response(service.render(node_id, as_), media_type=MEDIA_TYPES[as_])

    @app.get("/quiz", tags=["training"])
    def quiz(
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
        return service.quiz(format=format, topic=topic, n=n, seed=seed)

    @app.post("/quiz/check", tags=["training"])
    def quiz_check(body: QuizCheckRequest) -> dict[str, Any]:
        """Grade answers; every result carries the explanation and the citation."""
        return service.quiz_check([a.model_dump() for a in body.answers])
