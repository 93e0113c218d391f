"""Route: `GET /rules-about`, the rule statements the documents make about a subject.

A thin adapter over `RulingsService.rules_about` (kb/search/about.py): the same JSON as
`ygo-rulings rules-about --json` and the MCP tool `rules_about`.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import FastAPI, Query

from api.contract import mark
from api.errors import error_responses
from kb.search.about import RulesAbout
from kb.service import RulingsService


def register(app: FastAPI, service: RulingsService) -> None:
    """Add `GET /rules-about`."""

    @app.get(
        "/rules-about",
        response_model=RulesAbout,
        responses=error_responses(404, 422),
        tags=["rules"],
    )
    def rules_about(
        subject: Annotated[
            str,
            Query(
                description="A concept, card class, card or format: its id "
                "(concept/union-monster, card/jinzo) or its name, pt or en.",
                json_schema_extra=mark("text"),
            ),
        ],
        format: Annotated[
            str | None,
            Query(
                description="Only statements of this format's documents.",
                json_schema_extra=mark("format"),
            ),
        ] = None,
        k: Annotated[
            int, Query(description="Statements to return (1..max_k).", json_schema_extra=mark("k"))
        ] = 20,
    ) -> dict[str, Any]:
        """The Statements (rule sentences read from the documents) about a subject and its
        narrower concepts, each with its exact citation; `total` counts them all."""
        return service.rules_about(subject, format=format, k=k)
