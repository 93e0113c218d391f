"""One card, everything the KB holds about it: its node, its list status per format, its rulings.

`RulingsService.card` assembles it from what the other queries already give: the node with its
card data and its facts (`show`: mechanics inferred from card data, curated and document facts,
each with its authority and source), its legality in each format with card rules
(`CardService.legality`), the rules that apply to it through its classes
(`kb.presentation.class_rules`: the Union rule for a Union monster, what Spell Speed 2 may respond
to …) and the passages that name it. Every passage comes as a quotable span of its document.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict

from pydantic import Field

from kb.cards.banlist import Legality
from kb.graph import KnowledgeGraph
from kb.model import Node
from kb.presentation.class_rules import class_rules
from kb.presentation.quiz_sources import Sources
from kb.schemas import Closed, NodeView, SourceSpan


class ClassRules(Closed):
    """The passages of the rules about one class the card belongs to."""

    concept: str = Field(description="The class: a concept id (concept/union-monster …).")
    label_pt: str | None
    label_en: str | None
    passages: list[SourceSpan] = Field(description="In document order.")


class CardReport(Closed):
    """`RulingsService.card` (the MCP tool `card`)."""

    card: NodeView = Field(description="The Card node: card data in props, facts in out/in.")
    legality: list[Legality] = Field(
        description="Its status in each format asked (every format with card rules by default)."
    )
    class_rules: list[ClassRules] = Field(
        description="Rules that apply to it through its classes, though they do not name it."
    )
    named_in: list[SourceSpan] = Field(description="Passages that name the card, in doc order.")


def card_report(
    kg: KnowledgeGraph,
    documents: dict[str, str],
    card: dict[str, object],
    legality: Iterable[Legality],
) -> CardReport:
    """The report of a card from its `show` record and its legality in the formats asked."""
    view = NodeView.model_validate(card)
    sources = Sources(kg, documents, {})
    named = naming(kg, view.id)
    return CardReport(
        card=view,
        legality=list(legality),
        class_rules=[
            ClassRules(
                concept=found.concept.id,
                label_pt=found.concept.label_pt,
                label_en=found.concept.label_en,
                passages=[span(sources, n) for n in found.passages],
            )
            for found in class_rules(kg, view.id)
        ],
        named_in=[span(sources, n) for n in named],
    )


def naming(kg: KnowledgeGraph, card: str) -> list[Node]:
    """The text nodes whose text names the card (not the Document), in document order."""
    nodes = {
        f.subject: node
        for f in kg.into(card, "mentions")
        if (node := kg.get(f.subject)) is not None
        and node.span is not None
        and node.type != "Document"
    }
    return sorted(nodes.values(), key=_position)


def span(sources: Sources, node: Node) -> SourceSpan:
    return SourceSpan(**asdict(sources.citation(node)))


def _position(node: Node) -> tuple[str, int]:
    return (node.span.document, node.span.start) if node.span else ("", 0)
