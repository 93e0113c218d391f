"""Matching questions to the documents' statements by role, on a small hand-made graph."""

from __future__ import annotations

from tests_support import hand_mentions  # type: ignore[import-not-found]

from kb.graph import KnowledgeGraph
from kb.model import Fact, Node, Span
from kb.reading import Span as Mention
from kb.reading import read_question, read_sentence
from kb.reason.statement_match import StatementMatcher, StatementSettings

NAMES = {
    "Pot of Greed": "card/pot-of-greed",
    "Ash Blossom": "card/ash-blossom",
    "Umi": "card/umi",
    "Magias Normais": "concept/normal-spell",
    "Damage Step": "concept/damage-step",
    "monstro Mago": "concept/spellcaster",
    "Spellcaster": "concept/spellcaster",
    "ativadas": "concept/activation",
    "ativar": "concept/activation",
    "activate": "concept/activation",
    "encadeado": "concept/chain",
    "chained": "concept/chain",
    "Zonas de Monstro Extra": "concept/extra-monster-zone",
    "Monstros Union": "concept/union-monster",
    "Monstro Union": "concept/union-monster",
    "Union monsters": "concept/union-monster",
    "Extra Monster Zones": "concept/extra-monster-zone",
    "Trap Jammer": "card/trap-jammer",
    "Mystical Space Typhoon": "card/mystical-space-typhoon",
    "Magias Rápidas": "concept/quick-play-spell",
    "Armadilhas de Resposta": "concept/counter-trap",
    "negam ativações": "concept/activation-negation",
    "negarem ativações": "concept/activation-negation",
    "nega ativações": "concept/activation-negation",
    "efeito": "concept/effect",
    "Efeitos": "concept/effect",
    "Cards de Magia": "concept/spell-card",
    "Quick Negator": "card/quick-negator",
    "Monstros de Ritual": "concept/ritual-monster",
    "Ritual monster": "concept/ritual-monster",
    "Spell Card": "concept/spell-card",
    "Invocados": "concept/summon",
    "Summon": "concept/summon",
    "Invocação-Normal": "concept/normal-summon",
    "Normal Summon": "concept/normal-summon",
}


def mentions(text: str) -> list[Mention]:
    return hand_mentions(text, NAMES)


def statement(
    sid: str, text: str, fmt: str = "general", names: dict[str, str] | None = None
) -> list[Node]:
    """A passage and the statements read from it, its mentions found by `names` (NAMES)."""
    doc = f"doc-{sid}"
    passage = Node(f"{doc}/p", "Passage", text=text, span=Span(doc, 0, len(text)))
    nodes = [passage]
    found = hand_mentions(text, names if names is not None else NAMES)
    for k, p in enumerate(read_sentence(text, found, "pt").propositions):
        props = {**p.to_props(), "format": fmt, "clause": [p.start, p.end]}
        nodes.append(
            Node(
                f"{doc}/p/st-{k}",
                "Statement",
                text=text,
                span=passage.span,
                parent=passage.id,
                props=props,
            )
        )
    return nodes


CARD_FACTS = [
    Fact("card/pot-of-greed", "instance_of", "concept/normal-spell", None, "curated"),
    Fact("card/pot-of-greed", "instance_of", "concept/spell-card", None, "curated"),
    Fact("card/umi", "instance_of", "concept/field-spell", None, "curated"),
    Fact("card/umi", "instance_of", "concept/spell-card", None, "curated"),
    Fact("card/trap-jammer", "instance_of", "concept/counter-trap", None, "curated"),
    Fact("card/trap-jammer", "has_capability", "concept/activation-negation", None, "curated"),
    Fact("card/mystical-space-typhoon", "instance_of", "concept/quick-play-spell", None, "curated"),
    Fact("card/mystical-space-typhoon", "instance_of", "concept/spell-card", None, "curated"),
    # a Quick-Play Spell that negates: negating and being a Quick-Play Spell go together
    Fact("card/quick-negator", "instance_of", "concept/quick-play-spell", None, "curated"),
    Fact("card/quick-negator", "has_capability", "concept/activation-negation", None, "curated"),
    Fact("card/quick-negator", "instance_of", "concept/spell-card", None, "curated"),
]
CARDS = ("card/pot-of-greed", "card/ash-blossom", "card/umi", "card/trap-jammer")


def matcher(
    *texts: str,
    names: dict[str, str] | None = None,
    facts: tuple[Fact, ...] = (),
    cards: tuple[str, ...] = (),
    **settings: float,
) -> StatementMatcher:
    """The statements of `texts` (mentions by `names`, NAMES by default) over the card facts,
    `facts` and `cards` added."""
    nodes = [n for i, t in enumerate(texts) for n in statement(str(i), t, names=names)]
    more = ("card/mystical-space-typhoon", "card/quick-negator", *cards)
    card_nodes = [Node(c, "Card") for c in (*CARDS, *more)]
    kg = KnowledgeGraph([*nodes, *card_nodes], [*CARD_FACTS, *facts])
    cfg = StatementSettings(min_score=0.05, exclusive_min=1, **settings)  # type: ignore[arg-type]
    return StatementMatcher(kg, None, "general", cfg)


def ask(m: StatementMatcher, question: str, names: dict[str, str] | None = None) -> str | None:
    found = mentions(question) if names is None else hand_mentions(question, names)
    d = m.decide(read_question(question, found), None, None)
    return None if d is None else (d.verdict or "null")


def test_a_rule_about_a_class_decides_for_a_card_of_it() -> None:
    m = matcher("Magias Normais não podem ser ativadas durante a Damage Step.")
    assert ask(m, "Can I activate Pot of Greed during the Damage Step?") == "no"
    assert ask(m, "Pot of Greed não pode ser ativado durante a Damage Step?") == "yes"


def test_swapped_roles_never_match() -> None:
    m = matcher("Ash Blossom pode ser encadeado a Pot of Greed.")
    assert ask(m, "Can Ash Blossom be chained to Pot of Greed?") == "yes"
    assert ask(m, "Can Pot of Greed be chained to Ash Blossom?") is None


def test_an_exception_the_question_falls_under_turns_the_verdict() -> None:
    m = matcher("O Jogador A não pode ativar o Umi a menos que controle um monstro Mago.")
    assert ask(m, "Can I activate Umi if I control a Spellcaster?") == "yes"
    assert ask(m, "Can I activate Umi without controlling a Spellcaster?") == "no"
    assert ask(m, "Can I activate Umi?") == "no"


def test_may_does_not_say_must() -> None:
    m = matcher("O Duelista pode ativar o Umi durante a Damage Step.")
    assert ask(m, "Posso ativar o Umi durante a Damage Step?") == "yes"
    assert ask(m, "Tenho que ativar o Umi durante a Damage Step?") is None


def test_another_amount_of_the_same_thing_is_another_case() -> None:
    m = matcher("As Zonas de Monstro Extra são 2 no campo.")
    assert ask(m, "Are there 2 Extra Monster Zones on the field?") == "yes"
    assert ask(m, "Are there 4 Extra Monster Zones on the field?") == "no"


def test_statements_that_disagree_decide_nothing() -> None:
    m = matcher(
        "Pot of Greed pode ser ativado durante a Damage Step.",
        "Pot of Greed não pode ser ativado durante a Damage Step.",
    )
    assert ask(m, "Can I activate Pot of Greed during the Damage Step?") == "null"


def test_a_question_naming_only_cards_asks_nothing() -> None:
    m = matcher("Pot of Greed pode ser ativado durante a Damage Step.")
    assert ask(m, "Pot of Greed Pot of Greed?") is None


def test_the_other_end_of_an_order_is_another_case() -> None:
    m = matcher("A corrente é resolvida a partir do card ativado por último.")
    assert ask(m, "O card ativado por último é resolvido primeiro na corrente?") == "yes"
    assert ask(m, "O primeiro card ativado é resolvido primeiro na corrente?") == "no"


def test_a_statement_giving_the_amount_asked_is_more_specific() -> None:
    from kb.reason.statement_match import amount_decision

    m = matcher(
        "Monstros Union têm uma condição limitando quantos Monstros Union um monstro pode equipar.",
        "Um monstro só pode ser equipado com 1 Monstro Union de cada vez.",
    )
    q = read_question("Can a monster be equipped with two Union monsters at once?")
    q = read_question(q.text, mentions(q.text))
    found = m.counting(q, None, None)
    assert found is not None and "1 Monstro Union" in (found.node.text or "")
    assert found.verdict == "no"  # only 1, and 2 are asked
    d = amount_decision(found, "the general rule", "doc-0/p")
    assert d.verdict == "no" and "More specific" in d.steps[-1].text_en
    # asked about no amount, there is nothing more specific to prefer
    q = read_question("Can a monster be equipped with Union monsters?")
    assert m.counting(read_question(q.text, mentions(q.text)), None, None) is None


def test_a_sentence_with_swapped_roles_yields_to_a_matched_statement() -> None:
    from dataclasses import replace

    m = matcher(
        "Pot of Greed não pode ser encadeado a Ash Blossom.",
        "Ash Blossom pode ser encadeado a Pot of Greed.",
    )
    text = "Can Ash Blossom be chained to Pot of Greed?"
    q = read_question(text, mentions(text))
    swapped, kept = (n.span for n, _ in m.statements)
    assert swapped is not None and kept is not None
    assert m.speaks_at(q, swapped) is False  # Pot of Greed is what is chained to, not what chains
    assert m.speaks_at(q, kept) is True
    m.settings = replace(m.settings, override_margin=0.0)
    d = m.instead_of(q, swapped, None, None)
    assert d is not None and d.verdict == "yes"
    assert m.instead_of(q, kept, None, None) is None  # a sentence that speaks to it stays
    m.settings = replace(m.settings, override_margin=5.0)
    assert m.instead_of(q, swapped, None, None) is None  # not far enough above it


def test_a_rule_about_a_kind_the_card_cannot_be_says_nothing_of_it() -> None:
    # no card is both a Counter Trap and a Quick-Play Spell: the rule is not about Trap Jammer,
    # though both negate activations
    m = matcher("Magias Rápidas que negam ativações não podem ser ativadas durante a Damage Step.")
    assert m.exclusive["concept/counter-trap"] >= {"concept/quick-play-spell"}
    assert ask(m, "Can I activate Trap Jammer during the Damage Step?") is None
    assert ask(m, "Can I activate Quick Negator during the Damage Step?") == "no"
    # a statement listing both kinds classifies: it speaks of each
    m = matcher("Magias Rápidas e Armadilhas de Resposta podem ser ativadas durante a Damage Step.")
    assert ask(m, "Can I activate Trap Jammer during the Damage Step?") == "yes"


def test_a_class_no_card_holds_excludes_what_each_kind_under_it_excludes() -> None:
    # no card is a Spell/Trap Card by itself: it is split into Spell Cards and Trap Cards, and
    # a rule about Spells/Traps that negate activations says nothing of a monster that does
    names = {**NAMES, "Magias/Armadilhas": "concept/spell-trap-card", "Herald": "card/herald"}
    facts = (
        Fact("card/trap-jammer", "instance_of", "concept/trap-card", None, "curated"),
        Fact("card/herald", "instance_of", "concept/monster-card", None, "curated"),
        Fact("card/herald", "has_capability", "concept/activation-negation", None, "curated"),
        Fact("concept/spell-card", "broader", "concept/spell-trap-card", None, "curated"),
        Fact("concept/trap-card", "broader", "concept/spell-trap-card", None, "curated"),
    )
    m = matcher(
        "Magias/Armadilhas que negam ativações não podem ser ativadas durante a Damage Step.",
        names=names,
        facts=facts,
        cards=("card/herald",),
    )
    assert "concept/monster-card" in m.exclusive["concept/spell-trap-card"]
    assert ask(m, "Can I activate Herald during the Damage Step?", names) is None
    assert ask(m, "Can I activate Trap Jammer during the Damage Step?", names) == "no"
    assert ask(m, "Can I activate Quick Negator during the Damage Step?", names) == "no"


def test_a_rule_before_or_after_a_point_speaks_of_the_other_side_by_contrast() -> None:
    names = {
        **NAMES,
        "Cálculo de Dano": "concept/damage-calculation",
        "damage calculation": "concept/damage-calculation",
    }
    m = matcher("Magias Normais não podem ser ativadas na ou após o Cálculo de Dano.", names=names)
    assert ask(m, "Can I activate Pot of Greed after damage calculation?", names) == "no"
    assert ask(m, "Can I activate Pot of Greed before damage calculation?", names) == "yes"


def test_a_card_is_decided_for_only_by_a_class_singling_it_out() -> None:
    # Spell Cards are 4 of the 5 cards with classes; Quick-Play Spells 2 of them
    m = matcher("Cards de Magia não podem ser ativados durante a Damage Step.", singling_share=0.5)
    text = "Can I activate Mystical Space Typhoon during the Damage Step?"
    q = read_question(text, mentions(text))
    assert m.singling("card/mystical-space-typhoon") == {"concept/quick-play-spell"}
    assert m.decide(q, None, None) is not None  # the rule decides …
    assert m.decide(q, None, None, frozenset({"card/mystical-space-typhoon"})) is None
    m = matcher("Magias Rápidas não podem ser ativadas durante a Damage Step.", singling_share=0.5)
    d = m.decide(q, None, None, frozenset({"card/mystical-space-typhoon"}))
    assert d is not None and d.verdict == "no"  # … a rule about its own narrow kind, for it


def verdict_at(m: StatementMatcher, question: str, text: str, part: str) -> str | None:
    """The typed verdict of the clause `part` of the statement text (documents `doc-<i>`)."""
    doc = next(n.span.document for n, _ in m.statements if n.text == text and n.span)
    start = text.index(part)
    at = Span(doc, start, start + len(part))
    return m.verdict_at(read_question(question, mentions(question)), at)


def test_the_clause_a_passage_picked_gives_its_polarity_by_role() -> None:
    text = "Magias Normais não podem ser ativadas durante a Damage Step."
    m = matcher(text)
    assert verdict_at(m, "Can I activate Pot of Greed during the Damage Step?", text, text) == "no"
    asked = "Pot of Greed não pode ser ativado durante a Damage Step?"
    assert verdict_at(m, asked, text, text) == "yes"
    # swapped roles: the clause says nothing of the question
    chained = "Ash Blossom pode ser encadeado a Pot of Greed."
    m = matcher(chained)
    assert verdict_at(m, "Can Pot of Greed be chained to Ash Blossom?", chained, chained) is None


def test_the_opposite_of_a_rules_condition_is_another_case() -> None:
    m = matcher(
        "O Duelista pode ativar o Umi durante a Damage Step, desde que não controle Ash Blossom."
    )
    assert (
        ask(m, "Posso ativar o Umi durante a Damage Step se eu não controlar Ash Blossom?") == "yes"
    )
    assert ask(m, "Posso ativar o Umi durante a Damage Step se eu controlar Ash Blossom?") == "no"


def test_a_cause_clause_is_asserted() -> None:
    text = "O Duelista pode ativar o Umi, visto que Pot of Greed não pode ser ativado durante a Damage Step."
    m = matcher(text)
    asked = "Pot of Greed pode ser ativado durante a Damage Step?"
    assert verdict_at(m, asked, text, text) == "no"


def test_a_term_excluding_the_one_asked_says_no() -> None:
    m = matcher("Monstros Union são diferentes dos Monstros Normais.")
    assert ask(m, "Are Union monsters the same as Normal Monsters?") == "no"
    assert ask(m, "Monstros Union são diferentes dos Monstros Normais?") == "yes"
    m = matcher("Monstros Union são sempre colocados com a face para cima.")
    assert ask(m, "Monstros Union são colocados com a face para baixo?") == "no"
    assert ask(m, "Are Union monsters always placed face-up?") == "yes"


def test_going_without_what_a_rule_requires_says_no() -> None:
    m = matcher("Monstros de Ritual precisam de um Cards de Magia para serem Invocados.")
    assert ask(m, "Can I Summon a Ritual monster without any Spell Card?") == "no"
    assert ask(m, "Can I Summon a Ritual monster with a Spell Card?") == "yes"


def test_how_many_times_a_thing_is_done_counts_it() -> None:
    m = matcher("No caso de uma Invocação-Normal, você só pode fazê-la uma vez por turno.")
    assert ask(m, "Can I make another Normal Summon this turn?") == "no"


def test_a_restriction_to_another_party_says_no_to_the_duelist_asking() -> None:
    m = matcher("Somente o seu companheiro de equipe pode ativar o Umi.")
    assert ask(m, "Posso ativar o Umi?") == "no"
    assert ask(m, "Can my teammate activate Umi?") == "yes"


def test_a_statement_holds_in_its_format_whether_it_names_it_or_not() -> None:
    names = {**NAMES, "Edison": "format/edison", "Formato Edison": "format/edison"}
    nodes = [  # the format named where the sentence names it
        *statement(
            "a", "No Formato Edison, os Monstros Union podem equipar um monstro.", "edison", names
        ),
        *statement("b", "Os Monstros Union podem equipar um monstro.", "edison", names),
    ]
    m = StatementMatcher(KnowledgeGraph(nodes, []), None, "general", StatementSettings(0.05))
    question = "In Edison, can Union monsters equip a monster?"
    found = m.rank(read_question(question, hand_mentions(question, names)), "edison", None)
    # the format the question names is held by both: it does not single the first one out
    assert found[0].lexical == found[1].lexical


def test_a_relative_clause_against_the_rules_condition_is_another_case() -> None:
    m = matcher("Efeitos podem ser ativados nessa Corrente se eles negarem ativações.")
    assert ask(m, "Posso ativar um efeito que nega ativações nessa Corrente?") == "yes"
    assert ask(m, "Posso ativar um efeito que não nega ativações nessa Corrente?") == "no"


def test_a_relative_clause_narrows_the_kind_a_rule_speaks_of() -> None:
    m = matcher("Cards de Magia que negam ativações não podem ser ativados durante a Damage Step.")
    assert ask(m, "Can I activate Quick Negator during the Damage Step?") == "no"
    # a Spell Card that negates nothing is not of the kind the rule speaks of
    assert ask(m, "Can I activate Mystical Space Typhoon during the Damage Step?") is None


def test_cards_named_of_a_kind_count_as_an_amount_of_it() -> None:
    names = {
        "monstro": "concept/monster-card",
        "Monstro Union": "concept/union-monster",
        "equipado": "concept/equip",
        "equipped": "concept/equip",
        "Cannon": "card/cannon",
        "Oilman": "card/oilman",
        "Platform": "card/platform",
    }
    rule = statement(
        "u", "Um monstro só pode ser equipado com 1 Monstro Union de cada vez.", names=names
    )
    cards = [Node(c, "Card") for c in ("card/cannon", "card/oilman", "card/platform")]
    facts = [
        Fact("card/cannon", "instance_of", "concept/fusion-monster", None, "curated"),
        Fact("card/oilman", "instance_of", "concept/union-monster", None, "curated"),
        Fact("card/platform", "instance_of", "concept/union-monster", None, "curated"),
        Fact("concept/fusion-monster", "broader", "concept/monster-card", None, "curated"),
        Fact("concept/union-monster", "broader", "concept/monster-card", None, "curated"),
    ]
    cfg = StatementSettings(min_score=0.05, exclusive_min=1, singling_share=1.0)
    m = StatementMatcher(KnowledgeGraph([*rule, *cards], facts), None, "general", cfg)

    def asked(question: str) -> str | None:
        d = m.decide(read_question(question, hand_mentions(question, names)), None, None)
        return None if d is None else d.verdict

    # the Fusion Monster is the monster equipped, the two Union monsters are two of them
    assert (
        asked("If Cannon is equipped with Oilman, can it also be equipped with Platform?") == "no"
    )
    assert asked("Can Cannon be equipped with Oilman?") == "yes"
