"""Life Point costs: can I pay it with the LP I have, and what happens if not?

The rule is found through the graph: a passage stating a `limits_cost` fact (a cost may not leave
fewer than `min_remaining` LP; in Edison, a cost may not bring your LP to 0), in the question's
format or any. A card whose maintenance cannot be paid destroys itself. The cost comes from the card's
curated `lp_cost` or from the question ("a 1000 LP cost"); the LP from the question.
"""

from __future__ import annotations

from kb.formats import Formats
from kb.graph import KnowledgeGraph
from kb.model import Fact
from kb.reading.question import Question
from kb.reason import Decision, Knowledge, Step
from kb.reason.facts import label


def _lp(q: Question) -> int | None:
    """The Life Points the question says one has: a number after "I have" / "tenho" (an
    "exactly" between), else a number with its unit after it ("8000 LP"), else before it
    ("LP: 8000")."""
    have = {e for _, e in q.senses.where("have_lp")}
    lp = q.senses.where("lp")
    for near in (
        lambda a: any(0 < a.start - e <= 12 for e in have),
        lambda a: any(0 <= s - a.end <= 4 for s, _ in lp),
        lambda a: any(0 <= a.start - e <= 3 for _, e in lp),
    ):
        found = next((a.value for a in q.amounts if a.digits and near(a)), None)
        if found is not None:
            return found
    return None


def _cost(q: Question) -> int | None:
    """The cost the question names: a number a few words after a word of cost or paying
    ("custo de 1000"), or one a unit or two before a word of cost ("1000 LP de custo")."""
    words = q.senses.where("cost")
    digits = [a for a in q.amounts if a.digits]
    after = [a for a in digits if any(0 < a.start - e <= 20 for _, e in words)]
    before = [a for a in digits if any(0 <= s - a.end <= 12 for s, _ in words)]
    found = after or before
    return found[0].value if found else None


def cost_limits(kg: KnowledgeGraph, fmt: str | None) -> list[Fact]:
    """The passages limiting what Life Points a cost may leave (`limits_cost`), in `fmt` or any."""
    return [
        f for f in kg.with_predicate("limits_cost") if fmt is None or kg.format_of(f.subject) == fmt
    ]


def decide_lp_cost(kb: Knowledge, q: Question) -> Decision | None:
    """Can I pay card X's (or an N LP) cost with the LP I have, and what happens if not?"""
    return lp_cost_decision(kb.kg, kb.formats, q)


def lp_cost_decision(kg: KnowledgeGraph, formats: Formats, q: Question) -> Decision | None:
    limits = cost_limits(kg, q.format)
    if not limits:
        return None
    limit = limits[0]
    card = next(
        (
            m.entity
            for m in q.mentions
            if m.entity.startswith("card/") and kg.node(m.entity).props.get("lp_cost")
        ),
        None,
    )
    lp = _lp(q)
    if card is not None:
        cost_info = kg.node(card).props["lp_cost"]
        cost, kind = int(cost_info["amount"]), str(cost_info["kind"])
    else:
        named = _cost(q)
        if named is None:
            return None
        cost, kind = named, "cost"
        if lp == cost:  # the only number found was the cost: look for another
            others = [a.value for a in q.amounts if a.digits and a.value != cost]
            lp = others[0] if others else None
    if lp is None:
        return None
    payable = lp - cost >= int(limit.props.get("min_remaining", 0))
    if q.senses.has("destroy") and kind == "maintenance":
        yes = not payable
    elif q.senses.has("lose"):
        yes = False  # a cost never takes you to 0: you cannot pay it instead
    elif q.senses.has("pay", "activate", "use"):
        yes = payable
    else:
        return None
    if q.negated:
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
