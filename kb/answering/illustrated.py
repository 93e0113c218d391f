"""An example decides through the rule it illustrates: that rule is cited right after it.

A worked example matches a player's situation more closely than the rule does, so retrieval and
claims often decide from the example; the sentence that makes the ruling is still the rule's. The
graph links each example to what it illustrates (`example_of`): a paragraph, or a whole rule whose
paragraphs state it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from kb.graph import KnowledgeGraph
from kb.reason import Decision, Step
from kb.search.index import Hit


def illustrated_rule(kg: KnowledgeGraph, example: str, hits: list[Hit]) -> str | None:
    """The passage stating the rule `example` illustrates: the paragraph it is an example of, or,
    of a rule's paragraphs, its only one or the one retrieval ranks highest for the question."""
    node = kg.get(example)
    if node is None or node.type != "Example":
        return None
    for fact in kg.out(example, "example_of"):
        target = kg.get(fact.object)
        if target is None:
            continue
        if target.type == "Passage" and target.span is not None and target.text:
            return target.id
        paragraphs = [
            c
            for c in kg.children(target.id)
            if (n := kg.get(c)) is not None
            and n.type == "Passage"
            and n.props.get("kind") == "paragraph"
            and n.span is not None
            and n.text
        ]
        if len(paragraphs) == 1:
            return paragraphs[0]
        ranked = [h.node.id for h in hits if h.node.id in paragraphs]
        if ranked:
            return ranked[0]
    return None


def with_illustrated_rules(
    kg: KnowledgeGraph, decision: Decision, hits: list[Hit], citable: Callable[[str], str]
) -> Decision:
    """`decision` with, after each example it cites, the rule that example illustrates (a step
    saying so, and the rule among its sources right after the example)."""
    if decision.verdict is None and decision.reasoner == "none":
        return decision
    cited = [citable(s) for s in decision.sources]
    sources: list[str] = []
    added: list[Step] = []
    for source in cited:
        sources.append(source)
        rule = illustrated_rule(kg, source, hits)
        if rule is None or rule in cited or rule in sources:
            continue
        sources.append(rule)
        text = kg.node(rule).text or ""
        added.append(
            Step(
                f"The rule the example illustrates: {text}",
                f"A regra que o exemplo ilustra: {text}",
                rule,
            )
        )
    if not added:
        return decision
    return replace(decision, sources=sources, steps=[*decision.steps, *added])
