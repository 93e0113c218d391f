"""Damage Step legality (Edison rule 8): may card X be activated in sub-step N?

The card's class comes from its facts (a Counter Trap, a monster whose effect negates activations,
a Spell/Trap that modifies ATK/DEF …). Rule 8's bullets say which classes may be activated in the
Damage Step at all; for the ATK/DEF classes, the bullets under each sub-step say in which of the
seven sub-steps they may. Both are read from the rule's passages in the graph, and cited.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from kb.graph import KnowledgeGraph
from kb.ids import concept_id, fold
from kb.link import Mention
from kb.model import Node
from kb.reason import Decision, Step
from kb.reason.facts import child_matching, label, steps_of
from kb.reason.statement import question_negated

RULE = "edison/rule-08"
_DAMAGE = re.compile(
    r"\b(etapa de dano|damage step|damage-step|calculo de dano|damage calculation|"
    r"damage calc|sub-?etapa|sub-?step)\b"
)
_ACTIVATE = re.compile(
    r"\b(ativ\w*|activat\w*|usa\w*|use|used|using|jog\w*|play\w*|chain\w*|encade\w*|"
    r"respond\w*|respond\w*|resposta)\b"
)
_SUBSTEP: tuple[tuple[re.Pattern[str], int], ...] = (
    (re.compile(r"\bsub-?(?:etapa|step)\s*(\d)\b"), 0),
    (re.compile(r"\b(comeco|inicio|start|beginning)\b[^?.]{0,25}\b(etapa de dano|damage step)"), 1),
    (re.compile(r"\b(antes d[oa]|before)\b[^?.]{0,6}\b(calculo de dano|damage calc\w*)"), 3),
    (
        re.compile(
            r"\b(durante o|during|no|na hora do|at|in)\b[^?.]{0,6}\b(calculo de dano|damage calc\w*)"
        ),
        4,
    ),
    (re.compile(r"\b(depois d[oa]|apos o|after)\b[^?.]{0,6}\b(calculo de dano|damage calc\w*)"), 5),
    (re.compile(r"\b(fim|final|end)\b[^?.]{0,25}\b(etapa de dano|damage step)"), 7),
)
SUBSTEP_NAMES = {
    1: ("at the start of the Damage Step", "no começo da Etapa de Dano"),
    2: ("when the attack target is flipped face-up", "quando o alvo do ataque é virado"),
    3: ("before damage calculation", "antes do cálculo de dano"),
    4: ("during damage calculation", "durante o cálculo de dano"),
    5: ("after damage calculation", "depois do cálculo de dano"),
    6: ("while effects resolve (sub-step 6)", "na resolução de efeitos (sub-etapa 6)"),
    7: ("at the end of the Damage Step", "no final da Etapa de Dano"),
}


@dataclass(frozen=True)
class DamageClass:
    """A class of card/effect rule 8 speaks about: who belongs, the bullet stating it, and (for the
    ATK/DEF classes) the sub-step bullet that allows it."""

    en: str
    pt: str
    member: Callable[[KnowledgeGraph, str], bool]
    bullet: re.Pattern[str]
    substep_allows: re.Pattern[str] | None = None  # None: the bullet decides every sub-step
    substep_forbids: re.Pattern[str] | None = None
    listed: bool = True  # False: the class rule 8 leaves out ("only the following …")


def _is(kg: KnowledgeGraph, card: str, concept: str) -> bool:
    return any(f.object == concept_id(concept) for f in kg.out(card, "instance_of"))


def _can(kg: KnowledgeGraph, card: str, capability: str) -> bool:
    return any(f.object == concept_id(capability) for f in kg.out(card, "has_capability"))


def _spell_trap(kg: KnowledgeGraph, card: str) -> bool:
    return _is(kg, card, "spell-card") or _is(kg, card, "trap-card")


def _monster(kg: KnowledgeGraph, card: str) -> bool:
    return _is(kg, card, "monster-card")


# In the order rule 8 is applied: the first class a card belongs to decides.
CLASSES: tuple[DamageClass, ...] = (
    DamageClass(
        "a Counter Trap",
        "uma Armadilha de Resposta",
        lambda kg, c: _is(kg, c, "counter-trap"),
        re.compile(r"armadilha de resposta\W+podem ser ativados em qualquer ponto"),
    ),
    DamageClass(
        "a Spell/Trap that modifies ATK/DEF",
        "uma Magia/Armadilha que modifica ATK/DEF",
        lambda kg, c: _spell_trap(kg, c) and _is(kg, c, "atk-def-modifier"),
        re.compile(r"magia/armadilha que mudam atk/def"),
        re.compile(r"magias/armadilhas que (modificam|afetam) atk/def (podem|pode)"),
        re.compile(r"magias/armadilhas que (modificam|afetam) atk/def nao (podem|pode)"),
    ),
    DamageClass(
        "a monster effect that negates activations",
        "um efeito de monstro que nega ativações",
        lambda kg, c: _monster(kg, c) and _can(kg, c, "activation-negation"),
        re.compile(r"efeitos de monstro que negam ativacoes"),
    ),
    DamageClass(
        "a monster effect that modifies ATK/DEF",
        "um efeito de monstro que modifica ATK/DEF",
        lambda kg, c: _monster(kg, c) and _is(kg, c, "atk-def-modifier"),
        re.compile(r"efeitos rapidos / efeitos continuos que modificam diretamente o atk/def"),
        re.compile(r"efeitos rapidos\b.*(modificam|afetam) atk/def (podem|pode)"),
    ),
    DamageClass(
        "a monster effect that only negates effects",
        "um efeito de monstro que só nega efeitos",
        lambda kg, c: _monster(kg, c) and _can(kg, c, "effect-negation"),
        re.compile(r"efeitos de monstro que somente negam os efeitos"),
    ),
    DamageClass(
        "a Spell Speed 2 Spell/Trap that negates activations",
        "uma Magia/Armadilha de Velocidade 2 que nega ativações",
        lambda kg, c: _spell_trap(kg, c) and _can(kg, c, "activation-negation"),
        re.compile(r"velocidade de magia 2\W+que negam ativacoes"),
    ),
    DamageClass(
        "a Spell Speed 2 Spell/Trap that negates effects",
        "uma Magia/Armadilha de Velocidade 2 que nega efeitos",
        lambda kg, c: _spell_trap(kg, c) and _can(kg, c, "effect-negation"),
        re.compile(r"velocidade de magia 2\W+que negam efeitos"),
    ),
    DamageClass(
        "a Spell/Trap the rule does not list",
        "uma Magia/Armadilha que a regra não lista",
        _spell_trap,
        re.compile(r"apenas os seguintes cards/efeitos podem ser ativados"),
        listed=False,
    ),
)


def substep_of(question: str) -> int | None:
    q = fold(question)
    for pattern, n in _SUBSTEP:
        m = pattern.search(q)
        if m:
            return int(m.group(1)) if n == 0 and 1 <= int(m.group(1)) <= 7 else (n or None)
    return None


def decide_damage_step(
    kg: KnowledgeGraph, question: str, mentions: list[Mention], fmt: str | None
) -> Decision | None:
    """May the one card the question names be activated in the Damage Step (or a sub-step)?"""
    q = fold(question)
    if fmt not in (None, "edison") or RULE not in kg:
        return None
    if not (_DAMAGE.search(q) and _ACTIVATE.search(q)):
        return None
    cards = list(dict.fromkeys(m.entity for m in mentions if m.entity.startswith("card/")))
    if len(cards) != 1:
        return None
    card = cards[0]
    cls = next((c for c in CLASSES if c.member(kg, card)), None)
    if cls is None:
        return None
    bullet = child_matching(kg, RULE, cls.bullet)
    if bullet is None:
        return None
    wanted = substep_of(question)
    allowed: dict[int, Node | None] = {}  # sub-step → the bullet allowing it there
    if cls.substep_allows is None:
        text = fold(bullet.text or "")
        legal = cls.listed and "qualquer ponto" in text and not re.search(r"\bnao pode", text)
        allowed = {n: bullet for n in SUBSTEP_NAMES} if legal else {}
    else:
        for step in steps_of(kg, RULE):
            found = child_matching(kg, step.id, cls.substep_allows)
            if found is not None and step.order is not None:
                allowed[step.order] = found
    yes = (wanted in allowed) if wanted is not None else bool(allowed)
    if question_negated(question):
        yes = not yes
    name_en, name_pt = label(kg, card, "en"), label(kg, card, "pt")
    steps = [
        Step(
            f"{name_en} is {cls.en}.",
            f"{name_pt} é {cls.pt}.",
            None,
        ),
        Step(
            f"Edison rule 8 on {cls.en}: {bullet.text}",
            f"Regra 8 do Edison sobre {cls.pt}: {bullet.text}",
            bullet.id,
        ),
    ]
    sources = [bullet.id]
    where_en = ", ".join(str(n) for n in sorted(allowed)) or "none"
    if cls.substep_allows is not None:
        steps.append(
            Step(
                f"Sub-steps whose rules allow it: {where_en}.",
                f"Sub-etapas cujas regras permitem: {where_en}.",
                None,
            )
        )
        if wanted is not None:
            step_node = next((s for s in steps_of(kg, RULE) if s.order == wanted), None)
            forbidding = (
                child_matching(kg, step_node.id, cls.substep_forbids)
                if step_node is not None and cls.substep_forbids is not None
                else None
            )
            cited = allowed.get(wanted) or forbidding
            if cited is not None:
                sources.insert(0, cited.id)
                steps.append(
                    Step(
                        f"Sub-step {wanted}: {cited.text}",
                        f"Sub-etapa {wanted}: {cited.text}",
                        cited.id,
                    )
                )
    when_en, when_pt = (
        SUBSTEP_NAMES[wanted] if wanted is not None else ("in the Damage Step", "na Etapa de Dano")
    )
    may = wanted in allowed if wanted is not None else bool(allowed)
    verdict = "yes" if yes else "no"
    en = (
        f"{'Yes' if yes else 'No'} (Edison Format). {name_en} is {cls.en}: "
        f"it {'may' if may else 'may not'} be activated {when_en}"
        + (f" (allowed in sub-steps: {where_en})." if cls.substep_allows is not None else ".")
    )
    pt = (
        f"{'Sim' if yes else 'Não'} (Formato Edison). {name_pt} é {cls.pt}: "
        f"{'pode' if may else 'não pode'} ser ativado(a) {when_pt}"
        + (f" (permitido nas sub-etapas: {where_en})." if cls.substep_allows is not None else ".")
    )
    return Decision(verdict, steps, en, pt, 0.85, sources, "damage-step")
