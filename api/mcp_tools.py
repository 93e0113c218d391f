"""The MCP tools: one per service method, with the arguments and results the HTTP edge uses.

Each `ToolSpec` names a `RulingsService` method, the pydantic model its arguments are validated
with and the model of its result. Where a route takes a JSON body the tool takes the same model
(`AskRequest` of POST /ask, `DeckRequest` of POST /deck/validate, `QuizCheckRequest` of POST
/quiz/check); where a route takes query parameters the tool's model holds the same parameters with
the same constraint markers (`api.contract.mark`), so the input schemas an assistant reads show
this KB's format ids, topics and limits as /openapi.json does. Results are the routes' response
models (`Answer`, `SearchResult`, `Banlist` …) and the JSON the CLI prints.

Every argument model refuses unknown arguments; `api.mcp_server` checks each string as the HTTP
edge does (`api.safe_strings`) before the model validates, and the service checks the values
(empty text, `k` out of range, an unknown format). Each refusal, naming the argument, becomes the
tool's error.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar

from mcp.server.mcpserver.utilities.func_metadata import ArgModelBase
from pydantic import BaseModel, ConfigDict, Field

from api.contract import AskRequest, mark
from api.routes.cards import DeckRequest
from kb.cards.banlist import Banlist
from kb.cards.deck import DeckReport
from kb.cards.report import CardReport
from kb.schemas import Answer, Quiz, QuizCheck, QuizCheckRequest, SearchResult
from kb.search.about import RulesAbout
from kb.service import RulingsService

A = TypeVar("A", bound=BaseModel)

# What every answer-giving tool says about the limits of the KB.
HONEST = (
    " The knowledge base knows only what its documents state (and the card data): it never "
    "invents a ruling. When they do not decide a question, the answer says so (verdict null): "
    "report that, do not fill the gap from memory."
)


class ToolArgs(ArgModelBase):
    """The arguments of one tool (an `ArgModelBase` for the SDK's parsing of JSON-encoded
    lists and objects, which some assistants send as strings); unknown names are refused."""

    model_config = ConfigDict(extra="forbid")


class AskArgs(ToolArgs, AskRequest):
    """The arguments of `ask`: POST /ask's body."""


class DeckArgs(ToolArgs, DeckRequest):
    """The arguments of `deck_validate`: POST /deck/validate's body."""


class QuizCheckArgs(ToolArgs, QuizCheckRequest):
    """The arguments of `quiz_check`: POST /quiz/check's body and its `lang`."""

    lang: Literal["pt", "en"] = Field(
        default="pt",
        description="The language of the explanations (the grading is the same in both).",
    )


class SearchArgs(ToolArgs):
    """The arguments of `search`: GET /search's parameters."""

    q: str = Field(description="The query, pt or en.", json_schema_extra=mark("text"))
    k: int = Field(
        default=10,
        strict=True,
        description="Number of hits (1..max_k).",
        json_schema_extra=mark("k"),
    )
    format: str | None = Field(
        default=None,
        description="Only passages of this format's documents.",
        json_schema_extra=mark("format"),
    )
    type: str | None = Field(
        default=None,
        description="Passage, Example or Step (comma-separated); every type when null.",
        json_schema_extra=mark("hit-types"),
    )


class CardArgs(ToolArgs):
    """The arguments of `card`."""

    id: str = Field(
        description="The card: its id (card/jinzo), slug (jinzo), password or exact pt/en name.",
        json_schema_extra=mark("text"),
    )
    format: str | None = Field(
        default=None,
        description="Only this format's legality; every format with card rules when null.",
        json_schema_extra=mark("card-format-rules"),
    )


class RulesAboutArgs(ToolArgs):
    """The arguments of `rules_about`."""

    subject: str = Field(
        description="A concept, card class, card or format: its id (concept/union-monster, "
        "card/jinzo, format/…) or its name, pt or en ('Union monster', 'Damage Step').",
        json_schema_extra=mark("text"),
    )
    format: str | None = Field(
        default=None,
        description="Only statements of this format's documents; every format when null.",
        json_schema_extra=mark("format"),
    )
    k: int = Field(
        default=20,
        strict=True,
        description="Statements to return (1..max_k); `total` counts them all.",
        json_schema_extra=mark("k"),
    )


class BanlistArgs(ToolArgs):
    """The arguments of `banlist`: GET /banlist's `format`."""

    format: str | None = Field(
        default=None,
        description="A format with a Forbidden & Limited list; the first such format when null.",
        json_schema_extra=mark("card-format-list"),
    )


class QuizArgs(ToolArgs):
    """The arguments of `quiz`: GET /quiz's parameters."""

    format: str | None = Field(
        default=None, description="Only this format's questions.", json_schema_extra=mark("format")
    )
    topic: str | None = Field(
        default=None,
        description="A top-level rule or section id, or summon, chain, spell-speed, damage-step.",
        json_schema_extra=mark("quiz-topic"),
    )
    n: int = Field(
        default=10,
        strict=True,
        description="Number of questions.",
        json_schema_extra=mark("quiz-n"),
    )
    seed: int | None = Field(
        default=None,
        strict=True,
        description="Same seed, same questions; random when null.",
        json_schema_extra=mark("quiz-seed"),
    )
    lang: Literal["pt", "en"] = Field(
        default="pt",
        description="The language of the prompts, options and explanations (same ids and keys).",
    )


@dataclass(frozen=True)
class ToolSpec(Generic[A]):
    """One tool: its name and description, its argument and result models, the service call."""

    name: str
    title: str
    description: str
    args: type[A]
    result: type[BaseModel]
    key: str  # the argument an unknown id or name is about (the service's NotFound names none)
    call: Callable[[RulingsService, A], dict[str, Any]]
    read_only: bool = True  # the training tools record answers


def _ask(s: RulingsService, a: AskArgs) -> dict[str, Any]:
    return s.ask(a.question, format=a.format, k=a.k)


def _search(s: RulingsService, a: SearchArgs) -> dict[str, Any]:
    return s.search(a.q, k=a.k, format=a.format, type=a.type)


def _card(s: RulingsService, a: CardArgs) -> dict[str, Any]:
    return s.card(a.id, format=a.format)


def _rules_about(s: RulingsService, a: RulesAboutArgs) -> dict[str, Any]:
    return s.rules_about(a.subject, format=a.format, k=a.k)


def _deck_validate(s: RulingsService, a: DeckArgs) -> dict[str, Any]:
    return s.deck_validate(a.format, deck=a.deck, decks=a.decks)


def _banlist(s: RulingsService, a: BanlistArgs) -> dict[str, Any]:
    return s.banlist(a.format)


def _quiz(s: RulingsService, a: QuizArgs) -> dict[str, Any]:
    return s.quiz(format=a.format, topic=a.topic, n=a.n, seed=a.seed, lang=a.lang)


def _quiz_check(s: RulingsService, a: QuizCheckArgs) -> dict[str, Any]:
    return s.quiz_check([answer.model_dump() for answer in a.answers], a.lang)


CORE_TOOLS: tuple[ToolSpec[Any], ...] = (
    ToolSpec(
        "ask",
        "Answer a ruling question",
        "Answer a Yu-Gi-Oh! ruling question (pt or en) from the rule documents: verdict "
        "(yes, no, or null), the answer in the question's language, the reasoning path through "
        "the rule graph (each step with its source) and exact citations (document id, character "
        "span, text equal to the document's slice). Give `format` when the question is about one "
        "(the server's instructions list them); it is detected from the question otherwise."
        + HONEST
        + " A null "
        "verdict's citations are only the closest passages, not a ruling; without a ruling, "
        "`suggestions` lists cards a half-remembered name in the question may mean (ask again "
        "with the card's exact name).",
        AskArgs,
        Answer,
        "question",
        _ask,
    ),
    ToolSpec(
        "search",
        "Search the rule documents",
        "Hybrid search (meaning, words and graph) over the documents' passages, examples and "
        "ordered steps, best first, each with its exact span. A hit resembles the query; it is "
        "not a ruling until read: quote the text, not a paraphrase of what it might say.",
        SearchArgs,
        SearchResult,
        "q",
        _search,
    ),
    ToolSpec(
        "card",
        "Everything about one card",
        "One card: its card data and facts (Summon kind, Spell Speed, capabilities such as "
        "negating Summons; each fact with its authority: document, curated, or inferred from card "
        "data), its Forbidden & Limited status in each format with card rules, the rules that "
        "apply to it through its classes, and the passages naming it. An unknown card is an error "
        "listing the closest ids. The KB holds no card-specific rulings beyond what its documents "
        "state: a card the documents never name is governed only by the rules of its classes.",
        CardArgs,
        CardReport,
        "id",
        _card,
    ),
    ToolSpec(
        "rules_about",
        "What the documents state about a subject",
        "The rule statements the documents make about a concept, card class, card or format "
        "(its narrower concepts included): each with its sentence as an exact citation "
        "(document id, character span, text), the clause read, its modality and polarity and the "
        "entities it names. An empty list means the documents state nothing about it (in that "
        "format). `format` keeps the statements of that format's documents only: the general "
        "rules hold in the other formats unless those differ, so ask for both when it matters.",
        RulesAboutArgs,
        RulesAbout,
        "subject",
        _rules_about,
    ),
    ToolSpec(
        "deck_validate",
        "Check a deck",
        "Check one deck (a .ydk file, or a card list, one card a line: '3x Name', 'Name x3'; pt "
        "or en names), or each duelist's deck in a format with one deck per duelist, against a "
        "format's deck sizes, card pool and Forbidden & Limited list. Send exactly one of `deck` "
        "and `decks`. Lines it cannot read are reported, not guessed.",
        DeckArgs,
        DeckReport,
        "deck",
        _deck_validate,
    ),
    ToolSpec(
        "banlist",
        "A format's Forbidden & Limited list",
        "A format's Forbidden & Limited list with its effective date and provenance. Only the "
        "lists of the formats the KB declares, each as of its own date: it does not know today's "
        "TCG or OCG lists.",
        BanlistArgs,
        Banlist,
        "format",
        _banlist,
    ),
    ToolSpec(
        "quiz",
        "Judge-training questions",
        "Questions drawn from the documents (true/false, yes/no, multiple choice), each with its "
        "answer key, explanation and citation; the same seed gives the same questions. Questions "
        "are in Portuguese, or in English with lang en (same ids and keys). Keep the keys from the "
        "trainee until they answer (see quiz_check).",
        QuizArgs,
        Quiz,
        "topic",
        _quiz,
    ),
    ToolSpec(
        "quiz_check",
        "Grade quiz answers",
        "Grade answers [{id, answer}] to questions from `quiz` (an option key, its text in either "
        "language, true or false, sim or não): each result with the expected answer, explanation "
        "and citation; the explanations in Portuguese, or in English with lang en.",
        QuizCheckArgs,
        QuizCheck,
        "answers",
        _quiz_check,
    ),
)

from api.mcp_training import TRAINING_TOOLS  # noqa: E402  (it imports ToolArgs, ToolSpec above)

TOOLS: tuple[ToolSpec[Any], ...] = (*CORE_TOOLS, *TRAINING_TOOLS)
