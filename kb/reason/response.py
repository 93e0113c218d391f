"""Responding to an action without a Spell Speed: can X be chained to a Summon, or respond to it?

A Summon or a Set is an action, not an activation (the glossary types it `instance_of
concept/speedless-action`). A rule passage states what such an action allows
(`cannot_be_chained_to concept/chain`, `can_be_responded_to concept/response`, the latter also
`within_chain` when a Chain built on the Summon is still open), and a Special Summon kind may say
so itself (an inherent Special Summon starts no Chain but can be responded to). All are found
through the graph:

- "Can you chain to a Summon?" / "Can I chain something to that Set?": no, nothing is chained to
  it; it can only be responded to.
- "Can Lose 1 Turn be used in response to the Special Summon of Cyber Dragon?", "Can I chain
  Bottomless Trap Hole to a Normal Summon?": yes, a card that can be activated then responds to
  it (a Spell Speed 1 card is not decided here: what it may respond to is the chain reasoner's).
"""

from __future__ import annotations

from kb.graph import KnowledgeGraph
from kb.model import Fact, Mention
from kb.reading.question import Question
from kb.reason import Decision, Knowledge, Step
from kb.reason.damage import DAMAGE_WORDS
from kb.reason.facts import best, broader_chain, label, provenance, spell_speed

SPEEDLESS = "concept/speedless-action"
CHAIN = "concept/chain"
RESPONSE = "concept/response"
INHERENT = "concept/inherent-special-summon"
# Between the verb and the action: a few characters, no word naming an activation ("chain to the
# activation of Monster Reborn" chains to the activation, not to the Summon).
_GAP = 48
Span = tuple[int, int]


def _open_chain(q: Question) -> bool:
    """A Chain already open on the action: a Chain Link named, or someone having chained."""
    return q.senses.has("chain_link") or any(
        q.in_condition(at) or at < q.last_at for at, _ in q.senses.where("chain_to")
    )


def decide_response(kb: Knowledge, q: Question) -> Decision | None:
    """Chained to, or responded to: a Summon or a Set."""
    return response_decision(kb.kg, q)


def response_rules(kg: KnowledgeGraph) -> tuple[Fact | None, Fact | None]:
    """(what cannot be chained to, what can be responded to) for actions without a Spell Speed."""
    chained = best([f for f in kg.out(SPEEDLESS, "cannot_be_chained_to") if f.object == CHAIN])
    responded = best(
        [
            f
            for f in kg.out(SPEEDLESS, "can_be_responded_to")
            if f.object == RESPONSE and not f.props.get("within_chain")
        ]
    )
    return chained, responded


def _speedless(kg: KnowledgeGraph, concept: str) -> Fact | None:
    """The fact making `concept` (or a broader concept of it) an action without a Spell Speed."""
    for c in broader_chain(kg, concept):
        own = best([f for f in kg.out(c, "instance_of") if f.object == SPEEDLESS])
        if own is not None:
            return own
    return None


def _asked_action(kg: KnowledgeGraph, q: Question) -> tuple[Mention, Span, Fact] | None:
    """The action chained or responded to: a speedless concept named just after the verb, the
    verb being the one asked (not a condition's: "chain X to Y when both respond to the Summon"
    asks about chaining X to Y)."""
    for verb in [*q.senses.where("respond"), *q.senses.where("chain_to")]:
        if q.in_condition(verb[0]):
            continue
        for m in q.mentions:
            if m.start < verb[1] or m.start - verb[1] > _GAP:
                continue
            if q.senses.has("activate", "effect", start=verb[1], end=m.start):
                break
            fact = _speedless(kg, m.entity)
            if fact is not None:
                return m, verb, fact
    return _used_at_action(kg, q)


def _used_at_action(kg: KnowledgeGraph, q: Question) -> tuple[Mention, Span, Fact] | None:
    """The action a card is used at ("ativar X quando o oponente invoca Y", "use X after my
    opponent summons Y"): a speedless concept inside the "when …" clause that follows the asked
    verb of using or activating; it asks whether the card can be activated in response."""
    for verb in sorted({*q.senses.where("activate"), *q.senses.where("use")}):
        if q.in_condition(verb[0]):
            continue
        end = next((b for b in q.breaks if b >= verb[1]), q.length)
        opener = q.senses.first("at_action", start=verb[1])
        if opener is None or opener[1] > end:
            continue
        for m in q.mentions:
            if opener[1] <= m.start < end and (fact := _speedless(kg, m.entity)) is not None:
                return m, verb, fact
    return None


def response_decision(kg: KnowledgeGraph, q: Question) -> Decision | None:
    if not q.yes_no or q.senses.has(*DAMAGE_WORDS):
        return None
    chained, responded = response_rules(kg)
    if chained is None or responded is None:
        return None
    found = _asked_action(kg, q)
    if found is None:
        return None
    action, verb, kind_fact = found
    cards = list(dict.fromkeys(q.cards))
    # The card that would respond: one with a Spell Speed that is not itself the summoned one.
    speeds = [(c, s) for c in cards if (s := spell_speed(kg, c)) is not None]
    if any(s[0] == 1 for _, s in speeds):
        return None  # what a Spell Speed 1 card may respond to is the chain reasoner's
    responding = verb in q.senses.where("respond") or bool(speeds)
    steps: list[Step] = []
    sources: list[str] = []
    name_en, name_pt = label(kg, action.entity, "en"), label(kg, action.entity, "pt")
    steps.append(
        Step(
            f"A {name_en} is an action, not an activation: it has no Spell Speed.",
            f"Uma {name_pt} é uma ação, não uma ativação: não tem Velocidade de Magia.",
            None,
            provenance(kind_fact),
        )
    )
    if responding:
        # A Special Summon kind that says so itself (inherent: no Chain, but responded to).
        for card in cards:
            kind = best([f for f in kg.out(card, "summoned_by") if f.object == INHERENT])
            own = best(kg.out(INHERENT, "can_be_responded_to")) if kind is not None else None
            if own is not None and own.source and own.source in kg:
                steps.append(
                    Step(
                        f"{label(kg, card, 'en')} is an inherent Special Summon: "
                        f"{kg.node(own.source).text}",
                        f"{label(kg, card, 'pt')} é uma Invocação-Especial inerente: "
                        f"{kg.node(own.source).text}",
                        own.source,
                        provenance(kind),
                    )
                )
                sources.append(own.source)
                break
        within = best(
            [f for f in kg.out(SPEEDLESS, "can_be_responded_to") if f.props.get("within_chain")]
        )
        if within is not None and within.source and _open_chain(q):
            steps.append(
                Step(
                    f"While a Chain built on it is open, it is still the last action: "
                    f"{kg.node(within.source).text}",
                    f"Enquanto a Corrente feita sobre ela está aberta, ela ainda é a última ação: "
                    f"{kg.node(within.source).text}",
                    within.source,
                )
            )
            sources.insert(0, within.source)
    rule = responded if responding else chained
    assert rule.source is not None
    text = kg.node(rule.source).text if rule.source in kg else ""
    steps.append(Step(f"Rule: {text}", f"Regra: {text}", rule.source))
    sources.append(rule.source)
    yes = responding != q.negated
    if responding:
        en = (
            f"{'Yes' if yes else 'No'}. A {name_en} has no Spell Speed: nothing is chained to it, "
            "but a card or effect that can be activated then may be activated in response to it."
        )
        pt = (
            f"{'Sim' if yes else 'Não'}. Uma {name_pt} não tem Velocidade de Magia: nada é "
            "encadeado a ela, mas um card ou efeito que possa ser ativado naquele momento pode ser "
            "ativado em resposta a ela."
        )
    else:
        en = (
            f"{'Yes' if yes else 'No'}. A {name_en} has no Spell Speed, so nothing can be chained "
            "to it: it can only be responded to."
        )
        pt = (
            f"{'Sim' if yes else 'Não'}. Uma {name_pt} não tem Velocidade de Magia, então nada "
            "pode ser encadeado a ela: ela só pode ser respondida."
        )
    return Decision(
        verdict="yes" if yes else "no",
        steps=steps,
        summary_en=en,
        summary_pt=pt,
        confidence=0.85,
        sources=list(dict.fromkeys(sources)),
        reasoner="speedless-response",
    )
