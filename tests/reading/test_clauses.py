"""Reading a statement's polarity against a question (kb.reading.clauses): pure functions."""

from __future__ import annotations

import pytest

from kb.link import Entry, Linker
from kb.reading.clauses import (
    condition_flipped,
    counts_asked,
    link_numbers,
    opposed,
    other_case,
    other_links,
    prevented_action,
    question_negated,
    requirement_skipped,
    same_counts,
    stated_negative,
    states_action,
)
from kb.reading.question import detect_lang


@pytest.mark.parametrize(
    ("statement", "negative"),
    [
        (
            "Um card Proibido pode ficar no Deck Auxiliar desde que não esteja no Deck Principal.",
            False,
        ),
        ("A card can stay in the Side Deck as long as it is not in the Main Deck.", False),
        ("Um card Proibido não pode ser usado no Deck Principal.", True),
        ("You cannot pay a cost unless you have enough Life Points.", True),
        ("Se você não puder comprar, você perde o duelo.", False),
        # English "no" determining what one has, as "não tem", "não há"
        ("The turn player has no priority to activate another card as Chain Link 1.", True),
        ("All Special Summons work alike; there is no distinction between them.", True),
        # a requirement, not a denial ("precisam estar sem Deck Adicional"), nor "no longer"
        ("Both duelists of the team must have no Extra Deck.", False),
        ("It keeps applying until it is no longer face-up.", False),
    ],
)
def test_a_negation_inside_a_condition_does_not_make_the_statement_negative(
    statement: str, negative: bool
) -> None:
    assert stated_negative(statement) is negative


def test_also_asked_against_only_stated_is_opposed() -> None:
    question = "No Edison, monstro armadilha ocupa uma zona de magia/armadilha também?"
    assert opposed(question, "Um Monstro de Armadilha só ocupa uma Zona dos Cards de Monstro.")
    assert opposed("Does it also count as a Trap Card?", "It only counts as a monster.")
    # no restriction in the statement, or the question restricts too: no opposition
    assert not opposed(question, "Um Monstro de Armadilha ocupa 1 Zona dos Cards de Monstro.")
    assert not opposed("Só posso usar apenas um também?", "Você só pode usar um.")


def test_a_statement_about_other_parties_is_another_case() -> None:
    question = "Can my opponent and I each have our own Field Spell at the same time?"
    teammate = "A duelist can activate a Field Spell while their teammate's Field Spell stays."
    assert other_case(question, teammate, holds_positive=True)
    assert other_case(question, teammate, holds_positive=False)
    # the party named in a set-up sentence counts
    setup = "Meu parceiro baixou uma armadilha. Posso ativá-la no turno do oponente?"
    assert not other_case(setup, "Só o parceiro que a baixou pode ativá-la.", holds_positive=True)


def test_other_numbers_decide_only_through_a_rule_that_holds() -> None:
    question = "O jogador que começa tem 6 cards na mão no primeiro turno?"
    five = "O jogador que joga primeiro faz o primeiro turno com apenas 5 cards na mão."
    # a false claim about 5 cards says nothing about 6; a rule that holds with 5 answers "no"
    assert other_case(question, five, holds_positive=False)
    assert not other_case(question, five, holds_positive=True)
    assert not other_case(question, "O jogador começa com 6 cards.", holds_positive=False)


def test_a_proviso_asked_with_the_opposite_polarity_flips_the_answer() -> None:
    statement = (
        "O Jogador do Turno pode ativar um Efeito de Ignição como Elo 1, desde que a Invocação"
        " não inicie uma Corrente."
    )
    flipped = "O jogador do turno tem prioridade quando a invocação inicia uma corrente?"
    same = "O jogador do turno tem prioridade quando a invocação não inicia uma corrente?"
    assert condition_flipped(flipped, statement)
    assert not condition_flipped(same, statement)
    assert not condition_flipped("O jogador do turno tem prioridade?", statement)
    english = "You may activate it unless your opponent controls a monster."
    assert condition_flipped("Can I activate it if my opponent controls a monster?", english)
    assert not condition_flipped(
        "Can I activate it if my opponent does not control a monster?", english
    )


def test_a_denying_predicate_after_a_relative_clause_negates_the_question() -> None:
    assert question_negated("No Edison, fazer uma jogada voluntária que cria um loop é ilegal?")
    assert not question_negated("Posso usar um card que não é monstro?")  # negation of a relative
    assert question_negated("Can a player not draw?")


def test_setting_is_another_case_than_activating() -> None:
    question = "Se eu ativar Floresta enquanto o oponente tem Sogen ativo, o Sogen é destruído?"
    setting = "Baixar uma Magia de Campo destrói a Magia de Campo que o oponente tem ativa."
    assert other_case(question, setting, holds_positive=False)
    assert not other_case(question, "Ativar uma Magia de Campo destrói a do oponente.", False)


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("Edison: two 0-ATK Attack Position monsters battle. Are both destroyed?", "en"),
        ("No Edison, dois monstros com 0 de ATK batalhando se destroem?", "pt"),
        ("Tufão Espacial Místico encadeia no Pote?", "pt"),
        ("Mystical Space Typhoon on Pot of Greed?", "en"),
    ],
)
def test_the_question_language_is_read_from_its_function_words(text: str, lang: str) -> None:
    assert detect_lang(text) == lang


def test_doing_without_what_a_rule_requires_inverts_it() -> None:
    rule = "Se a equipe já controla uma Magia de Campo, ela precisa ser enviada ao Cemitério antes."
    question = "Meu parceiro tem Floresta ativa. Posso ativar Sogen sem que a Floresta vá pro cemitério antes?"
    assert requirement_skipped(question, rule)
    assert not requirement_skipped(
        "Posso ativar Sogen depois que a Floresta for pro cemitério?", rule
    )
    assert not requirement_skipped(question, "A Floresta vai para o Cemitério.")  # no requirement


def test_preventing_players_from_an_action_asks_whether_they_cannot() -> None:
    assert prevented_action("O Kycoo impede os dois oponentes de banir do cemitério?") == "banir"
    verb = prevented_action("Does Kycoo stop both opponents from banishing from their Graveyards?")
    assert verb == "banishing"
    assert states_action(verb, frozenset({"neith", "opponent", "banish"}))
    assert not states_action(verb, frozenset({"affect", "opponent"}))
    # a card kept from doing something is a protection, not a prohibition on players
    assert (
        prevented_action("Can Fake Trap stop Raigeki Break from destroying my Trap Monster?")
        is None
    )


def test_each_one_separately_against_all_as_a_whole_is_opposed() -> None:
    whole = "Swords of Revealing Light counts three turns of the opponent team as a whole."
    assert opposed("Do Swords of Revealing Light count each opponent's turn separately?", whole)
    assert opposed(
        "As Espadas contam os turnos de cada oponente separadamente?",
        "As Espadas contam os turnos da equipe adversária como um todo.",
    )
    assert not opposed("Do they count the team's turns as a whole?", whole)


LINKER = Linker(
    [
        Entry("card/sangan", "Card", "Sangan", ("Sangan",)),
        Entry(
            "card/caius", "Card", "Caius the Shadow Monarch", ("Caius", "Caius the Shadow Monarch")
        ),
    ]
)


def test_chain_link_numbers_belong_to_the_card_named_before_them() -> None:
    text = "you may put Caius's effect as Chain Link 1 and Sangan's as Chain Link 2"
    assert link_numbers(text, LINKER) == {"card/caius": {1}, "card/sangan": {2}}
    assert link_numbers("o Sangan fica como elo 1 da corrente?", LINKER) == {"card/sangan": {1}}
    assert link_numbers("Sangan goes to the Graveyard.", LINKER) == {}


def test_a_statement_putting_the_asked_card_on_another_link_is_another_case() -> None:
    question = "Edison: if I tribute Sangan for Caius, is Sangan's effect Chain Link 1?"
    swapped = "You may put Caius's effect as Chain Link 1 and Sangan's as Chain Link 2."
    same = "Sangan's effect is Chain Link 1 and Caius's effect is Chain Link 2."
    assert other_links(question, swapped, LINKER)
    assert not other_links(question, same, LINKER)
    assert not other_links("Does Sangan trigger?", swapped, LINKER)


def test_a_statement_giving_the_number_asked_speaks_of_the_case() -> None:
    question = "In Tag, can a team have four copies of a Semi-Limited card across both decks?"
    assert same_counts(question, "Each duelist may run two copies, so a team can have four copies.")
    assert not same_counts(question, "A team is limited to two copies across both Decks.")
    assert same_counts("A dupla pode ter 4 cópias?", "a equipe pode ter quatro cópias no total")


@pytest.mark.parametrize(
    "question",
    [
        "No Tag Duel a dupla joga com um deck só?",
        "A dupla usa um só deck?",
        "Do the two teammates share a single deck?",
        "Os dois compram de um único Deck?",
    ],
)
def test_one_said_without_a_number_is_counted(question: str) -> None:
    single = "Os dois parceiros compram de um único Deck compartilhado."
    assert same_counts(question, single)
    assert counts_asked(question, "Each duelist uses their own Deck, so a team has 2 Decks.")
    assert not same_counts(question, "Each duelist uses their own Deck, so a team has 2 Decks.")
    assert not counts_asked(question, "The team keeps playing while the teammate has a Deck.")


@pytest.mark.parametrize(
    "question",
    [
        "Does the team share a single Life Point total of 16,000?",  # Life Points: not counted
        "Is it a single card effect?",  # a modifier, not a count
        "Is the deck so big?",  # "so" is not "só" in English
    ],
)
def test_single_as_a_modifier_is_not_a_count(question: str) -> None:
    assert not counts_asked(
        question, "A team shares 16,000 Life Points and has 2 Decks and 1 card."
    )


def test_counts_can_be_left_to_the_typed_reading() -> None:
    from kb.reading.clauses import contradicts

    question = "Preciso de dois monstros de nível 4?"
    clause = "Ele pede 2 Level 4 Monsters."
    assert not contradicts(question, clause, counts=False)
    # other duelists are another case whatever the counts
    assert contradicts("O 1A pode atacar?", "O 2B pode atacar.", counts=False)
