"""Damage Step legality: may card X be activated in the Damage Step, or in its sub-step N?

The rule is found through the graph: a Rule `about` concept/damage-step, in the question's format
(any format when none is given), whose bullets state `rules_activation` facts (class → allowed in
the whole step, or per sub-step Step). The card's class comes from its facts (a Counter Trap, a
monster whose effect negates activations, a Spell/Trap that modifies ATK/DEF …). Each step cites
the bullet that decides it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from kb.formats import Formats
from kb.graph import KnowledgeGraph
from kb.ids import concept_id
from kb.model import Fact, Node
from kb.reading.question import Question
from kb.reason import Decision, Knowledge, Step
from kb.reason.facts import best, label, provenance, steps_of

# Words of the Damage Step; words of activating (or using, chaining, responding).
DAMAGE_WORDS = ("damage_step", "damage_calc", "substep")
_ACTIVATE = ("activate", "use", "chain_to", "respond")
# A sub-step said by its time: a word of time a few characters before the Damage Step or damage
# calculation ("no começo da Etapa de Dano", "before damage calculation"), first that matches.
_SUBSTEP: tuple[tuple[str, str | None, int, int], ...] = (
    ("step_start", "damage_step", 25, 1),
    ("flipped", None, 0, 2),  # the attack target flipped face-up, wherever it is said
    ("prior", "damage_calc", 6, 3),
    ("during", "damage_calc", 6, 4),
    ("later", "damage_calc", 6, 5),
    ("step_end", "damage_step", 25, 7),
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
    """A class of card/effect a Damage Step rule speaks about: its key (the `class` of the rule's
    `rules_activation` facts), its names, and the fact that makes a card a member (None: not one)."""

    key: str
    en: str
    pt: str
    member: Callable[[KnowledgeGraph, str], Fact | None]


def _is(kg: KnowledgeGraph, card: str, concept: str) -> Fact | None:
    return best([f for f in kg.out(card, "instance_of") if f.object == concept_id(concept)])


def _can(kg: KnowledgeGraph, card: str, capability: str) -> Fact | None:
    return best([f for f in kg.out(card, "has_capability") if f.object == concept_id(capability)])


def _spell_trap(kg: KnowledgeGraph, card: str) -> Fact | None:
    return _is(kg, card, "spell-card") or _is(kg, card, "trap-card")


def _monster(kg: KnowledgeGraph, card: str) -> Fact | None:
    return _is(kg, card, "monster-card")


def _both(
    kind: Callable[[KnowledgeGraph, str], Fact | None],
    deciding: Callable[[KnowledgeGraph, str], Fact | None],
) -> Callable[[KnowledgeGraph, str], Fact | None]:
    """Member of a kind (monster, Spell/Trap) with a deciding fact: that fact, which is cited."""
    return lambda kg, c: deciding(kg, c) if kind(kg, c) is not None else None


# In the order the classes are tried: the first class a card belongs to, and that the rule
# speaks about, decides.
CLASSES: tuple[DamageClass, ...] = (
    DamageClass(
        "counter-trap",
        "a Counter Trap",
        "uma Armadilha de Resposta",
        lambda kg, c: _is(kg, c, "counter-trap"),
    ),
    DamageClass(
        "spell-trap-atk-def",
        "a Spell/Trap that modifies ATK/DEF",
        "uma Magia/Armadilha que modifica ATK/DEF",
        _both(_spell_trap, lambda kg, c: _is(kg, c, "atk-def-modifier")),
    ),
    DamageClass(
        "monster-activation-negation",
        "a monster effect that negates activations",
        "um efeito de monstro que nega ativações",
        _both(_monster, lambda kg, c: _can(kg, c, "activation-negation")),
    ),
    DamageClass(
        "monster-atk-def",
        "a monster effect that modifies ATK/DEF",
        "um efeito de monstro que modifica ATK/DEF",
        _both(_monster, lambda kg, c: _is(kg, c, "atk-def-modifier")),
    ),
    DamageClass(
        "monster-effect-negation",
        "a monster effect that only negates effects",
        "um efeito de monstro que só nega efeitos",
        _both(_monster, lambda kg, c: _can(kg, c, "effect-negation")),
    ),
    DamageClass(
        "spell-trap-activation-negation",
        "a Spell Speed 2 Spell/Trap that negates activations",
        "uma Magia/Armadilha de Velocidade 2 que nega ativações",
        _both(_spell_trap, lambda kg, c: _can(kg, c, "activation-negation")),
    ),
    DamageClass(
        "spell-trap-effect-negation",
        "a Spell Speed 2 Spell/Trap that negates effects",
        "uma Magia/Armadilha de Velocidade 2 que nega efeitos",
        _both(_spell_trap, lambda kg, c: _can(kg, c, "effect-negation")),
    ),
    DamageClass(
        "spell-trap-unlisted",
        "a Spell/Trap the rule does not list",
        "uma Magia/Armadilha que a regra não lista",
        _spell_trap,
    ),
)
DAMAGE_STEP = concept_id("damage-step")


def damage_rules(kg: KnowledgeGraph, fmt: str | None) -> list[Node]:
    """Rules about the Damage Step (in `fmt`, or any) that say which classes may be activated."""
    return [n for n in kg.rules_about(DAMAGE_STEP, fmt) if kg.into(n.id, "rules_activation")]


def substep_of(q: Question) -> int | None:
    """The sub-step of the Damage Step the question asks about (1-7), if it names one: by its
    number ("sub-step 3"), by its time, or by the flip of the attack target (2)."""
    numbered = next(
        (a for a in q.amounts if a.digits and q.senses.before(a.start, "substep")), None
    )
    if numbered is not None:
        return numbered.value if 1 <= numbered.value <= 7 else None
    for when, what, gap, n in _SUBSTEP:
        if what is None and q.senses.has(when):
            return n
        if what is not None and any(
            q.senses.before(start, when, gap=gap) for start, _ in q.senses.where(what)
        ):
            return n
    return None


def decide_damage_step(kb: Knowledge, q: Question) -> Decision | None:
    """May the card the question names be activated in the Damage Step (or a sub-step)?"""
    named = asked_class(q)
    if named is not None:  # "can I chain a Counter Trap …?": the class itself, whatever card
        return damage_decision(kb.kg, kb.formats, q, [], named)
    card = asked_card(q)
    return damage_decision(kb.kg, kb.formats, q, [card] if card else q.cards)


def asked_class(q: Question) -> DamageClass | None:
    """The class of card asked about by its name in the asking clause, no card named there
    ("If my opponent activates Forbidden Chalice …, can I chain a Counter Trap?")."""
    inside = q.asked_mentions
    if any(m.entity.startswith("card/") for m in inside):
        return None
    keys = {m.entity for m in inside}
    return next((c for c in CLASSES if concept_id(c.key) in keys), None)


def asked_card(q: Question) -> str | None:
    """Of several cards, the one whose activation is asked: the last named before the verb
    ("Can Herald of Perfection's effect be used … to negate Ryko?"), else the first after it
    ("Posso ativar Berserker Crush …?"). None when the question names no card or one."""
    cards = [m for m in q.mentions if m.entity.startswith("card/")]
    verb = q.senses.first(*_ACTIVATE)
    if len({m.entity for m in cards}) < 2 or verb is None:
        return None
    before = [m for m in cards if m.end <= verb[0]]
    if before:
        return before[-1].entity
    return cards[0].entity


def damage_decision(
    kg: KnowledgeGraph,
    formats: Formats,
    q: Question,
    cards: list[str],
    named: DamageClass | None = None,
) -> Decision | None:
    """May the one card in `cards` (or any card of the class `named`) be activated in the Damage
    Step, or in the sub-step asked?"""
    if not (q.senses.has(*DAMAGE_WORDS) and q.senses.has(*_ACTIVATE)):
        return None
    if len(cards) != 1 and named is None:
        return None
    rules = damage_rules(kg, q.format)
    if not rules:
        return None
    rule = rules[0]
    whole = {f.props.get("class"): f for f in kg.into(rule.id, "rules_activation")}
    member_fact: Fact | None = None
    if named is not None:
        if named.key not in whole:
            return None
        cls = named
    else:
        member = next(
            (
                (c, f)
                for c in CLASSES
                if c.key in whole
                for f in [c.member(kg, cards[0])]
                if f is not None
            ),
            None,
        )
        if member is None:
            return None
        cls, member_fact = member
    rule_fact = whole[cls.key]
    bullet = kg.node(rule_fact.subject)
    per_step = rule_fact.props.get("allowed") is None
    substeps = steps_of(kg, rule.id)
    allowed: dict[int, Node] = {}  # sub-step → the bullet allowing it there
    forbidding: dict[int, Node] = {}
    if not per_step:
        if rule_fact.props.get("allowed"):
            allowed = dict.fromkeys(SUBSTEP_NAMES, bullet)
    else:
        for step in substeps:
            for f in kg.into(step.id, "rules_activation"):
                if f.props.get("class") != cls.key or step.order is None:
                    continue
                target = allowed if f.props.get("allowed") else forbidding
                target.setdefault(step.order, kg.node(f.subject))
    rule_fmt = kg.format_of(rule.id)
    fmt_en, fmt_pt = formats.label(rule_fmt, "en"), formats.label(rule_fmt, "pt")
    number = rule.props.get("number")
    rule_en = f"{fmt_en} rule {number}" if number else f"{fmt_en}: {rule.label_en or rule.label_pt}"
    rule_pt = f"Regra {number} ({fmt_pt})" if number else f"{fmt_pt}: {rule.label_pt}"
    wanted = substep_of(q)
    yes = (wanted in allowed) if wanted is not None else bool(allowed)
    if q.negated:
        yes = not yes
    if member_fact is not None:
        name_en, name_pt = label(kg, cards[0], "en"), label(kg, cards[0], "pt")
        is_en, is_pt = f"{name_en} is {cls.en}", f"{name_pt} é {cls.pt}"
        steps = [
            Step(
                f"{is_en}.",
                f"{is_pt}.",
                member_fact.source if member_fact.source in kg else None,
                provenance(member_fact),
            )
        ]
    else:
        is_en, is_pt = cls.en[0].upper() + cls.en[1:], cls.pt[0].upper() + cls.pt[1:]
        steps = []
    steps += [
        Step(
            f"{rule_en} on {cls.en}: {bullet.text}",
            f"{rule_pt} sobre {cls.pt}: {bullet.text}",
            bullet.id,
        ),
    ]
    sources = [bullet.id]
    where_en = ", ".join(str(n) for n in sorted(allowed)) or "none"
    if per_step:
        # Allowed in some sub-step: the bullets allowing it decide "may it be activated in the
        # Damage Step?"; the general bullet (where it is not) follows.
        first = allowed[min(allowed)] if allowed else None
        steps.append(
            Step(
                f"Sub-steps whose rules allow it: {where_en}.",
                f"Sub-etapas cujas regras permitem: {where_en}.",
                first.id if first is not None else None,
            )
        )
        if wanted is None:  # each sub-step named in the answer is cited, in order
            sources[:0] = list(dict.fromkeys(allowed[n].id for n in sorted(allowed)))
        if wanted is not None:
            cited = allowed.get(wanted) or forbidding.get(wanted)
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
    tail_en = f" (allowed in sub-steps: {where_en})." if per_step else "."
    tail_pt = f" (permitido nas sub-etapas: {where_en})." if per_step else "."
    allowed_pt = "sua ativação é permitida" if may else "sua ativação não é permitida"
    if member_fact is not None:
        en = (
            f"{'Yes' if yes else 'No'} ({fmt_en}). {is_en}: "
            f"it {'may' if may else 'may not'} be activated {when_en}" + tail_en
        )
        pt = f"{'Sim' if yes else 'Não'} ({fmt_pt}). {is_pt}: {allowed_pt} {when_pt}" + tail_pt
    else:
        en = (
            f"{'Yes' if yes else 'No'} ({fmt_en}). {is_en} "
            f"{'may' if may else 'may not'} be activated {when_en}" + tail_en
        )
        pt = (
            f"{'Sim' if yes else 'Não'} ({fmt_pt}). {is_pt}: a ativação "
            f"{'é permitida' if may else 'não é permitida'} {when_pt}" + tail_pt
        )
    return Decision(
        verdict=verdict,
        steps=steps,
        summary_en=en,
        summary_pt=pt,
        confidence=0.85,
        sources=sources,
        reasoner="damage-step",
    )
