"""Routes: card search (`/cards`), one card's legality and report, a format's list (`/banlist`)
and deck checks (`/deck/validate`).

Thin adapters over `RulingsService.cards`, `.card_legality`, `.card`, `.banlist`/`.lflist` and
`.deck_validate`: the same JSON as `ygo-rulings cards search`, `cards legality`, `cards report`,
`banlist` and `deck check --json`.
Registered before the wiki routes, whose `/cards/{id}` page would otherwise take
`/cards/{id}/legality`.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import FastAPI, Query
from fastapi.responses import PlainTextResponse
from pydantic import BaseModel, ConfigDict, Field

from api.contract import fixed, mark
from api.errors import error_responses
from kb.cards.banlist import Banlist, Legality
from kb.cards.deck import DeckReport
from kb.cards.report import CardReport
from kb.cards.search import CardSearchResult
from kb.cards.service import MAX_DUELIST_DECKS
from kb.errors import InvalidQuery
from kb.service import RulingsService

FormatParam = Annotated[
    str | None,
    Query(
        description="A format id declaring a card pool or a Forbidden & Limited list (the "
        "list itself for /banlist as JSON); the first such format when absent.",
        json_schema_extra=mark("card-format-rules"),
    ),
]
LIST_AS = ("json", "lflist")


class DeckRequest(BaseModel):
    """The body of POST /deck/validate: one deck, or one deck per duelist (Tag Duel)."""

    model_config = ConfigDict(
        json_schema_extra={
            "description": "Exactly one of `deck` and `decks`.",
            "anyOf": [
                {
                    "required": ["deck"],
                    "properties": {"deck": {"type": "string"}, "decks": {"type": "null"}},
                },
                {
                    "required": ["decks"],
                    "properties": {"decks": {"type": "array"}, "deck": {"type": "null"}},
                },
            ],
        }
    )

    format: str | None = Field(
        default=None,
        description="A format id declaring deck rules; the first such format when null.",
        json_schema_extra=mark("card-format-deck"),
    )
    deck: str | None = Field(
        default=None,
        json_schema_extra=mark("deck"),
        description="A .ydk file (passwords under #main, #extra, !side) or a list of cards, one "
        "a line ('3x Name', '3 Name', 'Name x3'; pt or en names; 'Main:'/'Extra:'/'Side:' or "
        "'Deck Principal:'/'Deck Adicional:'/'Deck Auxiliar:' headers).",
    )
    decks: list[Annotated[str, Field(json_schema_extra=mark("deck"))]] | None = Field(
        default=None,
        description="Each duelist's own deck (a format with one deck per duelist), checked alone.",
        json_schema_extra=fixed(minItems=1, maxItems=MAX_DUELIST_DECKS),
    )


def register(app: FastAPI, service: RulingsService) -> None:
    """Add the card search, legality, list and deck routes."""

    @app.get(
        "/cards",
        response_model=CardSearchResult,
        responses=error_responses(422),
        tags=["cards"],
    )
    def cards(
        q: Annotated[
            str,
            Query(
                description="A card name or its beginning, pt or en.",
                json_schema_extra=mark("text"),
            ),
        ],
        type: Annotated[
            str | None,
            Query(
                description="monster, spell, trap, or a monster class (synchro, union …).",
                json_schema_extra=mark("card-type"),
            ),
        ] = None,
        attribute: Annotated[
            str | None,
            Query(description="DARK, LIGHT, EARTH …", json_schema_extra=mark("attribute")),
        ] = None,
        format: Annotated[
            str | None,
            Query(
                description="Only cards in this format's card pool.",
                json_schema_extra=mark("card-format"),
            ),
        ] = None,
        k: Annotated[
            int, Query(description="Number of hits (1..max_k).", json_schema_extra=mark("k"))
        ] = 10,
    ) -> dict[str, Any]:
        """Cards by name: accent- and typo-tolerant, prefixes for search-as-you-type."""
        return service.cards(q, type=type, attribute=attribute, format=format, k=k)

    @app.get(
        "/cards/{card_id:path}/legality",
        response_model=Legality,
        responses=error_responses(404, 422),
        tags=["cards"],
    )
    def card_legality(card_id: str, format: FormatParam = None) -> dict[str, Any]:
        """Whether a card (`card/<slug>`, its slug or its password) may be used in a format,
        how many copies, and the rule that says so."""
        return service.card_legality(card_id, format=format)

    @app.get(
        "/cards/{card_id:path}/report",
        response_model=CardReport,
        responses=error_responses(404, 422),
        tags=["cards"],
    )
    def card_report(
        card_id: str,
        format: Annotated[
            str | None,
            Query(
                description="Only this format's legality; every format with card rules when "
                "absent.",
                json_schema_extra=mark("card-format-rules"),
            ),
        ] = None,
    ) -> dict[str, Any]:
        """Everything about one card: its node with card data and facts, its legality per
        format, the rules of its classes and the passages naming it."""
        return service.card(card_id, format=format)

    @app.get(
        "/banlist",
        response_model=Banlist,
        responses={
            **error_responses(422),
            200: {
                "description": "The list as JSON, or as an EDOPro lflist.conf with `as=lflist`.",
                "content": {"text/plain": {"schema": {"type": "string"}}},
            },
        },
        tags=["cards"],
    )
    def banlist(
        format: FormatParam = None,
        as_: Annotated[
            str,
            Query(
                alias="as",
                description="json (default) or lflist (EDOPro lflist.conf).",
                json_schema_extra=fixed(enum=list(LIST_AS)),
            ),
        ] = "json",
    ) -> Any:
        """A format's Forbidden & Limited list with its date and provenance."""
        if as_ not in LIST_AS:
            raise InvalidQuery("as", f"unknown list format {as_!r}; use {' or '.join(LIST_AS)}")
        if as_ == "lflist":
            return PlainTextResponse(service.lflist(format), media_type="text/plain; charset=utf-8")
        return service.banlist(format)

    @app.post(
        "/deck/validate",
        response_model=DeckReport,
        responses=error_responses(400, 422),
        tags=["cards"],
    )
    def deck_validate(body: DeckRequest) -> dict[str, Any]:
        """Check a deck against a format's sizes, card pool and Forbidden & Limited list."""
        return service.deck_validate(body.format, deck=body.deck, decks=body.decks)
