"""Life Point costs: can I pay it with the LP I have, and what happens if not?

The rule is found through the graph: a passage stating a `limits_cost` fact (a cost may not leave
fewer than `min_remaining` LP; in Edison, a cost may not bring your LP to 0), in the question's
format or any. A card whose maintenance cannot be paid destroys itself. The cost comes from the card's
curated `lp_cost` or from the question ("a 1000 LP cost"); the LP from the question.
"""

from __future__ import annotations

import re

from kb.formats import Formats
from kb.graph import KnowledgeGraph
from kb.ids import fold
from kb.link import Mention
from kb.model import Fact
from kb.reading.clauses import question_negated
from kb.reading.question import Question
from kb.reason import Decision, Knowledge, Step
from kb.reason.facts import label

_NUMBER = r"(\d{1,2}[.,]\d{3}|\d+)"
_UNITS = r"(?:lp|pv|pontos de vida|life points?|de vida)"
_LP = (
    re.compile(
        rf"\b(?:tenho|estou com|to com|tô com|fico com|i'?m at|i have|at|with|com)\s+"
        rf"(?:exactly |exatamente |so |só )?{_NUMBER}\s*(?:de\s+)?{_UNITS}?\b"
    ),
    re.compile(rf"\b{_NUMBER}\s*(?:de\s+)?{_UNITS}\b"),
    re.compile(rf"\b{_UNITS}\s*(?:de|=|:)?\s*{_NUMBER}\b"),
)
_COST = re.compile(
    rf"\b(?:custo|cost|pagar|pay|paying|upkeep|manutencao)\b\D{{0,20}}?{_NUMBER}"
    rf"|{_NUMBER}\s*(?:de\s+)?{_UNITS}?\s*(?:de\s+)?(?:custo|cost|upkeep|maintenance)"
)
_PAY = re.compile(r"\b(pag\w*|pay\w*|keep|manter|mantenho|upkeep|ativ\w*|activat\w*|use|usar)\b")
_DESTROYED = re.compile(r"\b(destr\w*|auto-?destr\w*|self-?destruct\w*|gone|vai pro cemiterio)\b")
_LOSE = re.compile(r"\b(perd\w*|lose|loses|losing|zer\w*|reach(?:es)? 0|chega\w* a 0|to 0|a 0)\b")


def _amount(text: str) -> int:
    return int(re.sub(r"[.,]", "", text))


def _lp(q: str) -> int | None:
    for pattern in _LP:
        m = pattern.search(q)
        if m:
            return _amount(next(g for g in m.groups() if g))
    return None


def cost_limits(kg: KnowledgeGraph, fmt: str | None) -> list[Fact]:
    """The passages limiting what Life Points a cost may leave (`limits_cost`), in `fmt` or any."""
    return [
        f for f in kg.with_predicate("limits_cost") if fmt is None or kg.format_of(f.subject) == fmt
    ]


def decide_lp_cost(kb: Knowledge, q: Question) -> Decision | None:
    """Can I pay card X's (or an N LP) cost with the LP I have, and what happens if not?"""
    return lp_cost_decision(kb.kg, kb.formats, q.text, q.mentions, q.format)


def lp_cost_decision(
    kg: KnowledgeGraph, formats: Formats, question: str, mentions: list[Mention], fmt: str | None
) -> Decision | None:
    limits = cost_limits(kg, fmt)
    if not limits:
        return None
    limit = limits[0]
    q = fold(question)
    card = next(
        (
            m.entity
            for m in mentions
            if m.entity.startswith("card/") and kg.node(m.entity).props.get("lp_cost")
        ),
        None,
    )
    lp = _lp(q)
    if card is not None:
        cost_info = kg.node(card).props["lp_cost"]
        cost, kind = int(cost_info["amount"]), str(cost_info["kind"])
    else:
        m = _COST.search(q)
        if m is None:
            return None
        cost, kind = _amount(next(g for g in m.groups() if g)), "cost"
        if lp == cost:  # the only number found was the cost: look for another
            others = [_amount(n) for n in re.findall(_NUMBER, q) if _amount(n) != cost]
            lp = others[0] if others else None
    if lp is None:
        return None
    payable = lp - cost >= int(limit.props.get("min_remaining", 0))
    if _DESTROYED.search(q) and kind == "maintenance":
        yes = not payable
    elif _LOSE.search(q):
        yes = False  # a cost never takes you to 0: you cannot pay it instead
    elif _PAY.search(q):
        yes = payable
    else:
        return None
    if question_negated(question):
        yes = not yes
    rule = kg.node(limit.subject)
    section = kg.section_of(rule.id)
    specific = (
        next(
            (
                kg.node(f.subject)
                for f in kg.into(card, "mentions")
                if section is not None and section.id in kg.ancestors(f.subject)
            ),
            None,
        )
        if card
        else None
    )
    rule_fmt = kg.format_of(rule.id)
    fmt_en, fmt_pt = formats.label(rule_fmt, "en"), formats.label(rule_fmt, "pt")
    name_en = label(kg, card, "en") if card else "The cost"
    name_pt = label(kg, card, "pt") if card else "O custo"
    steps = [
        Step(
            f"{fmt_en}: a cost cannot reduce your Life Points to 0. {rule.text}",
            f"{fmt_pt}: um custo não pode reduzir seus Pontos de Vida a 0. {rule.text}",
            rule.id,
        ),
        Step(
            f"{name_en} costs {cost} LP ({kind}); with {lp} LP it {'can' if payable else 'cannot'} be paid.",
            f"{name_pt} custa {cost} PV ({kind}); com {lp} PV {'pode' if payable else 'não pode'} ser pago.",
            specific.id if specific else None,
        ),
    ]
    if kind == "maintenance" and not payable:
        steps.append(
            Step(
                "A maintenance cost that cannot be paid: the card destroys itself.",
                "Um custo de manutenção que não pode ser pago: o card se autodestrói.",
                rule.id,
            )
        )
    cost_en = f"{name_en}'s {cost} LP cost" if card else f"a {cost} LP cost"
    cost_pt = f"o custo de {cost} PV de {name_pt}" if card else f"um custo de {cost} PV"
    outcome_en = f"with {lp} LP, {cost_en} {'can' if payable else 'cannot'} be paid" + (
        "" if payable or kind != "maintenance" else ", so the card destroys itself"
    )
    outcome_pt = f"com {lp} PV, {cost_pt} {'pode' if payable else 'não pode'} ser pago" + (
        "" if payable or kind != "maintenance" else ", então o card se autodestrói"
    )
    sources = [s for s in (specific.id if specific else None, rule.id) if s]
    return Decision(
        "yes" if yes else "no",
        steps,
        f"{'Yes' if yes else 'No'} ({fmt_en}): {outcome_en}.",
        f"{'Sim' if yes else 'Não'} ({fmt_pt}): {outcome_pt}.",
        0.85,
        sources,
        "lp-cost",
    )
