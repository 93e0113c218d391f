"""SEGOC ordering: does effect A go on the chain before effect B?

The rule is a Rule `about` concept/segoc with ordered Steps, in the question's format (or any).

Each side of the question is read as (whose effect, mandatory or optional); the SEGOC steps of the
graph are read the same way from their text, and the steps' order decides. Within one step the
rule puts earlier triggers first, which the question's two descriptions alone cannot decide.
"""

from __future__ import annotations

from kb.formats import Formats
from kb.graph import KnowledgeGraph
from kb.ids import concept_id
from kb.model import Node
from kb.reading.question import Question
from kb.reading.senses import Senses, read_senses
from kb.reason import Decision, Knowledge, Step
from kb.reason.facts import steps_of


def describe(senses: Senses, start: int = 0, end: int | None = None) -> tuple[str, str] | None:
    """(owner, kind) of an effect described between `start` and `end`: ("turn"|"opponent",
    "mandatory"|"optional")."""

    def has(name: str) -> bool:
        return senses.has(name, start=start, end=end)

    owner = "opponent" if has("opponent") else "turn" if has("turn_player") else None
    mandatory, optional = has("mandatory"), has("optional")
    kind = (
        "mandatory"
        if mandatory and not optional
        else "optional"
        if optional and not mandatory
        else None
    )
    return (owner, kind) if owner and kind else None


SEGOC = concept_id("segoc")


def segoc_rules(kg: KnowledgeGraph, fmt: str | None) -> list[Node]:
    """Rules about SEGOC (in `fmt`, or any) with ordered steps."""
    return [n for n in kg.rules_about(SEGOC, fmt) if _steps(kg, n.id)]


def _steps(kg: KnowledgeGraph, rule: str) -> dict[tuple[str, str], Node]:
    out: dict[tuple[str, str], Node] = {}
    for n in steps_of(kg, rule):
        d = describe(read_senses(n.text or ""))
        if d is not None and d not in out:
            out[d] = n
    return out


def decide_segoc(kb: Knowledge, q: Question) -> Decision | None:
    """Does effect A go on the chain before effect B (whose, mandatory/optional)?"""
    return segoc_decision(kb.kg, kb.formats, q)


def segoc_decision(kg: KnowledgeGraph, formats: Formats, q: Question) -> Decision | None:
    rules = segoc_rules(kg, q.format)
    if not rules:
        return None
    # two effects at the same time (or on one Chain), one put before or after the other
    order = q.senses.first("before", "after")
    if order is None or not q.senses.has("simultaneous", "chain"):
        return None
    first, second = describe(q.senses, end=order[0]), describe(q.senses, start=order[1])
    if first is None or second is None:
        return None
    steps = _steps(kg, rules[0].id)
    rule_fmt = kg.format_of(rules[0].id)
    fmt_en, fmt_pt = formats.label(rule_fmt, "en"), formats.label(rule_fmt, "pt")
    a, b = steps.get(first), steps.get(second)
    if a is None or b is None or a.order is None or b.order is None or a.id == b.id:
        return None
    after = order in q.senses.where("after")
    yes = (a.order > b.order) if after else (a.order < b.order)
    if q.negated:
        yes = not yes
    reasoning = [
        Step(f"Step {a.order}: {a.text}", f"Passo {a.order}: {a.text}", a.id),
        Step(f"Step {b.order}: {b.text}", f"Passo {b.order}: {b.text}", b.id),
        Step(
            f"Step {a.order} goes on the chain {'before' if a.order < b.order else 'after'} step {b.order}.",
            f"O passo {a.order} entra na corrente {'antes' if a.order < b.order else 'depois'} do passo {b.order}.",
            None,
        ),
    ]
    en = (
        f"{'Yes' if yes else 'No'} ({fmt_en}, SEGOC). Step {a.order} ({a.text}) goes on the "
        f"chain {'before' if a.order < b.order else 'after'} step {b.order} ({b.text})."
    )
    pt = (
        f"{'Sim' if yes else 'Não'} ({fmt_pt}, SEGOC). O passo {a.order} ({a.text}) entra na "
        f"corrente {'antes' if a.order < b.order else 'depois'} do passo {b.order} ({b.text})."
    )
    return Decision("yes" if yes else "no", reasoning, en, pt, 0.85, [a.id, b.id], "segoc")
