"""Routes: wiki pages (`/rules/{id}`, `/cards/{id}`, `?as=&links=&template=&rule_template=`),
the favicon (`/favicon.ico`, `/favicon.svg`) and judge training (`/quiz`, `/quiz/topics`,
`/quiz/check`).

Thin adapters over `RulingsService.render`, `.quiz`, `.quiz_topics` and `.quiz_check`: the same
output as the `ygo-rulings render`, `quiz --json`, `quiz-topics --json` and `quiz-check` commands.
"""

from __future__ import annotations

from typing import Annotated, Any
from urllib.parse import quote

from fastapi import FastAPI, Query, Request
from fastapi.responses import RedirectResponse, Response

from api.contract import fixed, mark
from api.errors import error_responses
from kb.presentation.icon import favicon_ico, favicon_svg
from kb.presentation.links import (
    DEFAULT_CARD_TEMPLATE,
    DEFAULT_RULE_TEMPLATE,
    LINK_STYLES,
    TEMPLATE_FIELDS,
)
from kb.presentation.markup import MARKUPS, MEDIA_TYPES
from kb.schemas import Quiz, QuizCheck, QuizCheckRequest, QuizTopics, WikiPage
from kb.service import RulingsService

AsParam = Annotated[
    str,
    Query(
        alias="as",
        description="wikitext (default), markdown, html or json.",
        json_schema_extra=fixed(enum=list(MARKUPS)),
    ),
]
LinksParam = Annotated[
    str | None,
    Query(
        description="Where links go: iri (the public pages; default of wikitext, markdown, json), "
        "local (this server's pages; default of html) or wiki ([[…]] links through the templates).",
        json_schema_extra=fixed(enum=list(LINK_STYLES)),
    ),
]
TemplateParam = Annotated[
    str | None,
    Query(
        description="With links=wiki: the wiki's page name of a card, e.g. `Card Wiki:{name_en}` "
        f"(default `{DEFAULT_CARD_TEMPLATE}`). Fields: "
        + ", ".join(f"{{{k}}} {v}" for k, v in TEMPLATE_FIELDS.items())
        + "."
    ),
]
LangParam = Annotated[
    str,
    Query(
        description="pt (default) or en: the language of a card's data (field names and values: "
        "Atributo TREVAS / Attribute DARK) and of a list's card names.",
        json_schema_extra=fixed(enum=["pt", "en"]),
    ),
]
QuizLangParam = Annotated[
    str,
    Query(
        description="pt (default) or en: the language of the prompts, options and explanations "
        "(a question's id and key are the same in both; quoted document text is as written).",
        json_schema_extra=fixed(enum=["pt", "en"]),
    ),
]
RuleTemplateParam = Annotated[
    str | None,
    Query(
        description="With links=wiki: the wiki's page name of a rule, section or document "
        f"(default `{DEFAULT_RULE_TEMPLATE}`); the same fields."
    ),
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
CARD_PAGE_RESPONSES: dict[int | str, dict[str, Any]] = {
    **PAGE_RESPONSES,
    307: {"description": "A name the card search resolves: the card's page (`/cards/<slug>`)."},
    308: {"description": "An exact pt or en name or a password: the card's page."},
}


ICON_CACHE = {"cache-control": "public, max-age=86400"}


def register(app: FastAPI, service: RulingsService) -> None:
    """Add the wiki page, favicon and quiz routes."""

    @app.get(
        "/rules/{node_id:path}",
        response_class=Response,
        tags=["wiki"],
        responses=PAGE_RESPONSES,
    )
    def rule_page(
        node_id: str,
        as_: AsParam = "wikitext",
        links: LinksParam = None,
        template: TemplateParam = None,
        rule_template: RuleTemplateParam = None,
        lang: LangParam = "pt",
    ) -> Response:
        """A Rule, Section or Document page: badge, text, steps, examples, cards, citations; a
        Forbidden & Limited list section lists its cards from the card data."""
        text = service.render(node_id, as_, links, template, rule_template, lang)
        return Response(text, media_type=MEDIA_TYPES[as_])

    @app.get(
        "/cards/{card_id:path}",
        response_class=Response,
        tags=["wiki"],
        responses=CARD_PAGE_RESPONSES,
    )
    def card_page(
        card_id: str,
        request: Request,
        as_: AsParam = "wikitext",
        links: LinksParam = None,
        template: TemplateParam = None,
        rule_template: RuleTemplateParam = None,
        lang: LangParam = "pt",
    ) -> Response:
        """A card page (`card/jinzo` or `jinzo`): names, card data, every rule and example naming
        it. A name (pt or en, `Dark Armed Dragon`) or a password redirects to the card's page."""
        node_id = card_id if card_id.startswith("card/") else f"card/{card_id}"
        if service.kg.get(node_id) is None:
            found, exact = service.card_page(card_id)
            return redirect_to_card(found, request.url.query, exact)
        text = service.render(node_id, as_, links, template, rule_template, lang)
        return Response(text, media_type=MEDIA_TYPES[as_])

    # The favicon of the app and of the wiki pages (kb.presentation.icon draws both forms).
    @app.get("/favicon.ico", include_in_schema=False)
    def favicon() -> Response:
        return Response(favicon_ico(), media_type="image/x-icon", headers=ICON_CACHE)

    @app.get("/favicon.svg", include_in_schema=False)
    def favicon_vector() -> Response:
        return Response(favicon_svg(), media_type="image/svg+xml", headers=ICON_CACHE)

    @app.get("/quiz", tags=["training"], response_model=Quiz, responses=error_responses(422))
    def quiz(
        response: Response,
        format: Annotated[
            str | None,
            Query(
                description="A format id declared in the manifest (see /stats).",
                json_schema_extra=mark("format"),
            ),
        ] = None,
        topic: Annotated[
            str | None,
            Query(
                description="A topic: a top-level rule or section id, or a theme (summon, chain, spell-speed).",
                json_schema_extra=mark("quiz-topic"),
            ),
        ] = None,
        n: Annotated[
            int, Query(description="Number of questions (1..50).", json_schema_extra=mark("quiz-n"))
        ] = 10,
        seed: Annotated[
            int | None,
            Query(
                description="Same seed, same questions; random when absent.",
                json_schema_extra=mark("quiz-seed"),
            ),
        ] = None,
        lang: QuizLangParam = "pt",
    ) -> dict[str, Any]:
        """Questions from the documents with answer keys, explanations and citations."""
        if seed is None:  # random questions: a cache must not keep them
            response.headers["cache-control"] = "no-store"
        return service.quiz(format=format, topic=topic, n=n, seed=seed, lang=lang)

    @app.get(
        "/quiz/topics",
        tags=["training"],
        response_model=QuizTopics,
        responses=error_responses(422),
    )
    def quiz_topics(
        format: Annotated[
            str | None,
            Query(
                description="A format id declared in the manifest (see /stats): only the topics "
                "with questions in it, counted there.",
                json_schema_extra=mark("format"),
            ),
        ] = None,
    ) -> dict[str, Any]:
        """The quiz's topics with their pt/en names, question counts and formats."""
        return service.quiz_topics(format=format)

    @app.post(
        "/quiz/check",
        tags=["training"],
        response_model=QuizCheck,
        responses=error_responses(400, 422),
    )
    def quiz_check(body: QuizCheckRequest, lang: QuizLangParam = "pt") -> dict[str, Any]:
        """Grade answers; every result carries the explanation (in `lang`) and the citation."""
        return service.quiz_check([a.model_dump() for a in body.answers], lang)


def redirect_to_card(card_id: str, query: str, exact: bool) -> RedirectResponse:
    """To the card's canonical page `/cards/<slug>` with the same parameters: 308 for an exact
    name or password (it always means that card), 307 for what the search found (it may
    change as the card data grows)."""
    url = "/cards/" + quote(card_id.removeprefix("card/"), safe="/")
    return RedirectResponse(url + (f"?{query}" if query else ""), status_code=308 if exact else 307)
