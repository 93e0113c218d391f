"""Chain legality by spell speed: can B be chained to A?

B may respond to A when B's spell speed is at least A's and B is not Spell Speed 1 (Spell Speed 1
effects only share a chain when they trigger simultaneously). The spell-speed sections state which
speeds respond to which (`can_respond_to` / `cannot_respond_to`); a card's speed comes from its
class (Counter Trap 3; Quick-Play Spell, Trap, Quick Effect 2; others 1).
"""

from __future__ import annotations

import re

from kb.graph import KnowledgeGraph
from kb.ids import concept_id, fold
from kb.link import Mention
from kb.reason import Decision, Step
from kb.reason.facts import best, label, spell_speed

_CHAIN = re.compile(r"\b(chain\w*|corrente|encadea\w*|acorrent\w*|respond\w*|resposta|response)\b")
# The entity right after one of these is the one being responded to.
_TARGET_MARK = re.compile(
    r"(?:\bto|\ba|\bao|\ba|\bà|\bcontra|\bagainst|\bon|\bem resposta a[o]?|\bem corrente (?:a|com)[o]?)\s*$"
)


def decide_chain(
    kg: KnowledgeGraph, question: str, mentions: list[Mention], lang: str
) -> Decision | None:
    """Decide 'can B be chained to A' for two entities with known spell speeds."""
    if not _CHAIN.search(fold(question)):
        return None
    typed = [
        m
        for m in mentions
        if spell_speed(kg, m.entity) is not None and not m.entity.endswith("/chain")
    ]
    seen: set[str] = set()
    unique = [m for m in typed if not (m.entity in seen or seen.add(m.entity))]  # type: ignore[func-returns-value]
    if len(unique) < 2:
        return None
    target_i = next(
        (
            i
            for i, m in enumerate(unique)
            if _TARGET_MARK.search(fold(question[: m.start]).rstrip(' "“'))
        ),
        1,
    )
    target = unique[target_i]
    responder = next(m for i, m in enumerate(unique) if i != target_i)
    r_speed, r_fact = spell_speed(kg, responder.entity)  # type: ignore[misc]
    t_speed, t_fact = spell_speed(kg, target.entity)  # type: ignore[misc]
    r_cls, t_cls = concept_id(f"spell-speed-{r_speed}"), concept_id(f"spell-speed-{t_speed}")
    allowed = r_speed >= 2 and r_speed >= t_speed
    pred = "can_respond_to" if allowed else "cannot_respond_to"
    rule = best([f for f in kg.out(r_cls, pred) if f.object == t_cls]) or best(kg.out(r_cls, pred))
    steps = [
        Step(
            f"{label(kg, responder.entity, 'en')} is Spell Speed {r_speed}.",
            f"{label(kg, responder.entity, 'pt')} tem Velocidade de Magia {r_speed}.",
            r_fact.source if r_fact else None,
        ),
        Step(
            f"{label(kg, target.entity, 'en')} is Spell Speed {t_speed}.",
            f"{label(kg, target.entity, 'pt')} tem Velocidade de Magia {t_speed}.",
            t_fact.source if t_fact else None,
        ),
        Step(
            f"Spell Speed {r_speed} {'can' if allowed else 'cannot'} respond to Spell Speed {t_speed}.",
            f"Velocidade de Magia {r_speed} {'pode' if allowed else 'não pode'} responder a Velocidade de Magia {t_speed}.",
            rule.source if rule else None,
        ),
    ]
    r_l, t_l = label(kg, responder.entity, lang), label(kg, target.entity, lang)
    if allowed:
        en = f"Yes. {r_l} (Spell Speed {r_speed}) can be chained to {t_l} (Spell Speed {t_speed})."
        pt = f"Sim. {r_l} (Velocidade de Magia {r_speed}) pode ser ativado em corrente a {t_l} (Velocidade de Magia {t_speed})."
    else:
        en = f"No. {r_l} is Spell Speed {r_speed} and cannot be chained to {t_l} (Spell Speed {t_speed})."
        pt = f"Não. {r_l} tem Velocidade de Magia {r_speed} e não pode ser ativado em corrente a {t_l} (Velocidade de Magia {t_speed})."
    return Decision(
        "yes" if allowed else "no",
        steps,
        en,
        pt,
        0.85,
        [s.source for s in steps if s.source],
        "chain-spell-speed",
    )
