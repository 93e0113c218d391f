"""Questions as players write them (slang, card names as verbs, set-ups before the question), and
questions the KB must not decide, through the service on the real graph (hash embeddings: the
reasoners decide these, not the ranking). The blind sets qa_holdout5 and nonsense2 showed each
gap; every case here is a general reading, not one item's wording."""

from __future__ import annotations

import pytest
from tests_support import chain_pair_ids

from kb.service import RulingsService


@pytest.mark.parametrize(
    ("question", "responder", "target"),
    [
        # "chainar" is a chain verb; "em resposta" with nothing after responds to the set-up
        (
            "oponente ativou Nobleman of Crossout no meu monstro baixado. posso chainar "
            "Scapegoat em resposta?",
            "card/scapegoat",
            "card/nobleman-of-crossout",
        ),
        # "no X" (em + o) marks what is responded to; "flipou" activates
        (
            "dei normal summon e o oponente flipou Torrential Tribute. posso chainar Dark Bribe "
            "no Torrential?",
            "card/dark-bribe",
            "card/torrential-tribute",
        ),
        # the set-up's last link is responded to; "responder ativando X": X responds
        (
            "o oponente chainou Seven Tools of the Bandit na minha trap. posso responder "
            "ativando meu Call of the Haunted baixado?",
            "card/call-of-the-haunted",
            "card/seven-tools-of-the-bandit",
        ),
        # initials with a possessive used as the verb ("MST's") still name the card
        (
            "Opp MST's my face-down Call of the Haunted. Can I flip Call in response?",
            "card/call-of-the-haunted",
            "card/mystical-space-typhoon",
        ),
    ],
)
def test_who_responds_to_whom_as_players_write_it(
    hash_service: RulingsService, question: str, responder: str, target: str
) -> None:
    assert chain_pair_ids(hash_service, question) == (responder, target)


@pytest.mark.parametrize(
    ("question", "verdict", "negator"),
    [
        # the card the asking sentence uses negates, not the monster being revived
        (
            "Opp activates Premature Burial on the Jinzo in their GY. Can I stop the revive by "
            "chaining Magic Jammer to the Burial?",
            "yes",
            "Magic Jammer",
        ),
        # a negating card's name used as the verb
        (
            "Opp banishes a LIGHT and a DARK and Special Summons Black Luster Soldier - Envoy "
            "of the Beginning from the hand. Can I Solemn Warning that summon?",
            "yes",
            "Solemn Warning",
        ),
        # what a summon verb names is summoned, whatever it could negate
        ("opp synchro summons Stardust Dragon, can I Solemn Judgment it?", "yes", "Solemn"),
    ],
)
def test_the_negator_is_the_card_the_asker_uses(
    hash_service: RulingsService, question: str, verdict: str, negator: str
) -> None:
    a = hash_service.ask(question)
    assert a["reasoner"] == "summon-negation"
    assert a["verdict"] == verdict
    assert negator.lower() in a["answer"].lower()


def test_a_summon_neither_list_names_is_not_decided(hash_service: RulingsService) -> None:
    a = hash_service.ask("Is a Pendulum Summon an inherent Special Summon?")
    assert a["verdict"] is None and a["confidence"] is None
    assert a["reasoner"] == "summon-kind"
    assert a["citations"], "the lists of inherent and non-inherent Summons are cited"


@pytest.mark.parametrize(
    "question",
    [
        "No Edison dá pra fazer Invocação-Pêndulo se eu tiver duas Escalas Pêndulo no campo?",
        "In Edison Format, do Synchro monsters have to be summoned to the Extra Monster Zone?",
        "Edison: can I Xyz Summon using two Level 4 monsters?",
    ],
)
def test_a_mechanic_newer_than_the_format_is_not_decided(
    hash_service: RulingsService, question: str
) -> None:
    a = hash_service.ask(question, format="edison")
    assert a["verdict"] is None and a["confidence"] is None
    assert "2010-03-01" in a["answer"]


def test_a_mechanic_of_the_format_s_time_is_still_decided(hash_service: RulingsService) -> None:
    # Synchro Summons existed in 2010: the check is the mechanic's year, not the format's rules
    a = hash_service.ask("In Edison, is a Synchro Summon an inherent Special Summon?", "edison")
    assert a["verdict"] == "yes"


@pytest.mark.parametrize(
    ("question", "fmt", "verdict"),
    [
        ("Posso jogar Edison com um Deck Principal de só 39 cards?", "edison", "no"),
        ("In Edison, can my Extra Deck contain more than 15 cards?", "edison", "no"),
        ("In Tag Dueling, does each duelist's Main Deck need at least 40 cards?", "tag", "yes"),
        ("Can I play a 60 card deck?", None, "yes"),
        ("Can I play a 61-card Main Deck?", None, "no"),
        ("Can my Side Deck have fewer than 15 cards?", None, "yes"),
    ],
)
def test_deck_sizes_decide_deck_size_questions(
    hash_service: RulingsService, question: str, fmt: str | None, verdict: str
) -> None:
    a = hash_service.ask(question, format=fmt)
    assert (a["reasoner"], a["verdict"]) == ("deck-size", verdict)
    [step] = a["reasoning"]
    assert step["fact"]["authority"] == "curated" and step["fact"]["file"] == "manifest.yaml"


def test_how_many_cards_a_deck_part_holds(hash_service: RulingsService) -> None:
    a = hash_service.ask("Quantos cards no máximo no Extra Deck no Edison?", format="edison")
    assert a["verdict"] is None
    assert a["value"] == {"kind": "number", "value": 15, "unit": "card"}
    low = hash_service.ask("Qual o número mínimo de cards do Deck Principal?")
    assert low["value"] == {"kind": "number", "value": 40, "unit": "card"}


@pytest.mark.parametrize(
    ("question", "verdict"),
    [
        # deck-building words do not hide a question about what the list allows
        (
            "galera, montando deck pro edison: posso deixar 1 Dimension Fusion só no side pra "
            "entrar no game 2 contra controle?",
            "no",
        ),
        (
            "Edison deckbuilding q: I'm running 2 Royal Oppression main and wanna side a 3rd "
            "copy for the mirror. Is that legal?",
            "no",
        ),
    ],
)
def test_deck_building_words_with_a_legality_question(
    hash_service: RulingsService, question: str, verdict: str
) -> None:
    a = hash_service.ask(question, format="edison")
    assert (a["reasoner"], a["verdict"]) == ("card-limit", verdict)


@pytest.mark.parametrize(
    "question",
    ["What's a good deckbuilding tip for Edison?", "Should I side Royal Oppression against X?"],
)
def test_deck_advice_is_still_not_covered(hash_service: RulingsService, question: str) -> None:
    a = hash_service.ask(question, format="edison")
    assert a["verdict"] is None and "deck building advice" in a["answer"]


def test_not_just_is_no_negation() -> None:
    from kb.reading.clauses import question_negated

    assert not question_negated("Does it also count my teammate's Standby Phases, not just mine?")
    assert question_negated("Does it not count my teammate's Standby Phases?")


@pytest.mark.parametrize(
    ("question", "yes_no"),
    [
        # a statement put up for confirmation is a yes/no question
        ("quem ativa o efeito do Sangan sou eu, né?", True),
        ("It's me who activates the Sangan's effect, right?", True),
        # "em qual X?" at the end asks for a value, unless a modal asks whether one must choose
        ("efeito de auto destruição aplica em qual sub-etapa da damage step?", False),
        ("No Tag Duel, tenho que escolher de qual oponente vou ver a mão?", True),
        ("No tag os duelistas da equipe precisam concordar em qual card ativar em resposta?", True),
    ],
)
def test_which_questions_ask_yes_or_no(question: str, yes_no: bool) -> None:
    from kb.reading.question import is_yes_no

    assert is_yes_no(question) is yes_no


@pytest.mark.parametrize(
    ("question", "card"),
    [
        (
            "Chain: I activate Heavy Storm, opp chains Magic Jammer, I chain Dark Bribe on the "
            "Jammer, opp chains Seven Tools of the Bandit on my Dark Bribe. Which card resolves "
            "first?",
            "Seven Tools of the Bandit",
        ),
        (
            "O oponente ativou Raigeki, eu encadeei Magic Jammer e ele encadeou Seven Tools of "
            "the Bandit. Qual resolve por último?",
            "Raigeki",
        ),
    ],
)
def test_which_link_resolves_first(hash_service: RulingsService, question: str, card: str) -> None:
    a = hash_service.ask(question)
    assert (a["reasoner"], a["verdict"], a["confidence"]) == ("chain-order", None, None)
    assert a["value"] == {"kind": "text", "value": card, "unit": None}
    assert a["citations"], "the passage on resolving from the last link down is cited"


def test_a_rule_word_made_bigger_is_a_rule_word(hash_service: RulingsService) -> None:
    relevance = hash_service.answerer.relevance
    assert relevance.known("deck") and relevance.known("deckzao")
    assert not relevance.known("pizzazao")


def test_is_there_needs_a_statement_naming_what_exists(hash_service: RulingsService) -> None:
    from kb.reading.clauses import existence_asked

    q = "Is there a maximum number of Chain Links that a single Chain can have?"
    assert existence_asked(q) == "maximum number of chain links"
    assert existence_asked("Há alguma penalidade por jogo lento?") == "penalidade"
    assert existence_asked("Can I chain it?") is None
    a = hash_service.ask(q)
    assert a["verdict"] is None and a["confidence"] is None


def test_a_passive_chained_names_what_responds(hash_service: RulingsService) -> None:
    a = hash_service.ask(
        "Can a Counter Trap be chained to anything other than another Counter Trap?"
    )
    assert (a["reasoner"], a["verdict"]) == ("chain-spell-speed", "yes")


def test_a_hand_trap_is_no_trap_card(hash_service: RulingsService) -> None:
    q = hash_service.answerer.read("Is Honest a hand trap in Edison?", None)
    assert "concept/hand-trap" in q.entities and "concept/trap-card" not in q.entities


def test_a_cause_is_no_asking_clause(hash_service: RulingsService) -> None:
    a = hash_service.ask(
        "Since Cyber Dragon's inherent summon doesn't start a chain, am I still allowed to "
        "respond to it with Bottomless Trap Hole?"
    )
    assert a["verdict"] == "yes"


def test_a_card_said_not_to_be_used_takes_no_part(hash_service: RulingsService) -> None:
    a = hash_service.ask(
        "o cara devolveu o Gladiator Beast Laquari + 2 Gladiator Beasts pro deck pra invocar o "
        "Heraklinos (contact fusion, sem Polymerization). Posso negar essa invocação com Solemn "
        "Judgment?"
    )
    assert a["verdict"] == "yes" and "Polimeriza" not in a["answer"]


@pytest.mark.parametrize(
    "question",
    [
        "In a tag duel, how many turns does Swords of Revealing Light last? Do my partner's "
        "turns count, or only the opponents' turns?",
        "no tag duel, o Final Countdown conta os turnos de quem? Só os meus ou de todo mundo?",
    ],
)
def test_alternatives_after_a_value_question_ask_the_value(question: str) -> None:
    from kb.reading.question import is_yes_no

    assert not is_yes_no(question)
    assert is_yes_no("What is a Chain? Can I chain MST to Pot of Greed?")


def test_the_first_word_of_a_card_the_documents_name(hash_service: RulingsService) -> None:
    q = hash_service.answerer.read("Can I use DAD's effect before their Bottomless?", None)
    assert "card/bottomless-trap-hole" in q.entities
    # an archetype's opening word names no one card
    q = hash_service.answerer.read("Can my Blackwing respond?", None)
    assert not [e for e in q.entities if e.startswith("card/")]


@pytest.mark.parametrize(
    ("question", "verdict"),
    [
        # a Forbidden card may not be played at all
        ("In Edison, can I play Dimension Fusion?", "no"),
        # the answer to the question as asked
        (
            "Edison: I already have one Summoner Monk in my Main Deck. Does that mean I can't "
            "run a second copy in my Side Deck?",
            "yes",
        ),
    ],
)
def test_playing_a_card_the_list_limits(
    hash_service: RulingsService, question: str, verdict: str
) -> None:
    a = hash_service.ask(question, format="edison")
    assert (a["reasoner"], a["verdict"]) == ("card-limit", verdict)


def test_using_an_unlisted_card_is_a_question_for_the_rules(hash_service: RulingsService) -> None:
    a = hash_service.ask("Posso usar Royal Oppression na Damage Step no Edison?", format="edison")
    assert a["reasoner"] != "card-limit"


def test_a_curated_trap_monster_is_a_trap_monster(hash_service: RulingsService) -> None:
    from kb.reason.facts import card_classes

    assert "concept/trap-monster" in card_classes(hash_service.kg, "card/embodiment-of-apophis")


@pytest.mark.parametrize(
    "question",
    [
        "In Tag Duel, does a team lose if a duelist can't draw 1 card from their Deck?",
        "O primeiro duelista compra 1 card do Deck no primeiro turno?",
        "Can I send 2 cards from my Deck to the Graveyard?",
    ],
)
def test_cards_moved_from_a_deck_are_no_deck_size(
    hash_service: RulingsService, question: str
) -> None:
    assert hash_service.ask(question, format="tag")["reasoner"] != "deck-size"


@pytest.mark.parametrize(
    ("question", "verdict"),
    [
        ("Is Jinzo legal in Edison?", "yes"),
        ("O Jinzo é ilegal no Edison?", "no"),
        ("Is Pot of Greed legal in Edison?", "no"),
    ],
)
def test_whether_a_card_is_legal_in_a_format(
    hash_service: RulingsService, question: str, verdict: str
) -> None:
    a = hash_service.ask(question, format="edison")
    assert (a["reasoner"], a["verdict"]) == ("card-limit", verdict)


def test_an_amount_of_something_else_is_no_count_of_the_card(
    hash_service: RulingsService,
) -> None:
    # "tenho 2 trevas": two DARK monsters, not two copies of the card named after them
    a = hash_service.ask(
        "Eu tenho 2 trevas no cemitério. Posso invocar Dark Armed Dragon no Edison?",
        format="edison",
    )
    assert a["reasoner"] != "card-limit"
    a = hash_service.ask("No Edison, posso ter 2 Dark Armed Dragon no deck?", format="edison")
    assert a["reasoner"] == "card-limit"


@pytest.mark.parametrize(
    ("question", "verdict"),
    [
        # "only" of what is responded to: Spell Speed 3 responds to Spell Speed 1 and 2 too
        ("Can Spell Speed 3 cards only be activated in response to another Spell Speed 3?", "no"),
        # "only" of the responders, which holds: nothing slower responds to a Counter Trap
        ("Can only Counter Traps be chained to Solemn Judgment?", "yes"),
        ("Can Spell Speed 3 cards be activated in response to another Spell Speed 3?", "yes"),
    ],
)
def test_only_in_a_chain_question_restricts_what_it_stands_next_to(
    hash_service: RulingsService, question: str, verdict: str
) -> None:
    a = hash_service.ask(question)
    assert (a["reasoner"], a["verdict"]) == ("chain-spell-speed", verdict)
