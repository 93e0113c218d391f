"""Card mechanics inferred from card data: effect types, spell speeds, Special Summon kind,
what the card negates, ATK/DEF modification and Life Point costs.

Everything here is a pure function of a card's type, property, monster classes and texts (the
English text, the Portuguese one when there is no English text). The results are facts of
authority `inferred`; the curated table of the cards the documents name wins where they differ.

Rules of thumb the inference follows (each from the rule documents' vocabulary):

* spell speed: Normal/Continuous/Equip/Field/Ritual Spells 1, Quick-Play Spells 2, Normal and
  Continuous Traps 2, Counter Traps 3; a monster's Ignition, Trigger and Flip effects 1 and its
  Quick Effects 2; a monster with continuous effects only activates nothing (no speed);
* Special Summon kind: a summoning procedure that is not an effect (a clause with neither colon
  nor semicolon, "Must first be Special Summoned (from your hand) by …"), Synchro, Xyz, Link and
  Pendulum Summons and Contact Fusions are `inherent`; a Special Summon of the card by an
  activated effect ("…: You can Special Summon this card"), by a Ritual Spell (Ritual Monsters)
  or by a Fusion Spell (other Fusion Monsters) is `non-inherent`;
* negation: "negate the Summon" (summon / special-summon), "negate the activation" (of Spells,
  Traps or monster effects, read from the condition), "negate the effects" (of Spells, Traps,
  monsters), leaving out a card's own drawbacks ("Special Summon …, but its effects are negated").
"""

from __future__ import annotations

from dataclasses import dataclass

from ingest.carddata.draft import EXTRA_DECK
from ingest.carddata.effects import Clause, clauses, effect_types, strip_parens
from ingest.carddata.lexicon import ENGLISH, PORTUGUESE, Lexicon

SPELL_SPEEDS = {
    ("spell", "normal"): 1,
    ("spell", "continuous"): 1,
    ("spell", "equip"): 1,
    ("spell", "field"): 1,
    ("spell", "ritual"): 1,
    ("spell", "quick-play"): 2,
    ("trap", "normal"): 2,
    ("trap", "continuous"): 2,
    ("trap", "counter"): 3,
}
_EFFECT_SPEED = {"ignition": 1, "trigger": 1, "flip": 1, "quick": 2}
# Spell/Trap properties whose cards stay on the field and can have continuous effects.
_LINGERING = {"continuous", "field", "equip"}
_PROCEDURE_CLASSES = {"synchro", "xyz", "link", "pendulum"}


@dataclass(frozen=True)
class Mechanics:
    """What `infer` derives from one card (the CardRecord mechanics fields)."""

    effect_types: tuple[str, ...] = ()
    spell_speeds: tuple[int, ...] = ()
    special_summon: str | None = None
    negates: tuple[str, ...] = ()
    modifies_atk_def: bool = False
    lp_cost_amount: int | None = None
    lp_cost_kind: str | None = None
    trap_monster: bool = False
    language: str | None = None  # the language of the text read (None: no text)


@dataclass(frozen=True)
class CardFacts:
    """The card data the inference reads."""

    card_type: str
    property: str | None
    monster_classes: tuple[str, ...]
    texts: dict[str, str]
    own_names: tuple[str, ...] = ()


def infer(card: CardFacts) -> Mechanics:
    """The mechanics of one card (empty when it has no text in a language the lexicon reads)."""
    lang = "en" if card.texts.get("en") else ("pt" if card.texts.get("pt") else None)
    speeds_of_type = _card_speeds(card)
    if lang is None:
        return Mechanics(spell_speeds=speeds_of_type)
    lex = ENGLISH if lang == "en" else PORTUGUESE
    main = _monster_text(card.texts[lang], card.monster_classes)
    found = clauses(main, lex, card.own_names)
    extra = clauses(card.texts.get(f"pendulum_{lang}", ""), lex, card.own_names)
    every = found + extra
    kinds = _effect_types(card, found)
    if card.card_type == "monster":
        speeds = tuple(sorted({_EFFECT_SPEED[k] for k in kinds if k in _EFFECT_SPEED}))
    else:
        speeds = speeds_of_type
    amount, cost_kind = lp_cost(every, card, lex)
    return Mechanics(
        effect_types=kinds,
        spell_speeds=speeds,
        special_summon=special_summon(card, found, lex),
        negates=negations(every, lex),
        modifies_atk_def=any(lex.stats.search(c.raw) for c in every),
        lp_cost_amount=amount,
        lp_cost_kind=cost_kind,
        trap_monster=card.card_type == "trap" and _summons_itself(found, lex),
        language=lang,
    )


def _card_speeds(card: CardFacts) -> tuple[int, ...]:
    speed = SPELL_SPEEDS.get((card.card_type, card.property or ""))
    return (speed,) if speed else ()


def _monster_text(text: str, classes: tuple[str, ...]) -> str:
    """The text without an Extra Deck monster's material line ('1 Tuner + 1+ non-Tuner …')."""
    if not EXTRA_DECK & set(classes):
        return text
    first, newline, rest = text.partition("\n")
    if not first.rstrip().endswith((".", ")")):
        return rest if newline else ""
    return text


def _effect_types(card: CardFacts, found: list[Clause]) -> tuple[str, ...]:
    if card.card_type == "monster":
        if "normal" in card.monster_classes and "effect" not in card.monster_classes:
            return ()
        return effect_types(found)
    if (card.property or "") in _LINGERING and any(c.kind == "continuous" for c in found):
        return ("continuous",)
    return ()


def special_summon(card: CardFacts, found: list[Clause], lex: Lexicon) -> str | None:
    """inherent / non-inherent / None (see the module docstring)."""
    if card.card_type != "monster":
        return None
    classes = set(card.monster_classes)
    procedures = [c for c in found if c.kind == "procedure"]
    if any(lex.no_special.search(c.bare) for c in procedures) and not classes & EXTRA_DECK:
        return None
    for c in procedures:
        if lex.by_other_card.search(c.bare):
            continue
        if lex.inherent.search(c.bare) or lex.must_special.search(c.bare):
            return "inherent"
    if classes & _PROCEDURE_CLASSES:
        return "inherent"
    if "fusion" in classes:
        contact = any(lex.contact.search(c.raw) or lex.contact.search(c.bare) for c in procedures)
        return "inherent" if contact else "non-inherent"
    if "ritual" in classes:
        return "non-inherent"
    if _summons_itself(found, lex):
        return "non-inherent"
    return None


def _summons_itself(found: list[Clause], lex: Lexicon) -> bool:
    """An activated effect (or a Trap Card's activation) that Special Summons this card."""
    return any(
        c.kind != "procedure" and lex.self_summon.search(strip_parens(strip_bullets(c.raw)))
        for c in found
    )


def negations(found: list[Clause], lex: Lexicon) -> tuple[str, ...]:
    """What the card's effects negate, in kb.cards.table.NEGATES vocabulary."""
    out: list[str] = []

    def add(*values: str) -> None:
        out.extend(v for v in values if v not in out)

    previous = ""
    for c in found:
        if c.kind == "procedure":
            continue
        text = strip_bullets(c.raw)
        body = text.split(":", 1)[1] if ":" in text and c.condition else text
        # "…; Special Summon them. Their effects are negated.": a drawback of the Summon.
        context, previous = f"{previous} {body}", body
        if lex.not_negating.search(body):
            continue
        if lex.negate_special.search(body):
            add("special-summon")
        elif lex.negate_summon.search(body):
            special = lex.special_only.search(c.condition) and not lex.any_summon.search(
                c.condition
            )
            add("special-summon" if special else "summon")
        if lex.negate_activation.search(body):
            add(*_activation_kinds(c.condition or text, body, lex))
        effects = lex.negate_effects.search(body)
        if effects and not lex.drawback.search(context if c.kind == "note" else body):
            add(*_effect_kinds(text, body, lex))
    return tuple(out)


def strip_bullets(text: str) -> str:
    return text.replace("●", " ")


def _kinds(text: str, lex: Lexicon) -> list[str]:
    """The card kinds a condition names: spell / trap / monster."""
    kinds: list[str] = []
    if lex.any_card.search(text):
        return ["spell", "trap", "monster"]
    if lex.spell_trap.search(text):
        kinds += ["spell", "trap"]
    else:
        if lex.spell.search(text):
            kinds.append("spell")
        if lex.trap.search(text):
            kinds.append("trap")
    if lex.monster.search(text):
        kinds.append("monster")
    return kinds


def _activation_kinds(condition: str, body: str, lex: Lexicon) -> list[str]:
    kinds = _kinds(body.split(";", 1)[-1], lex) or _kinds(condition, lex)
    kinds = kinds or ["spell", "trap", "monster"]
    names = {"spell": "spell-activation", "trap": "trap-activation"}
    return [names.get(k, "monster-effect-activation") for k in kinds]


def _effect_kinds(text: str, body: str, lex: Lexicon) -> list[str]:
    phrase = lex.negate_effects.search(body)
    near = body[phrase.start() : phrase.end() + 60] if phrase else body
    kinds = _kinds(near, lex)
    if not kinds and lex.any_card.search(text):
        kinds = ["spell", "trap", "monster"]
    if not kinds:
        lowered = near.lower()
        if any(
            w in lowered
            for w in ("monster", "its effect", "their effect", "monstro", "seus efeitos")
        ):
            kinds = ["monster"]
        else:
            kinds = _kinds(text.split(":", 1)[0], lex) or []
    if not kinds:
        return ["effects"]
    return [f"{k}-effects" for k in kinds]


def lp_cost(found: list[Clause], card: CardFacts, lex: Lexicon) -> tuple[int | None, str | None]:
    """The card's LP cost: (amount, maintenance | activation | effect), or (None, None).

    A maintenance cost is paid each Standby Phase ("pay 100 LP or destroy this card"); an
    activation cost is paid to activate a Spell/Trap Card ("Activate this card by paying 800 LP",
    "Pay 1000 LP;" in the card's activation); any other "pay N LP" is the cost of an effect.
    """
    costs: list[tuple[int, int, str]] = []  # (priority, amount, kind)
    effects = [c for c in found if c.kind not in ("note", "procedure")]
    for index, c in enumerate(effects):
        text = strip_bullets(c.raw)
        # The first clause of a card that leaves the field after resolving is its activation.
        activation = (
            card.card_type != "monster" and index == 0 and (card.property or "") not in _LINGERING
        )
        for m in lex.pay.finditer(text):
            amount = int(m.group(1))
            if lex.maintenance.search(text):
                costs.append((0, amount, "maintenance"))
            elif lex.pay_activation.search(text) or (
                activation and (_is_cost(text, m.end()) or _opens_with(text, m.start()))
            ):
                costs.append((1, amount, "activation"))
            else:
                costs.append((2, amount, "effect"))
    if not costs:
        return None, None
    _, amount, kind = min(costs, key=lambda t: t[0])
    return amount, kind


def _opens_with(text: str, start: int) -> bool:
    """The payment opens the clause or its effect part ('Pay 2000 LP.', 'When …: Pay …')."""
    before = text[:start].rstrip()
    return not before or before.endswith(":")


def _is_cost(text: str, end: int) -> bool:
    """An amount paid before the effect: 'Pay 1000 LP; negate …' (a semicolon follows)."""
    return text[end : end + 3].lstrip().startswith(";")
