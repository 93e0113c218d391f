"""Can card A negate card B? What A negates (activations of Spells, Traps or monster effects, or
effects only) against what B is.

Works for every card whose capabilities are known: curated `negates`, document facts, or the
capabilities inferred from card data. A Summon is the summon-negation reasoner's question, not
this one's.
"""

from __future__ import annotations

from kb.graph import KnowledgeGraph
from kb.ids import concept_id
from kb.model import Fact, Node
from kb.reading.question import Question
from kb.reading.senses import Senses
from kb.reason import Decision, Knowledge, Step
from kb.reason.chain import chain_decision
from kb.reason.damage import DAMAGE_WORDS
from kb.reason.facts import best, label, provenance

_KIND = {"spell": "spell", "trap": "trap", "monster": "monster-effect"}
_EFFECT_WORDS = ("effect", "activate", "ability")
SCOPE_NAMES = {
    "summon": ("Summons", "Invocações"),
    "special-summon": ("Special Summons", "Invocações-Especiais"),
    "spell-activation": ("activations of Spell Cards", "ativações de Cards de Magia"),
    "trap-activation": ("activations of Trap Cards", "ativações de Cards de Armadilha"),
    "monster-effect-activation": (
        "activations of monster effects",
        "ativações de efeitos de monstro",
    ),
    "effects": ("effects", "efeitos"),
    "spell-effects": ("Spell effects", "efeitos de Magia"),
    "trap-effects": ("Trap effects", "efeitos de Armadilha"),
    "monster-effects": ("monster effects", "efeitos de monstro"),
}
_NAMES = {
    "spell": ("a Spell Card", "um Card de Magia"),
    "trap": ("a Trap Card", "um Card de Armadilha"),
    "monster": ("a monster effect", "um efeito de monstro"),
}


def negation_scopes(kg: KnowledgeGraph, card: str) -> dict[str, Fact | None]:
    """What a card negates (scope → the fact stating it; None for a curated `negates` prop)."""
    out: dict[str, Fact | None] = {}
    node = kg.get(card)
    for scope in node.props.get("negates", []) if node else []:
        out.setdefault(str(scope), None)
    for f in kg.out(card, "has_capability"):
        scope = f.props.get("scope")
        scopes = (
            ["spell-activation", "trap-activation"] if scope == "spell-trap-activation" else [scope]
        )
        for s in scopes:
            if isinstance(s, str) and (out.get(s) is None or best([f, out[s]]) is f):  # type: ignore[list-item]
                out[s] = f
    return out


def _negates_summon(asked: Senses, verb_end: int) -> bool:
    """What follows the negation verb is a Summon ("negate the Special Summon of X"), not an
    effect ("negate X's effect that Special Summons"): the summon reasoner's question."""
    summon, effect = (
        asked.first("summon", start=verb_end),
        asked.first(*_EFFECT_WORDS, start=verb_end),
    )
    return summon is not None and (effect is None or summon[0] < effect[0])


def _kind_fact(kg: KnowledgeGraph, card: str, kind: str) -> Fact | None:
    cls = concept_id(f"{kind}-card")
    return best([f for f in kg.out(card, "instance_of") if f.object == cls])


def decide_negation(kb: Knowledge, q: Question) -> Decision | None:
    # the question's words outside the cards' names
    asked = q.senses.outside((m.start, m.end) for m in q.mentions if m.entity.startswith("card/"))
    verb = asked.first("negate", start=q.last_at)  # negating is what the asking sentence asks
    if verb is None or q.senses.has(*DAMAGE_WORDS) or _negates_summon(asked, verb[1]):
        return None  # a Summon, or the Damage Step: other reasoners' questions
    # Negating an activation means chaining to it: a responder too slow for it negates nothing.
    chained = chain_decision(kb.kg, q)
    if chained is not None and chained.verdict == "no":
        return chained
    cards: list[Node] = []
    for m in q.mentions:
        node = kb.kg.get(m.entity)
        if node is not None and node.type == "Card" and node not in cards:
            cards.append(node)
    if len(cards) < 2:
        return None
    kg = kb.kg
    passive = q.senses.first("negated_by")
    after = [m.entity for m in q.mentions if passive is not None and m.start >= passive[1]]
    order = sorted(cards, key=lambda c: c.id not in after) if after else cards
    negator = next((c for c in order if negation_scopes(kg, c.id)), None)
    if negator is None:
        return None
    target = next(c for c in cards if c is not negator)
    kind = target.props.get("card_type")
    if kind not in _KIND:
        return None
    scopes = negation_scopes(kg, negator.id)
    if (
        kind == "monster"
        and {"summon", "special-summon"} & set(scopes)
        and not asked.has(*_EFFECT_WORDS)
    ):
        return None  # "can Solemn Judgment negate Cyber Dragon?": its Summon, the summon reasoner's
    activation = f"{_KIND[kind]}-activation"
    effects = [s for s in ("effects", f"{kind}-effects") if s in scopes]
    asks_activation = asked.has("activate")
    if activation in scopes:
        allowed, scope, how_en, how_pt = (
            True,
            activation,
            "negates the activation of",
            "nega a ativação de",
        )
    elif effects and not asks_activation:
        # Effect negators work under conditions of their own text (a card sent from the Deck, a
        # target in the Graveyard) that the KB does not keep: the kinds alone do not decide.
        return None
    else:
        allowed, scope, how_en, how_pt = False, next(iter(scopes)), "does not negate", "não nega"
    what_en, what_pt = _NAMES[kind]
    a_en, a_pt = label(kg, negator.id, "en"), label(kg, negator.id, "pt")
    t_en, t_pt = label(kg, target.id, "en"), label(kg, target.id, "pt")
    said_en = ", ".join(SCOPE_NAMES.get(x, (x, x))[0] for x in sorted(scopes))
    said_pt = ", ".join(SCOPE_NAMES.get(x, (x, x))[1] for x in sorted(scopes))
    cap = scopes.get(scope)
    steps = [
        Step(
            f"{a_en} negates {said_en}.",
            f"{a_pt} nega {said_pt}.",
            cap.source if cap else None,
            provenance(cap)
            or {"subject": negator.id, "predicate": "negates", "authority": "curated"},
        ),
        Step(
            f"{t_en} is {what_en}.",
            f"{t_pt} é {what_pt}.",
            None,
            provenance(_kind_fact(kg, target.id, kind)),
        ),
    ]
    if allowed:
        en = f"Yes. {a_en} {how_en} {what_en} such as {t_en}."
        pt = f"Sim. {a_pt} {how_pt} {what_pt} como {t_pt}."
    else:
        en = f"No. {a_en} {how_en} {what_en} such as {t_en}: it negates {said_en}."
        pt = f"Não. {a_pt} {how_pt} {what_pt} como {t_pt}: ele nega {said_pt}."
    return Decision(
        "yes" if allowed else "no",
        steps,
        en,
        pt,
        0.8,
        [s.source for s in steps if s.source],
        "negation-scope",
    )
