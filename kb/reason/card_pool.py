"""A card outside a format's card pool: it is not legal there, so no ruling of that format applies.

The format's spec names the card-record flag that decides membership (`card_pool`, declared in the
manifest); the card's data says whether it has it and when it was first released in the TCG. The
rule passage is the format's own Rule or Section `about` concept/card-pool, found through the graph.
"""

from __future__ import annotations

from kb.graph import KnowledgeGraph
from kb.ids import concept_id
from kb.model import Node
from kb.reading.question import Question
from kb.reason import Decision, Knowledge, Step

CARD_POOL = concept_id("card-pool")


def pool_rule(kg: KnowledgeGraph, fmt: str) -> str | None:
    """The first passage under the format's Rule/Section about its card pool (or that node)."""
    for node in kg.rules_about(CARD_POOL, fmt):
        for child in kg.children(node.id):
            n = kg.node(child)
            if n.span is not None and n.text and n.type != "Section":
                return n.id
        if node.span is not None:
            return node.id
    return None


def decide_card_pool(kb: Knowledge, q: Question) -> Decision | None:
    spec = kb.formats.get(q.format)
    flag = spec.card_pool if spec is not None else None
    if spec is None or not flag:
        return None
    outside: list[Node] = []
    for m in q.mentions:
        node = kb.kg.get(m.entity)
        if node is None or node.type != "Card" or node in outside:
            continue
        if node.props.get(flag) is False:
            outside.append(node)
    if not outside:
        return None
    card = outside[0]
    rule = pool_rule(kb.kg, spec.id)
    date = card.props.get("first_tcg_date")
    name_en, name_pt = card.label_en or card.id, card.label_pt or card.label_en or card.id
    when_en = f" (first released in the TCG on {date})" if date else " (never released in the TCG)"
    when_pt = (
        f" (lançado no TCG pela primeira vez em {date})" if date else " (nunca lançado no TCG)"
    )
    fact = {
        "subject": card.id,
        "predicate": flag,
        "object": "false",
        "authority": "inferred",
        **({"password": card.props["password"]} if card.props.get("password") else {}),
        **({"dataset": "|".join(card.props["datasets"])} if card.props.get("datasets") else {}),
    }
    steps = [
        Step(
            f"{name_en} is not in the {spec.label_en} card pool{when_en}.",
            f"{name_pt} não faz parte do conjunto de cards do {spec.label_pt}{when_pt}.",
            None,
            fact,
        )
    ]
    if rule is not None:
        steps.append(
            Step(
                f"Only cards of its card pool may be used in {spec.label_en}.",
                f"Somente cards do seu conjunto de cards podem ser usados no {spec.label_pt}.",
                rule,
            )
        )
    # Whether it may be used, or whether it may do something there: either way, not in this format.
    # The asking clause is about using the card at all (legality), or asks for permission.
    asks_use = q.asking_senses.has("use", "put", "legal", "valid", "list_status") or q.senses.has(
        "permission"
    )
    en = f"{name_en} is not legal in {spec.label_en}{when_en}: no {spec.label_en} ruling applies to it."
    pt = f"{name_pt} não é permitido no {spec.label_pt}{when_pt}: nenhuma regra do {spec.label_pt} se aplica a ele."
    return Decision(
        "no" if asks_use and q.yes_no else None,
        steps,
        ("No. " if asks_use and q.yes_no else "") + en,
        ("Não. " if asks_use and q.yes_no else "") + pt,
        0.9 if asks_use and q.yes_no else None,
        [s.source for s in steps if s.source],
        "card-pool",
    )
