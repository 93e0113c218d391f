"""Statements become graph facts by their roles (kb/reading/relations.yaml)."""

from __future__ import annotations

from dataclasses import replace

from kb.model import Fact, Node, Span
from kb.reading import Span as Mention
from kb.reading import read_sentence
from kb.reading.relations import derive, relations

SPEEDS = {
    "Velocidade de Magia 1": "concept/spell-speed-1",
    "Velocidade de Magia 2": "concept/spell-speed-2",
    "Velocidade de Magia 3": "concept/spell-speed-3",
}
GLOSSARY = [Fact(c, "broader", "concept/spell-speed", None, "curated") for c in SPEEDS.values()]


def statements(text: str, more: list[Mention] | None = None) -> list[Node]:
    mentions = list(more or [])
    for words, entity in SPEEDS.items():
        at = text.find(words)
        while at >= 0:
            mentions.append(Mention(entity, at, at + len(words)))
            at = text.find(words, at + 1)
    at = text.find("resposta")
    mentions.append(Mention("concept/response", at, at + len("resposta")))
    span = Span("doc", 0, len(text))
    out = []
    for k, p in enumerate(read_sentence(text, mentions, "pt").propositions):
        props = {**p.to_props(), "clause": [p.start, p.end]}
        out.append(
            Node(f"doc/p/st-{k}", "Statement", text=text, span=span, parent="doc/p", props=props)
        )
    return out


def test_a_speed_responding_to_others_and_not_to_a_third() -> None:
    text = (
        "Efeitos de Velocidade de Magia 2 podem ser usados em resposta a Velocidade de Magia 1 "
        "e Velocidade de Magia 2, mas não a Velocidade de Magia 3."
    )
    facts = {(f.subject, f.predicate, f.object) for f in derive(statements(text), GLOSSARY)}
    assert facts == {
        ("concept/spell-speed-2", "can_respond_to", "concept/spell-speed-1"),
        ("concept/spell-speed-2", "can_respond_to", "concept/spell-speed-2"),
        ("concept/spell-speed-2", "cannot_respond_to", "concept/spell-speed-3"),
    }
    assert all(
        f.authority == "document" and f.source == "doc/p"
        for f in derive(statements(text), GLOSSARY)
    )


def test_no_relation_without_its_action() -> None:
    text = "Velocidade de Magia 2 é mais rápida que Velocidade de Magia 1."
    assert derive(statements(text), GLOSSARY) == []


def test_relations_are_data() -> None:
    assert {r.predicate for r in relations()} >= {"can_respond_to"}


def test_a_bullet_without_a_subject_speaks_of_the_documents_topic() -> None:
    """ "Os inerentes são aqueles …" then "-PODEM ser negados por efeitos que negam …": the
    bullet's Summon kind is the one the document last made its subject; a kind of it (Contact
    Fusions, listed under it) keeps the topic."""
    glossary = [
        Fact(
            "concept/inherent-special-summon", "broader", "concept/special-summon", None, "curated"
        ),
        Fact(
            "concept/contact-fusion", "broader", "concept/inherent-special-summon", None, "curated"
        ),
        Fact("concept/summon-negation", "broader", "concept/negation", None, "curated"),
    ]
    names = {
        "Os inerentes": "concept/inherent-special-summon",
        "Contact Fusions": "concept/contact-fusion",
        "negados": "concept/negation",
        "negam special summon": "concept/summon-negation",
    }
    texts = [
        "Os inerentes são aqueles que se invocam sozinhos.",
        "Contact Fusions são exemplos.",
        "-PODEM ser negados por efeitos que negam special summon.",
    ]
    nodes, start = [], 0
    for k, text in enumerate(texts):
        mentions = [
            Mention(e, text.index(w), text.index(w) + len(w)) for w, e in names.items() if w in text
        ]
        span = Span("doc", start, start + len(text))
        for p in read_sentence(text, mentions, "pt").propositions:
            props = {**p.to_props(), "clause": [start + p.start, start + p.end]}
            nodes.append(
                Node(
                    f"doc/p{k}/st",
                    "Statement",
                    text=text,
                    span=span,
                    parent=f"doc/p{k}",
                    props=props,
                )
            )
        start += len(text) + 1
    facts = {(f.subject, f.predicate, f.object) for f in derive(nodes, glossary)}
    assert facts == {("concept/inherent-special-summon", "negatable_by", "concept/summon-negation")}


def test_bullets_naming_kinds_of_monster_list_what_the_topic_summons() -> None:
    glossary = [
        Fact(
            "concept/inherent-special-summon", "broader", "concept/special-summon", None, "curated"
        ),
        Fact("concept/synchro-monster", "broader", "concept/monster-card", None, "curated"),
    ]
    texts = {
        "Os inerentes são aqueles que se invocam sozinhos.": {
            "Os inerentes": "concept/inherent-special-summon"
        },
        "-Synchros": {"Synchros": "concept/synchro-monster"},
        "-Synchros não são isso": {"Synchros": "concept/synchro-monster"},
    }
    nodes, start = [], 0
    for k, (text, names) in enumerate(texts.items()):
        mentions = [Mention(e, text.index(w), text.index(w) + len(w)) for w, e in names.items()]
        span = Span("doc", start, start + len(text))
        for p in read_sentence(text, mentions, "pt").propositions:
            props = {**p.to_props(), "clause": [start + p.start, start + p.end]}
            node = Node(f"doc/p{k}/st", "Statement", text=text, span=span, parent=f"doc/p{k}")
            nodes.append(
                Node(node.id, node.type, text=text, span=span, parent=node.parent, props=props)
            )
        start += len(text) + 1
    facts = {(f.subject, f.predicate, f.object) for f in derive(nodes, glossary)}
    assert facts == {("concept/synchro-monster", "summoned_by", "concept/inherent-special-summon")}


def test_cards_named_as_negators_stand_for_the_negation_they_share() -> None:
    """ "-NÃO PODEM ser negados por cartas como Saber Hole ou Thunder King Rai-oh": the cards
    both negate Summons (their has_capability facts), so the topic is not negatable by that
    kind of negation; "com cartas como Solemn Judgment ou Dark Bribe" shares only negating
    activations."""
    glossary = [
        Fact(
            "concept/non-inherent-special-summon",
            "broader",
            "concept/special-summon",
            None,
            "curated",
        ),
        Fact("concept/summon-negation", "broader", "concept/negation", None, "curated"),
        Fact("concept/activation-negation", "broader", "concept/negation", None, "curated"),
    ]
    capabilities = [
        Fact("card/saber-hole", "has_capability", "concept/summon-negation", None, "inferred"),
        Fact("card/rai-oh", "has_capability", "concept/summon-negation", None, "inferred"),
        Fact("card/solemn", "has_capability", "concept/summon-negation", None, "inferred"),
        Fact("card/solemn", "has_capability", "concept/activation-negation", None, "inferred"),
        Fact("card/bribe", "has_capability", "concept/activation-negation", None, "inferred"),
    ]
    texts = {
        "Os não-inerentes são aqueles invocados por um efeito.": {
            "Os não-inerentes": "concept/non-inherent-special-summon"
        },
        "-NÃO PODEM ser negados por cartas como Saber Hole ou Rai-oh": {
            "negados": "concept/negation",
            "Saber Hole": "card/saber-hole",
            "Rai-oh": "card/rai-oh",
        },
        "-Pode ser negado com cartas como Solemn ou Bribe.": {
            "negado": "concept/negation",
            "Solemn": "card/solemn",
            "Bribe": "card/bribe",
        },
    }
    nodes = _bullets(texts)
    facts = {(f.subject, f.predicate, f.object) for f in derive(nodes, glossary, capabilities)}
    assert facts == {
        ("concept/non-inherent-special-summon", "not_negatable_by", "concept/summon-negation"),
        ("concept/non-inherent-special-summon", "negatable_by", "concept/activation-negation"),
    }
    # without the cards' capabilities, the cards say nothing
    assert derive(nodes, glossary) == []


def _bullets(texts: dict[str, dict[str, str]]) -> list[Node]:
    nodes, start = [], 0
    for k, (text, names) in enumerate(texts.items()):
        mentions = [Mention(e, text.index(w), text.index(w) + len(w)) for w, e in names.items()]
        span = Span("doc", start, start + len(text))
        for p in read_sentence(text, mentions, "pt").propositions:
            props = {**p.to_props(), "clause": [start + p.start, start + p.end]}
            nodes.append(
                Node(
                    f"doc/p{k}/st",
                    "Statement",
                    text=text,
                    span=span,
                    parent=f"doc/p{k}",
                    props=props,
                )
            )
        start += len(text) + 1
    return nodes


SUMMON_KINDS = [
    Fact("concept/inherent-special-summon", "broader", "concept/special-summon", None, "curated"),
    Fact(
        "concept/non-inherent-special-summon", "broader", "concept/special-summon", None, "curated"
    ),
]


def test_a_bullet_saying_a_summon_starts_no_chain() -> None:
    """ "-Essa ação NÃO GERA chain." under the inherent ones, "-O efeito que os invoca sempre
    gera chain." under the non-inherent ones; a sentence that is no bullet does not take the
    topic."""
    nodes = _bullets(
        {
            "Os inerentes são aqueles que se invocam sozinhos.": {
                "Os inerentes": "concept/inherent-special-summon"
            },
            "-Essa ação NÃO GERA chain.": {"chain": "concept/chain"},
            "Os não-inerentes são aqueles invocados por um efeito.": {
                "Os não-inerentes": "concept/non-inherent-special-summon"
            },
            "-O efeito que os invoca sempre gera chain.": {"chain": "concept/chain"},
            "O jogador do turno pode iniciar qualquer chain.": {"chain": "concept/chain"},
        }
    )
    facts = {(f.subject, f.predicate, f.object) for f in derive(nodes, SUMMON_KINDS)}
    assert facts == {
        ("concept/inherent-special-summon", "does_not_start_chain", "concept/chain"),
        ("concept/non-inherent-special-summon", "starts_chain", "concept/chain"),
    }


def test_a_bullet_naming_only_monsters_lists_what_the_topic_summons() -> None:
    """ "-Cyber Dragon, Chaos Sorcerer" under the inherent ones: each card is a monster (its
    instance_of facts), so each is summoned by that kind; a Spell named the same way is not."""
    cards = [
        Fact("card/cyber-dragon", "instance_of", "concept/monster-card", None, "inferred"),
        Fact("card/chaos-sorcerer", "instance_of", "concept/monster-card", None, "inferred"),
        Fact("card/monster-reborn", "instance_of", "concept/spell-card", None, "inferred"),
    ]
    nodes = _bullets(
        {
            "Os inerentes são aqueles que se invocam sozinhos.": {
                "Os inerentes": "concept/inherent-special-summon"
            },
            "-Cyber Dragon, Chaos Sorcerer.": {
                "Cyber Dragon": "card/cyber-dragon",
                "Chaos Sorcerer": "card/chaos-sorcerer",
            },
            "-Monster Reborn, Cyber Dragon.": {
                "Monster Reborn": "card/monster-reborn",
                "Cyber Dragon": "card/cyber-dragon",
            },
        }
    )
    facts = {(f.subject, f.predicate, f.object) for f in derive(nodes, SUMMON_KINDS, cards)}
    assert facts == {
        ("card/cyber-dragon", "summoned_by", "concept/inherent-special-summon"),
        ("card/chaos-sorcerer", "summoned_by", "concept/inherent-special-summon"),
    }


def _read(text: str, names: dict[str, str]) -> list[Node]:
    mentions = [Mention(e, text.index(w), text.index(w) + len(w)) for w, e in names.items()]
    span = Span("doc", 0, len(text))
    return [
        Node(
            f"doc/p/st-{k}",
            "Statement",
            text=text,
            span=span,
            parent="doc/p",
            props={**p.to_props(), "clause": [p.start, p.end]},
        )
        for k, p in enumerate(read_sentence(text, mentions, "pt").propositions)
    ]


def test_a_cost_that_may_not_bring_life_points_to_an_amount_limits_costs() -> None:
    names = {"custos": "concept/cost", "Pontos de Vida": "concept/life-points"}
    glossary = [Fact("concept/lp-cost", "broader", "concept/cost", None, "curated")]
    text = (
        "Você não pode pagar custos se isso fizer com que seus Pontos de Vida sejam reduzidos a 0."
    )
    (fact,) = derive(_read(text, names), glossary)
    assert (fact.subject, fact.predicate, fact.object) == (
        "doc/p",
        "limits_cost",
        "concept/lp-cost",
    )
    assert fact.props == {"min_remaining": 1} and fact.authority == "document"
    # a cost that may be paid limits nothing
    text = "Você pode pagar custos mesmo que seus Pontos de Vida sejam reduzidos a 0."
    assert derive(_read(text, names), glossary) == []


def test_only_what_is_activated_forms_a_chain() -> None:
    names = {"cadeia": "concept/chain", "ativados": "concept/activation"}
    text = "Somente os cards que poderiam ser ativados podem formar uma cadeia."
    (fact,) = derive(_read(text, names), [])
    assert (fact.subject, fact.predicate, fact.object) == (
        "concept/chain",
        "formed_only_by",
        "concept/activation",
    )
    # without "only" nothing is said of what alone forms it
    text = "Os cards que foram ativados podem formar uma cadeia."
    assert derive(_read(text, names), []) == []


def test_a_cards_own_case_is_no_general_limit() -> None:
    names = {
        "custo": "concept/cost",
        "Pontos de Vida": "concept/life-points",
        "Parede Espelhada": "card/mirror-wall",
    }
    text = "Se seus Pontos de Vida forem 2000, você não pode pagar o custo de Parede Espelhada."
    assert derive(_read(text, names), []) == []


def test_spells_and_traps_listed_as_summoning_under_a_summon_kind_summon_that_way() -> None:
    nodes = _bullets(
        {
            "Os não-inerentes são assim.": {"não-inerentes": "concept/non-inherent-special-summon"},
            "-Qualquer carta que invoque: Monster Reborn, Zombie Master.": {
                "invoque": "concept/summon",
                "Monster Reborn": "card/monster-reborn",
                "Zombie Master": "card/zombie-master",
            },
        }
    )
    cards = [
        Fact("card/monster-reborn", "instance_of", "concept/spell-card", None, "curated"),
        Fact("card/zombie-master", "instance_of", "concept/monster-card", None, "curated"),
    ]
    facts = {(f.subject, f.predicate, f.object) for f in derive(nodes, SUMMON_KINDS, cards)}
    assert ("card/monster-reborn", "summoned_by", "concept/non-inherent-special-summon") in facts
    # a monster named there is one whose effect summons, not one summoned that way
    assert not any(f[0] == "card/zombie-master" for f in facts)


def test_a_speed_responding_to_no_other_effect_responds_to_no_speed() -> None:
    # "quaisquer outros efeitos": effects in general stand for every Spell Speed
    text = (
        "Efeitos de Velocidade de Magia 1 não podem ser encadeados em resposta a quaisquer "
        "outros efeitos."
    )
    at = text.rindex("efeitos")
    nodes = statements(text, [Mention("concept/effect", at, at + len("efeitos"))])
    facts = {(f.subject, f.predicate, f.object) for f in derive(nodes, GLOSSARY)}
    assert facts == {
        ("concept/spell-speed-1", "cannot_respond_to", "concept/spell-speed-2"),
        ("concept/spell-speed-1", "cannot_respond_to", "concept/spell-speed-3"),
    }


def test_a_statement_naming_one_source_wins_over_one_listing_several() -> None:
    # the second sentence lists two Spell Speeds before its verb: it says less of each, and its
    # "Speed 2 responds to Speed 3" contradicts the first sentence's own rule for Speed 2
    first = statements(
        "Velocidade de Magia 2 pode ser usada em resposta a Velocidade de Magia 1, mas não a "
        "Velocidade de Magia 3."
    )
    second = statements(
        "Velocidade de Magia 2 e Velocidade de Magia 3 podem ser usadas em resposta a "
        "Velocidade de Magia 3."
    )
    second = [replace(n, id=n.id.replace("doc/p", "doc/q"), parent="doc/q") for n in second]
    facts = {(f.subject, f.predicate, f.object) for f in derive([*first, *second], GLOSSARY)}
    assert ("concept/spell-speed-2", "cannot_respond_to", "concept/spell-speed-3") in facts
    assert ("concept/spell-speed-2", "can_respond_to", "concept/spell-speed-3") not in facts
    assert ("concept/spell-speed-3", "can_respond_to", "concept/spell-speed-3") in facts
