"""Continuous effects and Chains: does a continuous effect start a Chain, can anything be chained to it?

Two facts decide, both found through the graph: a rule passage stating that only what is
activated forms a Chain (`concept/chain formed_only_by concept/activation`), and an effect kind
that applies without being activated (`applies_without concept/activation`: a Continuous Effect).
The effect is the kind the question names ("o efeito contínuo do Jinzo") or the only effect kind a
named monster has in its card data (Marshmallon's effect). Such an effect starts no Chain and
nothing responds to it: the answer to "does it start a Chain / can I chain to it" is no.
"""

from __future__ import annotations

from kb.graph import KnowledgeGraph
from kb.model import Fact
from kb.reading.question import Question
from kb.reason import Decision, Knowledge, Step
from kb.reason.facts import best, label, provenance

CHAIN = "concept/chain"
ACTIVATION = "concept/activation"


def decide_continuous(kb: Knowledge, q: Question) -> Decision | None:
    """Does a continuous effect start a Chain, or can something be chained to it? No."""
    return continuous_decision(kb.kg, q)


def chain_rule(kg: KnowledgeGraph) -> Fact | None:
    """The passage stating that only activated cards and effects form a Chain."""
    return best([f for f in kg.out(CHAIN, "formed_only_by") if f.object == ACTIVATION])


def _unactivated(kg: KnowledgeGraph, entity: str) -> Fact | None:
    return best([f for f in kg.out(entity, "applies_without") if f.object == ACTIVATION])


def _effect_of_card(kg: KnowledgeGraph, card: str) -> tuple[str, Fact] | None:
    """The effect kind of a monster whose card data gives it that one kind, if it applies
    without activation: (kind, the card fact)."""
    kinds = kg.out(card, "has_effect_type")
    if len({f.object for f in kinds}) != 1:
        return None
    fact = best(kinds)
    if fact is None or _unactivated(kg, fact.object) is None:
        return None
    return fact.object, fact


def continuous_decision(kg: KnowledgeGraph, q: Question) -> Decision | None:
    # The question asks about a Chain: starting or forming one, chaining or responding to something.
    if not q.yes_no or not q.senses.has("chain", "chain_to", "respond"):
        return None
    rule = chain_rule(kg)
    if rule is None or rule.source is None or rule.source not in kg:
        return None
    named = [m.entity for m in q.mentions]
    kind = next((e for e in named if _unactivated(kg, e) is not None), None)
    cards = list(dict.fromkeys(e for e in named if e.startswith("card/")))
    card = cards[0] if cards else None
    card_fact: Fact | None = None
    if kind is None:
        # "Does Marshmallon's effect start a Chain?": the effect is the one kind of the one card
        # named, a monster (a Spell or Trap Card is itself activated, whatever its effect).
        if len(cards) != 1 or card is None or not q.senses.has("effect"):
            return None
        if kg.node(card).props.get("card_type") != "monster":
            return None
        found = _effect_of_card(kg, card)
        if found is None:
            return None
        kind, card_fact = found
    elif card is not None:
        card_fact = next((f for f in kg.out(card, "has_effect_type") if f.object == kind), None)
    kind_fact = _unactivated(kg, kind)
    assert kind_fact is not None
    yes = q.negated  # "no Chain" unless the question asks the negative
    passage = kg.node(rule.source)
    kind_en, kind_pt = label(kg, kind, "en"), label(kg, kind, "pt")
    steps: list[Step] = []
    if card is not None and card_fact is not None:
        card_en, card_pt = label(kg, card, "en"), label(kg, card, "pt")
        steps.append(
            Step(
                f"{card_en}'s effect is a {kind_en}.",
                f"O efeito de {card_pt} é um {kind_pt}.",
                None,
                provenance(card_fact),
            )
        )
    steps.append(
        Step(
            f"A {kind_en} is not activated: it applies while its card is face-up.",
            f"Um {kind_pt} não é ativado: ele se aplica enquanto seu card estiver com a face para cima.",
            None,
            provenance(kind_fact),
        )
    )
    steps.append(
        Step(
            f"Only activated cards and effects form a Chain: {passage.text}",
            f"Somente cards e efeitos ativados formam uma Corrente: {passage.text}",
            passage.id,
        )
    )
    what_en = f"{label(kg, card, 'en')}'s {kind_en}" if card else f"a {kind_en}"
    what_pt = f"o {kind_pt} de {label(kg, card, 'pt')}" if card else f"um {kind_pt}"
    en = (
        f"{'Yes' if yes else 'No'}. {what_en[0].upper() + what_en[1:]} is not activated, and only "
        "activated cards and effects form a Chain: it starts no Chain and nothing is chained to it."
    )
    pt = (
        f"{'Sim' if yes else 'Não'}. {what_pt[0].upper() + what_pt[1:]} não é ativado, e somente "
        "cards e efeitos ativados formam uma Corrente: ele não inicia Corrente e nada é encadeado "
        "a ele."
    )
    return Decision(
        verdict="yes" if yes else "no",
        steps=steps,
        summary_en=en,
        summary_pt=pt,
        confidence=0.9,
        sources=[passage.id],
        reasoner="continuous-chain",
    )
