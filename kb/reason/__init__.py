"""Reasoners: graph traversals over typed facts that decide a question, each step citing a source.

Every reasoner has one signature, `(kb, question) -> Decision | None`: `kb` is the loaded knowledge
(`Knowledge`: the graph, the search index, the formats, the claims), `question` the typed
`kb.reading.question.Question` read once per question. They are registered in one list
(`kb.reason.registry.REASONERS`), each with the graph content it needs, so a reasoner whose rule is
missing from the KB is reported as disabled rather than silently skipped.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol

if TYPE_CHECKING:
    from kb.formats import Formats
    from kb.graph import KnowledgeGraph
    from kb.reading.question import Question
    from kb.search.index import SearchIndex


@dataclass(frozen=True)
class Step:
    """One reasoning step: what was applied, and the passage (or None for curated data) stating it."""

    text_en: str
    text_pt: str
    source: str | None
    # The card fact the step applies, when it is card data rather than a passage: its subject,
    # predicate, object, authority and provenance (card password and dataset, or curated file).
    fact: dict[str, Any] | None = None


@dataclass(frozen=True)
class Value:
    """A value an answer states (a number, a step, a player), beside the cited sentence."""

    kind: Literal["number", "step", "player", "text"]
    value: str | int
    unit: str | None = None


@dataclass
class Decision:
    """A reasoner's verdict with its steps; `sources` are the passages to cite first."""

    verdict: str | None
    steps: list[Step]
    summary_en: str
    summary_pt: str
    confidence: float | None
    sources: list[str] = field(default_factory=list)
    reasoner: str = ""
    value: Value | None = None


class Knowledge(Protocol):
    """What a reasoner may read: the graph, the search index, the declared formats."""

    @property
    def kg(self) -> KnowledgeGraph: ...

    @property
    def index(self) -> SearchIndex: ...

    @property
    def formats(self) -> Formats: ...


class Reasoner(Protocol):
    def __call__(self, kb: Knowledge, question: Question, /) -> Decision | None: ...
