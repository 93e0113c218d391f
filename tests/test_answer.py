"""Answers: reasoners over typed facts, citations that are exact document slices, honest nulls."""

from __future__ import annotations

import pytest

from kb.errors import InvalidQuery
from kb.service import RulingsService


@pytest.fixture(scope="module")
def svc(hash_service: RulingsService) -> RulingsService:
    return hash_service


def assert_exact_citations(svc: RulingsService, result: dict) -> None:
    for c in result["citations"]:
        assert svc.artifact.documents[c["document"]][c["start"] : c["end"]] == c["text"]


CONTRACT = {
    "question",
    "format",
    "verdict",
    "answer",
    "confidence",
    "reasoning",
    "citations",
    "entities",
    "related",
}


@pytest.mark.parametrize(
    ("question", "verdict", "reasoner"),
    [
        (
            "Julgamento Solene pode negar a Invocação do Dragão Cibernético?",
            "yes",
            "summon-negation",
        ),
        ("Can Divine Wrath negate the summon of Cyber Dragon?", "no", "summon-negation"),
        ("Saber Hole nega a invocação do Gorz?", "no", "summon-negation"),
        (
            "Can Solemn Warning stop Gorz, the Emissary of Darkness being summoned?",
            "yes",
            "summon-negation",
        ),
        # A card the rulings document never names: its summon kind is curated.
        ("Can Solemn Judgment negate the Special Summon of Lava Golem?", "yes", "summon-negation"),
        # A Spell or Trap that summons makes the summon non-inherent, whatever it brings back.
        (
            "O Solemn Strike consegue negar a invocação de um monstro feita pelo Call of the Haunted?",
            "no",
            "summon-negation",
        ),
        (
            "O oponente ativou Monster Reborn mirando o Scrap Dragon. Posso negar com Thunder King"
            " Rai-Oh?",
            "no",
            "summon-negation",
        ),
        ("Can Solemn Judgment negate the summon made by Monster Reborn?", "yes", "summon-negation"),
        # A monster summoning itself by its effect: only negating a monster effect's activation
        # stops it, which Solemn Judgment (Spells, Traps, Summons) cannot.
        (
            "Can Solemn Judgement negate the Special Summon of Sacred Phoenix of Nephthys reviving"
            " itself?",
            "no",
            "summon-negation",
        ),
        ("Thunder King Rai-Oh pode negar uma Ritual Summon?", "no", "summon-negation"),
        ("Does Black Horn of Heaven work against Synchro Summons?", "yes", "summon-negation"),
        # Negated by no one named: by whatever card can negate that kind of Summon.
        ("A invocação do Chaos Sorcerer pode ser negada?", "yes", "summon-negation"),
        ("Can the Special Summon made by Monster Reborn be negated?", "yes", "summon-negation"),
        # "The monster X revives / brings back": X's effect summons, a non-inherent Summon.
        (
            "Divine Wrath nega o monstro que o Light and Darkness Dragon revive?",
            "yes",
            "summon-negation",
        ),
        (
            "Could I use Thunder King Rai-Oh on a monster brought back by Call of the Haunted?",
            "no",
            "summon-negation",
        ),
        # A Summon or a Set has no Spell Speed: nothing is chained to it, it is responded to.
        ("Can you chain to a summon?", "no", "speedless-response"),
        (
            "Posso encadear alguma coisa quando o oponente Baixa um card?",
            "no",
            "speedless-response",
        ),
        (
            "Can Bottomless Trap Hole be activated in response to the Special Summon of Cyber"
            " Dragon?",
            "yes",
            "speedless-response",
        ),
        # The verb asked is the main clause's, not a condition's: chaining one Trap to another.
        (
            "Can I chain Bottomless Trap Hole to Torrential Tribute when both respond to a Normal"
            " Summon?",
            "yes",
            "chain-spell-speed",
        ),
        # The same kind twice: "another" names a second one.
        ("Can one Counter Trap respond to another Counter Trap?", "yes", "chain-spell-speed"),
        # The order of resolution: numbered links, or cards in the order the chain names them.
        ("Então numa corrente o elo 4 resolve antes do elo 3?", "yes", "chain-order"),
        ("Does Chain Link 1 resolve before Chain Link 2?", "no", "chain-order"),
        (
            "Ativei Necrovalley, o oponente encadeou Forbidden Lance e depois o efeito do Evolzar"
            " Laggia pra negar o Necrovalley. O Laggia resolve antes da Forbidden Lance?",
            "yes",
            "chain-order",
        ),
        # "Pode isso?" asks about the chain its set-up describes.
        (
            "Ativei Fire Formation - Tenki e o oponente encadeou Mystical Space Typhoon. Pode isso?",
            "yes",
            "chain-spell-speed",
        ),
        # The set-up activates the card responded to; the asking sentence names none.
        (
            "My opponent activates Dark Hole while I have My Body as a Shield in my hand. Can I"
            " activate it in response?",
            "yes",
            "chain-spell-speed",
        ),
        ("A Invocação do Dragão Cibernético inicia uma corrente?", "no", "summon-chain"),
        ("Does summoning Gorz start a chain?", "yes", "summon-chain"),
        ("Can I chain Pot of Greed to Storm?", "no", "chain-spell-speed"),
        (
            "Can a spell speed 3 effect be used in response to a spell speed 2 effect?",
            "yes",
            "chain-spell-speed",
        ),
        ("Invocação por fusão é inerente?", "no", "summon-kind"),
        ("Is Cyber Dragon an inherent Special Summon?", "yes", "summon-kind"),
        ("Dark Simorgh é invocação não-inerente?", "yes", "summon-kind"),
        (
            "Raigeki, then Magic Jammer in response, then Seven Tools of the Bandit. Does Raigeki still resolve?",
            "yes",
            "chain-resolution",
        ),
        ("Raigeki com Magic Jammer em resposta: o Raigeki resolve?", "no", "chain-resolution"),
        ("Posso ativar Julgamento Solene em resposta a Buraco Negro?", "yes", "chain-spell-speed"),
        ("Can I chain Dust Tornado to Solemn Judgment?", "no", "chain-spell-speed"),
        # Damage Step (Edison rule 8): the card's class, then the sub-step.
        ("Edison: posso ativar Cálice Proibido no começo da etapa de dano?", "yes", "damage-step"),
        (
            "Can I activate Rush Recklessly during damage calculation in Edison?",
            "no",
            "damage-step",
        ),
        # Shrink is named by no document: its curated ATK/DEF trait decides.
        ("Edison: can I activate Shrink before damage calculation?", "yes", "damage-step"),
        ("Edison: Honest pode ser ativado durante o cálculo de dano?", "yes", "damage-step"),
        ("Edison: can I activate Solemn Judgment in the damage step?", "yes", "damage-step"),
        ("No Edison, Opressão Real pode ser ativada na etapa de dano?", "no", "damage-step"),
        # The class asked about by name, the card named only in the set-up.
        (
            "Edison: o oponente ativou Cálice Proibido na etapa de dano. Posso responder com uma"
            " Armadilha de Resposta?",
            "yes",
            "damage-step",
        ),
        (
            "Edison: Herald of Orange Light pode ativar no fim da etapa de dano?",
            "yes",
            "damage-step",
        ),
        # A card's class from its facts: "Is X a C?", "X conta como C?".
        ("Is Mirror Force a Counter Trap?", "no", "card-class"),
        ("O Julgamento Solene conta como Armadilha de Resposta?", "yes", "card-class"),
        # Life Point costs (Edison rule 10): more LP than the cost, or no payment.
        ("Edison: I'm at 2500 LP. Can I pay Mirror Wall's maintenance cost?", "yes", "lp-cost"),
        ("Edison: I'm at 2000 LP. Can I pay Mirror Wall's maintenance cost?", "no", "lp-cost"),
        (
            "edison: to com 500 de LP e tenho Circuito Degenerativo, ele se destroi sozinho?",
            "yes",
            "lp-cost",
        ),
        ("Edison: tenho 1.500 PV, posso pagar um custo de 1000 PV?", "yes", "lp-cost"),
        ("Edison: with 800 LP can I activate Premature Burial?", "no", "lp-cost"),
        # SEGOC (Edison rule 7): whose effect, mandatory or optional.
        (
            "In Edison SEGOC, does the turn player's optional trigger go on the chain before the opponent's mandatory trigger?",
            "no",
            "segoc",
        ),
        (
            "Edison: os efeitos obrigatórios do oponente entram na corrente antes dos opcionais do jogador do turno?",
            "yes",
            "segoc",
        ),
        (
            "In SEGOC, does the opponent's optional effect go after the turn player's optional effect?",
            "yes",
            "segoc",
        ),
    ],
)
def test_reasoners_decide_with_sourced_steps(
    svc: RulingsService, question: str, verdict: str, reasoner: str
) -> None:
    result = svc.ask(question)
    assert set(result) >= CONTRACT
    assert result["verdict"] == verdict, result["answer"]
    assert result["reasoner"] == reasoner
    assert result["confidence"] >= 0.8
    assert any(step["source"] for step in result["reasoning"])
    assert result["citations"], "an answer without a source is a bug"
    assert_exact_citations(svc, result)


def test_answer_is_in_the_question_language(svc: RulingsService) -> None:
    assert svc.ask("Julgamento Solene pode negar a Invocação do Dragão Cibernético?")[
        "answer"
    ].startswith("Sim")
    assert svc.ask("Can Solemn Judgment negate Cyber Dragon's summon?")["answer"].startswith("Yes")


@pytest.mark.parametrize(
    "question",
    [
        "How much does a Blue-Eyes White Dragon cost on the secondary market?",
        "Qual o melhor deck de Master Duel hoje?",
        "zxqv blorp?",
        # Topics the documents do not cover, whatever cards they name.
        "Is Pot of Greed banned in the current TCG Forbidden list?",
        "Quanto custa um Pot of Greed hoje em dia?",
        "When is the next YCS in North America?",
        "What's the best Edison deck for a beginner?",
        # Cards and formats the KB does not know, even next to a card it knows.
        "Can Ash Blossom & Joyous Spring negate Pot of Greedsworth Deluxe?",
        "Nibiru pode ser ativada se o oponente invocar 5 monstros?",
        "no goat format o jogador que começa compra carta no primeiro turno?",
    ],
)
def test_out_of_scope_gets_no_verdict(svc: RulingsService, question: str) -> None:
    result = svc.ask(question)
    assert result["verdict"] is None
    assert result["confidence"] is None  # no verdict, no confidence
    assert "no ruling" in result["answer"].lower() or "nenhuma regra" in result["answer"].lower()


def test_format_detection(svc: RulingsService) -> None:
    assert svc.ask("No Edison o primeiro jogador compra?")["format"] == "edison"
    assert svc.ask("In a Tag Duel can my teammate use my monsters as tribute?")["format"] == "tag"
    assert svc.ask("Duelista 1A pode usar o cemitério do companheiro de equipe?")["format"] == "tag"
    assert svc.ask("Edison?", format="tag")["format"] == "tag"  # the parameter wins


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"question": ""}, "question"),
        ({"question": "x", "format": "pauper"}, "format"),
        ({"question": "x", "k": 0}, "k"),
    ],
)
def test_bad_input(svc: RulingsService, kwargs: dict, field: str) -> None:
    with pytest.raises(InvalidQuery) as err:
        svc.ask(**kwargs)
    assert err.value.field == field


def test_damage_step_cites_the_rule_and_the_sub_step(svc: RulingsService) -> None:
    result = svc.ask("Can I activate Rush Recklessly during damage calculation in Edison?")
    texts = [c["text"] for c in result["citations"][:2]]
    assert any("Magias/Armadilhas que modificam ATK/DEF NÃO PODEM" in t for t in texts)
    assert any("Cálice Proibido" in t for t in texts)  # the class rule, with its example
    assert "1, 2, 3" in result["answer"]  # where it may be activated instead


def test_damage_step_without_a_sub_step_cites_the_sub_steps_allowing_it(
    svc: RulingsService,
) -> None:
    result = svc.ask("Can I activate Forbidden Chalice during the Damage Step?")
    assert result["verdict"] == "yes"
    top = [c["id"] for c in result["citations"][:3]]
    assert all("/substep-0" in c for c in top), top  # sub-steps 1, 2 and 3 allow it
    first = result["reasoning"][0]
    assert first["fact"]["object"] == "concept/atk-def-modifier"  # the card fact, cited


def test_damage_step_asks_about_the_card_activated(svc: RulingsService) -> None:
    result = svc.ask(
        "Can Herald of Perfection's effect be used in the Damage Step, e.g. to negate Ryko,"
        " Lightsworn Hunter?"
    )
    assert (result["reasoner"], result["verdict"]) == ("damage-step", "yes")
    assert "Herald of Perfection" in result["answer"]


def test_damage_step_is_an_edison_rule(svc: RulingsService) -> None:
    result = svc.ask("Can I activate Rush Recklessly during damage calculation?", format="tag")
    assert result["reasoner"] != "damage-step"


def test_edison_question_about_todays_list_is_in_scope(svc: RulingsService) -> None:
    result = svc.ask("Does Edison format follow the current OCG Forbidden & Limited list?")
    assert result["format"] == "edison"
    assert "do not cover" not in result["answer"]


def test_current_means_the_general_rules(svc: RulingsService) -> None:
    assert svc.ask("In the current rules, does the first player draw?")["format"] == "general"


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("zxqv blorp?", "“zxqv”, “blorp”"),
        ("Can I?", "names no card, rule or game action"),
        ("???", "não cita card, regra ou ação de jogo"),
    ],
)
def test_no_recognisable_content_says_what_was_not_understood(
    svc: RulingsService, question: str, said: str
) -> None:
    result = svc.ask(question)
    assert result["verdict"] is None and result["confidence"] is None
    assert said in result["answer"]


def _claim_match(svc: RulingsService, claim_id: str, score: float):  # type: ignore[no-untyped-def]
    from kb.answering.claims import ClaimMatch

    node = svc.kg.node(claim_id)
    source = svc.kg.out(claim_id, "stated_in")[0].object
    return ClaimMatch(node, score, node.label_en or "", True, source)


@pytest.mark.parametrize(
    ("question", "second_score", "decides"),
    [
        # tied: the claim about the card's class goes first
        (
            "Edison: during damage calculation, can Blackwing - Kalut the Moon Shadow modify ATK?",
            0.955,
            True,
        ),
        # not tied: the best claim does not speak of the card, and no lower one takes its place
        (
            "Edison: during damage calculation, can Blackwing - Kalut the Moon Shadow modify ATK?",
            0.90,
            False,
        ),
        # tied, but the question has a word no rule uses: no second chance
        (
            "Edison: during damage calculation, can Blackwing - Kalut the Moon Shadow sing ATK?",
            0.955,
            False,
        ),
    ],
)
def test_tied_claims_prefer_the_one_speaking_of_the_card(
    svc: RulingsService,
    monkeypatch: pytest.MonkeyPatch,
    question: str,
    second_score: float,
    decides: bool,
) -> None:
    answerer = svc.answerer
    ranked = [
        _claim_match(svc, "claim/edison/ds4-damage-calc-effects", 0.96),
        _claim_match(svc, "claim/edison/ds4-monster-quick-atk-allowed", second_score),
    ]
    monkeypatch.setattr(answerer.claims, "rank", lambda *a, **k: list(ranked))
    q = answerer.read(question, "edison")
    reading = answerer.relevance.read(q.text, q.mentions, asks_party=not q.yes_no)
    decision = answerer._claim_or_passage(q, [], reading)
    if decides:
        assert decision is not None and decision.verdict == "yes"
        assert any(s.source == "claim/edison/ds4-monster-quick-atk-allowed" for s in decision.steps)
    else:
        assert decision is None


@pytest.mark.parametrize(("second_score", "decides_by"), [(0.99, "own-deck"), (0.95, "empty")])
def test_tied_claims_prefer_the_one_stating_the_number_asked(
    svc: RulingsService, monkeypatch: pytest.MonkeyPatch, second_score: float, decides_by: str
) -> None:
    """ "A single Deck?": of two claims aligning alike, the one saying how many Decks decides;
    one clearly below does not take the best one's place."""
    answerer = svc.answerer
    ranked = [
        _claim_match(svc, "claim/tag/team-continues-if-one-deck-empty", 1.0),
        _claim_match(svc, "claim/tag/each-duelist-own-deck", second_score),
    ]
    monkeypatch.setattr(answerer.claims, "rank", lambda *a, **k: list(ranked))
    q = answerer.read("No Tag Duel a dupla joga com um deck só?", "tag")
    reading = answerer.relevance.read(q.text, q.mentions, asks_party=not q.yes_no)
    decision = answerer._claim_or_passage(q, [], reading)
    assert decision is not None
    assert decides_by in decision.steps[0].source


@pytest.mark.parametrize(
    ("question", "order", "decides_by", "value"),
    [
        # the best claims state no amount, or one a card's effect makes, or one that does not hold
        (
            "Num Tag Duel, quantos pontos de vida a equipe tem?",
            [
                "tag/team-loses-when-duelist-cannot-draw",
                "tag/don-thousand-both-teams-lose-1000",
                "tag/each-duelist-own-8000-life-points",
                "tag/team-shares-16000-life-points",
            ],
            "tag/team-shares-16000-life-points",
            16000,
        ),
        # the best claim's own passage states the amount: it comes before another passage's
        (
            "How many cards does the starting player have in Edison?",
            [
                "edison/first-player-draws",
                "edison/hand-size-limit-six",
                "edison/first-player-six-cards",
            ],
            "edison/first-player-six-cards",
            6,
        ),
    ],
)
def test_a_question_asking_an_amount_is_answered_by_a_claim_stating_it(
    svc: RulingsService,
    monkeypatch: pytest.MonkeyPatch,
    question: str,
    order: list[str],
    decides_by: str,
    value: int,
) -> None:
    answerer = svc.answerer
    ranked = [_claim_match(svc, f"claim/{c}", 1.1 - 0.02 * i) for i, c in enumerate(order)]
    monkeypatch.setattr(answerer.claims, "rank", lambda *a, **k: list(ranked))
    q = answerer.read(question, None)
    reading = answerer.relevance.read(q.text, q.mentions, asks_party=not q.yes_no)
    decision = answerer._claim_or_passage(q, [], reading)
    assert decision is not None and decision.verdict is None
    assert decision.sources[0] == f"claim/{decides_by}"
    assert decision.value is not None and decision.value.value == value


@pytest.mark.parametrize(
    ("question", "concept"),
    [
        ("No Edison, qual lista de banidas e limitadas vale?", "concept/forbidden-limited-list"),
        ("Which ban list is Edison played with?", "concept/forbidden-limited-list"),
        ("O card foi banido pelo efeito?", "concept/banished"),  # "banido" alone is Banished
        ("In Tag, must both teammates agree on what to chain?", "concept/response"),
    ],
)
def test_players_names_for_concepts(svc: RulingsService, question: str, concept: str) -> None:
    assert concept in {m.entity for m in svc.answerer.read(question, None).mentions}


@pytest.mark.parametrize(
    ("question", "defining"),
    [
        ('What is an "inherent" special summon, anyway?', "Os inerentes são aqueles"),
        ("Afinal, o que é prioridade no Yu-Gi-Oh?", 'A "Prioridade" se refere'),
    ],
)
def test_what_is_a_concept_cites_its_defining_passage(
    svc: RulingsService, question: str, defining: str
) -> None:
    result = svc.ask(question)
    assert (result["verdict"], result["confidence"], result["reasoner"]) == (
        None,
        None,
        "definition",
    )
    assert result["citations"][0]["text"].startswith(defining)
    assert_exact_citations(svc, result)


@pytest.mark.parametrize(
    "question", ["Does special summoning start a chain?", "A Invocação-Especial gera corrente?"]
)
def test_a_special_summon_of_no_kind_starts_a_chain_depending_on_its_kind(
    svc: RulingsService, question: str
) -> None:
    result = svc.ask(question)
    assert (result["verdict"], result["confidence"], result["reasoner"]) == (
        None,
        None,
        "summon-chain",
    )
    top = {c["id"] for c in result["citations"][:2]}
    assert any("/non-inherent/" in c for c in top) and any("/inherent/" in c for c in top)


def test_an_example_decides_with_the_rule_it_illustrates(svc: RulingsService) -> None:
    """A decision citing a worked example cites the paragraph it illustrates right after it."""
    from kb.answering.illustrated import with_illustrated_rules
    from kb.reason import Decision, Step

    kg = svc.answerer.kg
    example = next(
        n.id
        for n in kg.of_type("Example")
        if any(
            kg.get(f.object) and kg.node(f.object).type == "Passage"
            for f in kg.out(n.id, "example_of")
        )
    )
    rule = kg.out(example, "example_of")[0].object
    decision = Decision("yes", [Step("e", "e", example)], "Yes.", "Sim.", 0.9, [example], "claim")
    out = with_illustrated_rules(kg, decision, [], lambda s: s)
    assert out.sources == [example, rule]
    assert out.steps[-1].source == rule
    # a rule cited already is not cited twice
    both = Decision("yes", [], "Yes.", "Sim.", 0.9, [example, rule], "claim")
    assert with_illustrated_rules(kg, both, [], lambda s: s).sources == [example, rule]


def test_discourse_words_and_short_card_names_are_not_off_topic(svc: RulingsService) -> None:
    answerer = svc.answerer
    q = answerer.read(
        "My friend says Cyber Dragon can be negated. Can Solemn Judgment negate Cyber's summon?",
        None,
    )
    reading = answerer.relevance.read(q.text, q.mentions, asks_party=not q.yes_no)
    assert "friend" not in reading.off_topic
    assert not reading.off


def test_a_general_rule_about_monsters_does_not_speak_of_a_trap(svc: RulingsService) -> None:
    from kb.answering.answer import _other_kind

    kg = svc.answerer.kg
    monsters = {"concept/monster-card", "concept/hand"}
    assert _other_kind(kg, monsters, ["card/solemn-judgment"])  # a Trap Card only
    assert not _other_kind(kg, monsters, ["card/cyber-dragon"])
    assert not _other_kind(kg, {"concept/hand"}, ["card/solemn-judgment"])  # no kind: any card
    assert not _other_kind(kg, monsters, [])


def test_a_rule_about_a_spell_speed_does_not_speak_of_slower_cards(svc: RulingsService) -> None:
    """A rule about Spell Speed 2 ("or higher") says nothing of a card that is Spell Speed 1; a
    faster card, one of several named, or a card of no known speed keeps it in play."""
    from kb.answering.answer import _other_kind

    kg = svc.answerer.kg
    ss2 = {"concept/spell-speed-2", "concept/teammate"}
    assert _other_kind(kg, ss2, ["card/pot-of-greed"])  # a Normal Spell: Spell Speed 1
    assert not _other_kind(kg, ss2, ["card/solemn-judgment"])  # a Counter Trap: 3
    assert not _other_kind(kg, ss2, ["card/pot-of-greed", "card/solemn-judgment"])
    assert not _other_kind(kg, {"concept/spell-speed-1"}, ["card/pot-of-greed"])
    assert not _other_kind(kg, ss2, ["card/cyber-dragon"])  # no activated effect: no speed known


def test_asked_about_no_format_a_claim_of_another_format_yields(
    svc: RulingsService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No format named: today's rules; another format's claim loses `other_format_penalty`."""
    from dataclasses import replace

    answerer = svc.answerer
    penalty = answerer.claims.settings.other_format_penalty
    question = "Can my teammate respond to a Chain Link my opponent added?"
    q = answerer.read(question, None)
    ranked = {m.node.id: m for m in answerer.claims.rank(q.text, q.mentions, None, lang="en")}
    unpenalised = replace(answerer.claims.settings, other_format_penalty=0.0)
    monkeypatch.setattr(answerer.claims, "settings", unpenalised)
    plain = {m.node.id: m for m in answerer.claims.rank(q.text, q.mentions, None, lang="en")}
    shared = set(ranked) & set(plain)
    other = [i for i in shared if ranked[i].format != answerer.formats.base]
    assert other, "the question should rank some Tag Duel claim"
    for i in shared:
        expected = penalty if i in other else 0.0
        assert plain[i].score - ranked[i].score == pytest.approx(expected, abs=1e-9)


def test_a_spell_speed_1_effect_asked_as_chain_link_2_cites_the_link_rule(
    svc: RulingsService,
) -> None:
    result = svc.ask("Can Pot of Greed be activated as Chain Link 2 to Mirror Force?")
    assert result["verdict"] == "no"
    assert "Chain Link 2 ou superior" in result["citations"][0]["text"]


@pytest.mark.parametrize(
    "question",
    [
        # the class named before the card, or in a set-up sentence only: not a class question
        "Is it legal to chain a Counter Trap to Mirror Force?",
        "O Julgamento Solene e a Armadilha de Resposta: o efeito ativa de novo?",
        # the copula is said of another card: what the named card makes count as the class
        "Can Solemn Judgment make a monster count as a Counter Trap?",
    ],
)
def test_card_class_needs_is_x_a_c(svc: RulingsService, question: str) -> None:
    assert svc.ask(question)["reasoner"] != "card-class"
