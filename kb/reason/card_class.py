"""Is a card of a class? "Does Nightmare Penguin count as a Flip effect?", "Jinzo é um monstro
Spirit?", "Is Sangan's effect a Trigger Effect?".

The card's facts say what it is (`instance_of`: Spirit, Union, Counter Trap …) and what its
effects are (`has_effect_type`: Trigger, Flip, Quick …), each with its source (card data or the
curated table); a class includes the narrower ones (`broader`: a Pseudo-flip effect is a Trigger
Effect). The rule cited is the passage of a claim about the asked class and one of the card's own
(the pseudo-flip sentence for a trigger asked as a Flip effect), else of one about the class.
"""

from __future__ import annotations

from kb.graph import KnowledgeGraph
from kb.reading.question import Question
from kb.reason import Decision, Knowledge, Step
from kb.reason.facts import EVERY_MONSTER, best, broader_chain, label, provenance

_FAMILIES = ("has_effect_type", "instance_of")
# Kinds every card of a side has: "is Jinzo a monster?" is not a class question.
_TOO_BROAD = EVERY_MONSTER | {"concept/spell-card", "concept/trap-card", "concept/effect"}


def decide_card_class(kb: Knowledge, q: Question) -> Decision | None:
    return card_class_decision(kb.kg, q)


def _family(kg: KnowledgeGraph, concept: str) -> str | None:
    """The predicate that puts cards in `concept` (None: no card is in it)."""
    for predicate in _FAMILIES:
        if kg.into(concept, predicate):
            return predicate
    return None


def card_class_decision(kg: KnowledgeGraph, q: Question) -> Decision | None:
    # "Is X a C?", "X conta como C?": a copula in the asking sentence
    copula = q.senses.first("copula", start=q.last_at)
    if not q.yes_no or copula is None:
        return None
    cards = list(dict.fromkeys(q.cards))
    classes = [
        m.entity
        for m in q.mentions
        if m.entity.startswith("concept/") and m.entity not in _TOO_BROAD
    ]
    asked = [c for c in dict.fromkeys(classes) if _family(kg, c) is not None]
    if len(cards) != 1 or len(asked) != 1:
        return None
    card, concept = cards[0], asked[0]
    # the card named before the class, the copula before the class
    at_card = next(m.start for m in q.mentions if m.entity == card)
    at_class = max(m.start for m in q.mentions if m.entity == concept)
    if not copula[0] < at_class or at_card > at_class:
        return None
    if _other_subject(q, card, copula[0]):
        return None
    family = _family(kg, concept)
    assert family is not None
    # What the card is (its kinds, and every class its type line gives) or what its effects are;
    # none listed: not known
    own = [f for f in kg.out(card, family) if f.object != "concept/effect"]
    if not own:
        return None
    member = best([f for f in own if concept in broader_chain(kg, f.object)])
    yes = member is not None
    c_en, c_pt = label(kg, concept, "en"), label(kg, concept, "pt")
    n_en, n_pt = label(kg, card, "en"), label(kg, card, "pt")
    steps: list[Step] = []
    if member is not None:
        steps.append(
            Step(
                f"{n_en}: {label(kg, member.object, 'en')}, a kind of {c_en}.",
                f"{n_pt}: {label(kg, member.object, 'pt')}, um tipo de {c_pt}.",
                None,
                provenance(member),
            )
        )
    else:
        names_en = ", ".join(label(kg, f.object, "en") for f in own)
        names_pt = ", ".join(label(kg, f.object, "pt") for f in own)
        steps.append(
            Step(
                f"{n_en}: {names_en}; none of them is a {c_en}.",
                f"{n_pt}: {names_pt}; nenhum é {c_pt}.",
                None,
                provenance(best(own)),
            )
        )
    rule = _rule(kg, concept, {f.object for f in own})
    if rule is not None:
        text = kg.node(rule).text or ""
        steps.append(Step(f"Rule: {text}", f"Regra: {text}", rule))
    if q.negated:
        yes = not yes
    what_en = "is" if member is not None else "is not"
    what_pt = "é" if member is not None else "não é"
    return Decision(
        "yes" if yes else "no",
        steps,
        f"{'Yes' if yes else 'No'}. {n_en} {what_en} a {c_en} by its card facts.",
        f"{'Sim' if yes else 'Não'}. {n_pt} {what_pt} {c_pt} pelos seus dados de card.",
        0.85,
        [s.source for s in steps if s.source],
        "card-class",
    )


# Cards named by their side: one between the card and the copula is what the copula is said of.
_CARD_KINDS = EVERY_MONSTER | {"concept/spell-card", "concept/trap-card", "concept/card"}


def _other_subject(q: Question, card: str, copula: int) -> bool:
    """Another card stands between the card and a copula after it: the copula is said of that one
    ("Can Comic Hand make any monster count as a Toon?" asks nothing of what Comic Hand is)."""
    end = max((m.end for m in q.mentions if m.entity == card and m.end <= copula), default=None)
    if end is None:
        return False  # "Is X a C?": the copula opens the question
    return any(
        m.entity != card and (m.entity in _CARD_KINDS or m.entity.startswith("card/"))
        for m in q.mentions
        if end <= m.start < copula
    )


def _rule(kg: KnowledgeGraph, concept: str, own: set[str]) -> str | None:
    """The passage of a claim concerning the asked class and most of the card's own classes."""
    scored: list[tuple[int, int, str]] = []
    for f in kg.into(concept, "concerns"):
        stated = kg.out(f.subject, "stated_in")
        if not stated or stated[0].object not in kg:
            continue
        concerns = {c.object for c in kg.out(f.subject, "concerns")}
        scored.append((len(concerns & own), -len(concerns), stated[0].object))
    if not scored:
        return None
    # the claim sharing most of the card's classes, then the most specific (fewest concerns)
    return max(scored)[2]


def classes_asked(kg: KnowledgeGraph) -> bool:
    """The graph puts cards in classes (some card has an effect type or a class)."""
    return any(
        f.subject.startswith("card/") and f.object not in _TOO_BROAD
        for p in _FAMILIES
        for f in kg.with_predicate(p)[:1000]
    )
