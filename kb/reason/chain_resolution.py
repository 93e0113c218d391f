"""Resolving a described chain: does card X resolve, does X resolve before Y, which resolves
first?

A chain resolves from the last link down (the passage stating it is found through the graph:
one mentioning chain resolution under a Rule or Section about Chain Links). A link that is not
itself negated negates the link below it when it negates that kind of activation. The links are
the cards in the order the question names them, or the Chain Link numbers it says.
"""

from __future__ import annotations

import weakref

from kb.graph import KnowledgeGraph
from kb.ids import concept_id
from kb.reading.question import Question
from kb.reason import Decision, Knowledge, Step, Value
from kb.reason.chain import link_numbers, verb_ends
from kb.reason.facts import best, label

_ACTIVATION_SCOPE = {
    "spell": "spell-activation",
    "trap": "trap-activation",
    "monster": "monster-effect-activation",
}


def _negatable_kinds(kg: KnowledgeGraph, card: str) -> set[str]:
    """Which activations a card negates, from curated `negates` and stated capabilities."""
    node = kg.get(card)
    kinds = set(node.props.get("negates", [])) if node else set()
    for f in kg.out(card, "has_capability"):
        scope = f.props.get("scope")
        if scope == "spell-trap-activation":
            kinds |= {"spell-activation", "trap-activation"}
        elif isinstance(scope, str):
            kinds.add(scope)
    return kinds


_RULES: weakref.WeakKeyDictionary[KnowledgeGraph, tuple[str | None]] = weakref.WeakKeyDictionary()


def resolution_rule(kg: KnowledgeGraph) -> str | None:
    """The passage stating that a chain resolves from the last link down: one that mentions
    chain resolution inside a Rule or Section about Chain Links, of the base rules first (found
    once per graph: reasoners ask for it on every question they read)."""
    known = _RULES.get(kg)
    if known is None:
        known = _RULES[kg] = (_resolution_rule(kg),)
    return known[0]


def _resolution_rule(kg: KnowledgeGraph) -> str | None:
    sections = {n.id for n in kg.rules_about(concept_id("chain-link"))}
    found = [
        f.subject
        for f in kg.into(concept_id("chain-resolution"), "mentions")
        if any(a in sections for a in kg.ancestors(f.subject))
    ] or _stated_last_first(kg)
    base = {n.id for n in kg.of_type("Format") if n.props.get("base")}
    found.sort(key=lambda s: f"format/{kg.format_of(s)}" not in base)
    return found[0] if found else None


def _stated_last_first(kg: KnowledgeGraph) -> list[str]:
    """A document without such a section: the passages holding a statement that chain resolution
    starts from the last link ("resolvido a partir do … mais recente a ser ativado"): it speaks
    of chain resolution, names the last end of an order, and is not negative."""
    resolution = concept_id("chain-resolution")
    return list(
        dict.fromkeys(
            n.parent
            for n in kg.of_type("Statement")
            if n.parent is not None
            and not n.props.get("negative")
            and "last" in (n.props.get("ordinals") or ())
            and any(e == resolution for e, _ in n.props.get("roles") or ())
        )
    )


def decide_resolution(kb: Knowledge, q: Question) -> Decision | None:
    """Does card X of a described chain resolve?"""
    return resolution_decision(kb.kg, q)


def resolution_decision(kg: KnowledgeGraph, q: Question) -> Decision | None:
    """A described chain (cards in the order they were activated): does card X resolve?

    The chain resolves from the last link down; a link that is not itself negated negates the
    link below it when it negates that kind of activation (spell / trap / monster effect).
    """
    if not q.senses.has("outcome"):
        return None
    lang = q.lang
    links: list[str] = []
    for m in q.mentions:
        if m.entity.startswith("card/") and m.entity not in links:
            links.append(m.entity)
    if len(links) < 2 or not any(_negatable_kinds(kg, c) for c in links[1:]):
        return None
    if len(links) == 2 and not q.senses.has("chain", "chain_to", "respond", "then"):
        return None  # two cards that merely meet (an attack, a flip) are no described chain
    # the card asked about: the first link named in the last clause
    tail_start = max((b + 1 for b in q.breaks if b < q.length - 1), default=0)
    asked = next(
        (m.entity for m in q.mentions if m.start >= tail_start and m.entity in links), links[0]
    )
    negated = [False] * len(links)
    steps: list[Step] = []
    rule = resolution_rule(kg)
    steps.append(
        Step(
            "The chain resolves from the last link down to Chain Link 1.",
            "A corrente resolve do último elo até o Elo 1.",
            rule,
        )
    )
    for i in range(len(links) - 1, 0, -1):
        upper, lower = links[i], links[i - 1]
        lower_node = kg.get(lower)
        kind = _ACTIVATION_SCOPE.get(
            lower_node.props.get("card_type", "") if lower_node else "", ""
        )
        if negated[i] or kind not in _negatable_kinds(kg, upper):
            continue
        negated[i - 1] = True
        cap = best(kg.out(upper, "has_capability"))
        steps.append(
            Step(
                f"Chain Link {i + 1} {label(kg, upper, 'en')} negates the activation of Chain Link {i} "
                f"{label(kg, lower, 'en')}.",
                f"Elo {i + 1} {label(kg, upper, 'pt')} nega a ativação do Elo {i} {label(kg, lower, 'pt')}.",
                cap.source if cap else None,
            )
        )
    resolves = not negated[links.index(asked)]
    name = label(kg, asked, lang)
    en = f"{'Yes' if resolves else 'No'}. {name} {'resolves' if resolves else 'is negated and does not resolve'}."
    pt = f"{'Sim' if resolves else 'Não'}. {name} {'resolve' if resolves else 'é negado e não resolve'}."
    return Decision(
        "yes" if resolves else "no",
        steps,
        en,
        pt,
        0.8,
        [s.source for s in steps if s.source],
        "chain-resolution",
    )


def decide_order(kb: Knowledge, q: Question) -> Decision | None:
    """Does X resolve before (after) Y in a chain? Which link resolves first (last)?"""
    if not q.yes_no:
        return first_to_resolve(kb.kg, q)
    return order_decision(kb.kg, q)


def _which_end(q: Question) -> bool | None:
    """ "Which card resolves first?" (True), "qual resolve por último?" (False): a question word,
    then resolving, then first or last, in the asking sentence; None when it asks no such thing."""
    which = q.senses.first("which", start=q.last_at)
    resolve = q.senses.first("resolve", start=which[1]) if which else None
    end = q.senses.first("first_word", "last_word", start=resolve[1]) if resolve else None
    return None if end is None else end in q.senses.where("first_word")


def first_to_resolve(kg: KnowledgeGraph, q: Question) -> Decision | None:
    """A described chain (each card named right after the verb that activates or chains it, in
    that order) and "which resolves first / last?": the last link resolves first."""
    first = _which_end(q)
    if first is None:
        return None
    verbs = verb_ends(q, "setup_verb", "chain_verb")
    links: list[str] = []
    for m in q.mentions:
        if (
            m.entity.startswith("card/")
            and m.entity not in links
            and any(0 <= m.start - v <= 12 for v in verbs)
        ):
            links.append(m.entity)
    rule = resolution_rule(kg)
    if len(links) < 2 or rule is None:
        return None
    card = links[-1] if first else links[0]
    order_en = ", ".join(f"{i} {label(kg, c, 'en')}" for i, c in enumerate(links, 1))
    order_pt = ", ".join(f"{i} {label(kg, c, 'pt')}" for i, c in enumerate(links, 1))
    steps = [
        Step(
            f"The chain, in the order activated: {order_en}.",
            f"A corrente, na ordem de ativação: {order_pt}.",
            None,
        ),
        Step(
            "The chain resolves from the last link down to Chain Link 1.",
            "A corrente resolve do último elo até o Elo 1.",
            rule,
        ),
    ]
    n = len(links) if first else 1
    en = (
        f"{label(kg, card, 'en')} (Chain Link {n}) resolves {'first' if first else 'last'}: "
        "the chain resolves from the last link down."
    )
    pt = (
        f"{label(kg, card, 'pt')} (Elo {n}) resolve {'primeiro' if first else 'por último'}: a "
        "corrente resolve do último elo para o primeiro."
    )
    return Decision(
        None, steps, en, pt, None, [rule], "chain-order", value=Value("text", label(kg, card, "en"))
    )


def order_decision(kg: KnowledgeGraph, q: Question) -> Decision | None:
    """Links resolve from the last one down: a later link resolves before an earlier one. The
    links are numbered ("elo 4 … elo 3") or cards of a described chain, in the order named."""
    order = q.senses.first("order_before", "order_after", start=q.last_at)
    if order is None or not q.senses.has("resolve", start=q.last_at):
        return None
    after = order in q.senses.where("order_after")
    numbers = link_numbers(q, q.last_at)
    if len(numbers) == 2 and numbers[0] != numbers[1]:
        first, second = numbers
        names = [(f"Chain Link {n}", f"Elo {n}") for n in numbers]
    else:
        links: list[str] = []
        for m in q.mentions:
            if m.entity.startswith("card/") and m.entity not in links:
                links.append(m.entity)
        # the card just before the order word and the first one after it ("o MST resolve antes
        # do Imperial Order?"), each at its link (where the question first names it)
        at = order[0]
        cards = [m for m in q.mentions if m.entity.startswith("card/")]
        before = [m.entity for m in cards if m.end <= at]
        after_ = [m.entity for m in cards if m.start >= at]
        if len(links) < 2 or not before or not after_ or before[-1] == after_[0]:
            return None
        asked = [before[-1], after_[0]]
        first, second = links.index(asked[0]) + 1, links.index(asked[1]) + 1
        names = [(label(kg, e, "en"), label(kg, e, "pt")) for e in asked]
    rule = resolution_rule(kg)
    if rule is None:
        return None
    earlier = first > second  # the later link resolves first
    yes = earlier != after
    (a_en, a_pt), (b_en, b_pt) = names
    steps = [
        Step(
            "The chain resolves from the last link down to Chain Link 1.",
            "A corrente resolve do último elo até o Elo 1.",
            rule,
        ),
        Step(
            f"{a_en} is Chain Link {first} and {b_en} is Chain Link {second}: {a_en} resolves "
            f"{'before' if earlier else 'after'} {b_en}.",
            f"{a_pt} é o Elo {first} e {b_pt} é o Elo {second}: {a_pt} resolve "
            f"{'antes' if earlier else 'depois'} de {b_pt}.",
            rule,
        ),
    ]
    a, b = (a_en, b_en) if q.lang == "en" else (a_pt, b_pt)
    en = f"{'Yes' if yes else 'No'}. {a} resolves {'before' if earlier else 'after'} {b}: the chain resolves from the last link down."
    pt = f"{'Sim' if yes else 'Não'}. {a} resolve {'antes' if earlier else 'depois'} de {b}: a corrente resolve do último elo para o primeiro."
    return Decision("yes" if yes else "no", steps, en, pt, 0.85, [rule], "chain-order")
