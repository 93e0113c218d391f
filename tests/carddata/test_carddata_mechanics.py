"""The mechanics inference on invented card texts: one test per wording pattern."""

from __future__ import annotations

import pytest

from ingest.carddata.effects import clauses, mask_names, sentences
from ingest.carddata.lexicon import ENGLISH
from ingest.carddata.mechanics import CardFacts, Mechanics, infer


def mech(
    text: str,
    card_type: str = "monster",
    prop: str | None = None,
    classes: tuple[str, ...] = ("effect",),
    name: str = "Test Card",
    pt: str | None = None,
    pendulum: str | None = None,
) -> Mechanics:
    texts = {"en": text} if text else {}
    if pt:
        texts["pt"] = pt
    if pendulum:
        texts["pendulum_en"] = pendulum
    return infer(CardFacts(card_type, prop, classes, texts, (name,)))


# ------------------------------------------------------------------ sentences and clauses


def test_sentences_keep_masked_names_parentheses_and_list_items_together():
    text = (
        'Once per turn: You can target 1 "Mr. Volt" you control (max. 1); it gains 300 ATK.\n'
        "You can activate 1 of these effects;\n● Draw 1 card.\n● Gain 500 LP."
    )
    got = sentences(mask_names(text, ()))
    assert len(got) == 2
    assert got[0].startswith("Once per turn") and "(max. 1)" in got[0]
    assert got[1].count("●") == 2


def test_quoted_names_are_masked_so_their_punctuation_does_not_count():
    (c,) = clauses('Add 1 "Dr. Gearbolt: Prototype" from your Deck to your hand.', ENGLISH)
    assert ":" not in c.bare and "NAMEDCARD" in c.bare


# ------------------------------------------------------------------ effect types and speeds


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("You can discard 1 card; destroy 1 Spell/Trap on the field.", ("ignition",)),
        ("Once per turn: You can target 1 face-up monster; return it to the hand.", ("ignition",)),
        (
            "If this card is in your GY: You can banish 2 cards from your GY; draw 1 card.",
            ("ignition",),
        ),
        ("During your Main Phase: You can send this card to the GY; draw 1 card.", ("ignition",)),
        (
            "If this card is Normal Summoned: You can add 1 Pyro monster from your Deck to your hand.",
            ("trigger",),
        ),
        (
            "When this card is destroyed by battle: Inflict 500 damage to your opponent.",
            ("trigger",),
        ),
        (
            "Once per turn, during the End Phase: Send the top card of your Deck to the GY.",
            ("trigger",),
        ),
        (
            "When this card destroys a monster by battle, inflict 400 damage to your opponent.",
            ("trigger",),
        ),
        (
            "(Quick Effect): You can Tribute this card; the targeted monster cannot attack.",
            ("quick",),
        ),
        ("During either player's turn: You can banish this card; draw 1 card.", ("quick",)),
        ("FLIP: You can destroy 1 monster your opponent controls.", ("flip",)),
        ("Your opponent cannot activate Trap Cards during the Battle Phase.", ("continuous",)),
        ("All Pyro monsters you control gain 300 ATK.", ("continuous",)),
        (
            "If a monster you control would be destroyed by battle, you can banish this card instead.",
            ("continuous",),
        ),
    ],
)
def test_effect_types(text, expected):
    assert mech(text).effect_types == expected


def test_spell_speeds_of_monster_effects():
    assert mech("You can discard 1 card; draw 1 card.").spell_speeds == (1,)
    quick_and_trigger = mech(
        "(Quick Effect): You can banish this card; draw 1 card. "
        "If this card is sent to the GY: You can gain 500 LP."
    )
    assert quick_and_trigger.effect_types == ("quick", "trigger")
    assert quick_and_trigger.spell_speeds == (1, 2)


def test_a_monster_with_continuous_effects_only_has_no_spell_speed():
    m = mech("Your opponent cannot Set Spell Cards.")
    assert m.effect_types == ("continuous",)
    assert m.spell_speeds == ()


@pytest.mark.parametrize(
    ("card_type", "prop", "speed"),
    [
        ("spell", "normal", 1),
        ("spell", "continuous", 1),
        ("spell", "equip", 1),
        ("spell", "field", 1),
        ("spell", "ritual", 1),
        ("spell", "quick-play", 2),
        ("trap", "normal", 2),
        ("trap", "continuous", 2),
        ("trap", "counter", 3),
    ],
)
def test_spell_speeds_of_spells_and_traps(card_type, prop, speed):
    assert mech("Draw 1 card.", card_type, prop, ()).spell_speeds == (speed,)


def test_normal_monsters_have_no_effects():
    m = mech("A quiet knight who guards the gate at dawn.", classes=("normal",))
    assert m.effect_types == () and m.spell_speeds == () and m.special_summon is None


def test_continuous_spells_and_traps_may_have_continuous_effects():
    lasting = mech("All monsters your opponent controls lose 200 ATK.", "trap", "continuous", ())
    assert lasting.effect_types == ("continuous",)
    assert (
        mech("Destroy all monsters your opponent controls.", "spell", "normal", ()).effect_types
        == ()
    )


def test_notes_and_qualifiers_are_not_effects():
    m = mech(
        "If this card is sent to the GY: You can draw 1 card. You must control no Spells to "
        'activate and to resolve this effect. You can only use this effect of "Test Card" once '
        'per turn. (This card is always treated as a "Wisp" card.)'
    )
    assert m.effect_types == ("trigger",)


def test_items_after_a_note_are_effects_of_their_own():
    m = mech(
        'You can only use each of the following effects of "Test Card" once per turn.\n'
        "● You can discard this card; draw 1 card.\n"
        "● If this card is banished: You can gain 800 LP."
    )
    assert m.effect_types == ("ignition", "trigger")


# ------------------------------------------------------------------ Special Summon kind


@pytest.mark.parametrize(
    "text",
    [
        "If you control no monsters, you can Special Summon this card (from your hand).",
        "Cannot be Normal Summoned/Set. Must first be Special Summoned (from your hand) by "
        "banishing 2 Pyro monsters from your GY.",
        "Must be Special Summoned (from your GY) by having 5 or more Pyro monsters in your GY.",
        "You can banish 3 cards from your GY, then Special Summon this card (from your hand).",
    ],
)
def test_inherent_summoning_procedures(text):
    m = mech(text)
    assert m.special_summon == "inherent"
    assert m.effect_types == ()  # a procedure is not an effect


@pytest.mark.parametrize(
    "text",
    [
        "If a monster you control is destroyed by battle: You can Special Summon this card from your hand.",
        "If this card is in your GY: You can discard 1 card; Special Summon this card.",
        "(Quick Effect): You can reveal this card in your hand; Special Summon this card.",
        "Once per turn, you can either: Target 1 Machine monster you control; equip this card to "
        "that target, OR: Unequip this card and Special Summon it.",
        'You can banish this card from your GY; Special Summon 1 "Test Card" from your Deck.',
        "When you take battle damage, you can Special Summon this card from your hand.",
    ],
)
def test_non_inherent_self_summons(text):
    assert mech(text).special_summon == "non-inherent"


@pytest.mark.parametrize(
    ("classes", "text", "expected"),
    [
        (
            ("synchro", "effect"),
            "1 Tuner + 1+ non-Tuner monsters\nYou can draw 1 card.",
            "inherent",
        ),
        (
            ("xyz", "effect"),
            "2 Level 4 monsters\nYou can detach 1 material; draw 1 card.",
            "inherent",
        ),
        (("link", "effect"), "2 monsters\nMonsters this card points to gain 300 ATK.", "inherent"),
        (("pendulum", "normal"), "A wandering bard of the eastern hills.", "inherent"),
        (
            ("fusion", "effect"),
            '"Moss Golem" + 1 Rock monster\nMust be Fusion Summoned.',
            "non-inherent",
        ),
        (
            ("fusion", "effect"),
            '"Moss Golem" + 1 Rock monster\nMust first be Special Summoned (from your Extra Deck) '
            'by banishing the above cards you control. (You do not use "Polymerization".)',
            "inherent",
        ),
        (
            ("ritual", "effect"),
            'You can Ritual Summon this card with "Rite of Moss".',
            "non-inherent",
        ),
    ],
)
def test_summon_kind_of_extra_deck_ritual_and_pendulum_monsters(classes, text, expected):
    assert mech(text, classes=classes).special_summon == expected


def test_no_summon_kind_for_plain_or_unsummonable_monsters():
    assert mech("If this card is Normal Summoned: You can draw 1 card.").special_summon is None
    assert mech("Cannot be Special Summoned. All monsters gain 100 ATK.").special_summon is None
    # summoned only by another card's effect: not a procedure of this card
    assert (
        mech('This card cannot be Special Summoned except by "Rite of Moss".').special_summon
        is None
    )


def test_a_trap_that_summons_itself_is_a_trap_monster():
    m = mech(
        "Special Summon this card as an Effect Monster (Rock/EARTH/Level 4/ATK 1000/DEF 2000) "
        "(this card is also still a Trap).",
        "trap",
        "continuous",
        (),
    )
    assert m.trap_monster
    assert m.special_summon is None  # the Trap's summon kind is not a monster's


# ------------------------------------------------------------------ negation


@pytest.mark.parametrize(
    ("text", "card_type", "prop", "expected"),
    [
        (
            "When a monster(s) would be Summoned, OR a Spell/Trap Card is activated: Pay 1000 LP; "
            "negate the Summon or activation, and if you do, banish that card.",
            "trap",
            "counter",
            ("summon", "spell-activation", "trap-activation"),
        ),
        (
            "When your opponent would Special Summon a monster (Quick Effect): You can Tribute "
            "this card; negate the Summon, and if you do, destroy it.",
            "monster",
            None,
            ("special-summon",),
        ),
        (
            "When a Spell Card is activated: Discard 2 cards; negate the activation.",
            "trap",
            "counter",
            ("spell-activation",),
        ),
        (
            "When a monster effect is activated: Banish 1 card from your GY; negate the activation.",
            "trap",
            "counter",
            ("monster-effect-activation",),
        ),
        (
            "When a card or effect is activated (Quick Effect): You can discard this card; negate that effect.",
            "monster",
            None,
            ("spell-effects", "trap-effects", "monster-effects"),
        ),
        ("Negate all Trap effects on the field.", "monster", None, ("trap-effects",)),
        (
            "Negate the effects of all Spell Cards on the field.",
            "trap",
            "continuous",
            ("spell-effects",),
        ),
        (
            "Target 1 face-up monster your opponent controls; negate its effects until the end of this turn.",
            "spell",
            "quick-play",
            ("monster-effects",),
        ),
    ],
)
def test_negations(text, card_type, prop, expected):
    classes = ("effect",) if card_type == "monster" else ()
    assert mech(text, card_type, prop, classes).negates == expected


@pytest.mark.parametrize(
    "text",
    [
        "You can Tribute this card; Special Summon 1 Pyro monster from your Deck, but its effects are negated.",
        "Special Summon 2 Tokens. Their effects are negated.",
        "When an opponent's monster declares an attack: Target it; negate the attack.",
        "The activation of this card cannot be negated.",
        "If you negate the activation of a card, you can draw 1 card.",
    ],
)
def test_drawbacks_attacks_and_conditions_are_not_negations(text):
    assert mech(text, "spell", "normal", ()).negates == ()


# ------------------------------------------------------------------ LP costs and ATK/DEF


@pytest.mark.parametrize(
    ("text", "card_type", "prop", "amount", "kind"),
    [
        (
            "Activate this card by paying 600 LP. Monsters cannot attack.",
            "trap",
            "continuous",
            600,
            "activation",
        ),
        (
            "Pay 1200 LP; destroy all monsters your opponent controls.",
            "spell",
            "normal",
            1200,
            "activation",
        ),
        (
            "Monsters cannot attack. Once per turn, during your Standby Phase, pay 300 LP or destroy this card.",
            "spell",
            "continuous",
            300,
            "maintenance",
        ),
        (
            "During each of your Standby Phases, pay 400 LP (this is not optional), or this card is destroyed.",
            "trap",
            "continuous",
            400,
            "maintenance",
        ),
        ("Each player must pay 700 LP to declare an attack.", "spell", "continuous", 700, "effect"),
        ("You can pay 900 LP; destroy 1 card on the field.", "monster", None, 900, "effect"),
    ],
)
def test_lp_costs(text, card_type, prop, amount, kind):
    classes = ("effect",) if card_type == "monster" else ()
    m = mech(text, card_type, prop, classes)
    assert (m.lp_cost_amount, m.lp_cost_kind) == (amount, kind)


def test_losing_lp_or_paying_half_is_no_numbered_cost():
    assert mech("Both players lose 1000 LP.", "spell", "normal", ()).lp_cost_amount is None
    assert mech("Pay half your LP; draw 2 cards.", "spell", "normal", ()).lp_cost_amount is None


@pytest.mark.parametrize(
    ("text", "modifies"),
    [
        ("The equipped monster gains 700 ATK.", True),
        ("Target 1 face-up monster; it loses 500 ATK/DEF.", True),
        ("Gains 100 ATK for each card in your hand.", True),
        ("Target 1 monster; its ATK becomes 0 until the end of this turn.", True),
        ("Halve the ATK of all monsters your opponent controls.", True),
        ("Increase the DEF of all Rock monsters by 300 points.", True),
        ("Add 1 monster with 1500 or less ATK from your Deck to your hand.", False),
        ("Gain LP equal to the ATK of 1 monster in your GY.", False),
    ],
)
def test_atk_def_modification(text, modifies):
    assert mech(text, "spell", "normal", ()).modifies_atk_def is modifies


# ------------------------------------------------------------------ languages


def test_the_portuguese_text_is_the_fallback():
    m = mech(
        "",
        pt="Se seu oponente controlar um monstro, você pode Invocar este card por "
        "Invocação-Especial (da sua mão). (Efeito Rápido): você pode descartar 1 card; negue a "
        "ativação e, se isso acontecer, destrua-o.",
    )
    assert m.language == "pt"
    assert m.special_summon == "inherent"
    assert m.effect_types == ("quick",)
    assert m.negates  # an activation negation


def test_portuguese_costs_and_flip():
    assert mech("", pt="VIRE: Você pode destruir 1 monstro.").effect_types == ("flip",)
    m = mech(
        "",
        "trap",
        "continuous",
        (),
        pt="Ative este card ao pagar 800 PV. Monstros não podem atacar.",
    )
    assert (m.lp_cost_amount, m.lp_cost_kind) == (800, "activation")


def test_no_text_means_no_inferred_effects():
    m = mech("", "spell", "quick-play", ())
    assert m.language is None
    assert m.spell_speeds == (2,)  # the property alone gives the speed
    assert m.effect_types == () and m.negates == ()


def test_pendulum_effects_count_for_negation_but_not_for_monster_effect_types():
    m = mech(
        "A wandering bard of the eastern hills.",
        classes=("pendulum", "normal"),
        pendulum="Once per turn: You can target 1 face-up monster on the field; negate its effects.",
    )
    assert m.effect_types == ()
    assert m.negates == ("monster-effects",)
