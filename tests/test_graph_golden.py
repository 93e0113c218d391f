"""Golden facts of the graph built from the real corpus (regenerate only on purpose).

Counts observed when these goldens were written: 3 documents, 13 Edison rules, 16 steps (4 SEGOC,
7 Damage Step sub-steps, 5 Tag turn-order steps), 79 examples (42 Edison, 37 Tag), 165 cards (all
with pt and en), 189 concepts, 0 unlinked card-name candidates.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from kb.graph import KnowledgeGraph
from kb.model import TEXT_TYPES, Fact
from kb.service import RulingsService

if TYPE_CHECKING:
    from conftest import Built

EDISON_RULES = {
    1: "O Jogador que Começa Compra um Card",
    2: "Somente 1 Magia de Campo Ativa",
    3: "Condições dos Monstros Union",
    4: "Efeitos de Gatilho Obrigatórios que Dependem de Fase",
    5: "Bloqueio de Zona por Monstros de Armadilha",
    6: "Prioridade em Efeitos de Ignição",
    7: "Efeitos Simultâneos Ativam em Corrente",
    8: "Os 7 Tempos da Etapa de Dano",
    9: "Local e Reconhecimento de Gatilhos",
    10: "Custos de Pontos de Vida",
    11: "Descarte de Final de Turno",
    12: "Loops Infinitos",
    13: "Monstros com 0 de ATK",
}


def facts(
    kg: KnowledgeGraph, subject: str, predicate: str, obj: str, authority: str | None = None
) -> Iterator[Fact]:
    for f in kg.out(subject, predicate):
        if f.object == obj and (authority is None or f.authority == authority):
            yield f


def document_fact(kg: KnowledgeGraph, subject: str, predicate: str, obj: str) -> Fact:
    """The (first) fact the documents state, failing with what exists instead."""
    found = list(facts(kg, subject, predicate, obj, "document"))
    assert found, f"no document fact {subject} {predicate} {obj}; has {kg.out(subject, predicate)}"
    return found[0]


# --- structure -------------------------------------------------------------------------------


def test_edison_has_13_numbered_rules_with_titles(kg: KnowledgeGraph) -> None:
    rules = sorted(
        (r for r in kg.of_type("Rule") if r.span and r.span.document == "edison"),
        key=lambda r: r.order or 0,
    )
    assert [r.id for r in rules] == [f"edison/rule-{n:02d}" for n in range(1, 14)]
    assert {r.props["number"]: r.props["title"] for r in rules} == EDISON_RULES
    assert all(r.label_pt == r.props["title"] for r in rules)
    assert len(kg.of_type("Rule")) == 13


def test_damage_step_has_7_ordered_substeps(kg: KnowledgeGraph) -> None:
    ids = [f"edison/rule-08/substep-{n:02d}" for n in range(1, 8)]
    subs = [kg.node(i) for i in ids]
    assert all(s.type == "Step" and s.props["kind"] == "damage-substep" for s in subs)
    assert [s.order for s in subs] == list(range(1, 8))
    assert subs[0].props["title"] == "Começo da Etapa de Dano"
    assert subs[3].props["title"] == "Durante o Cálculo de Dano"
    assert subs[6].props["title"] == "Final da Etapa de Dano"
    assert all(s.span and s.span.start < t.span.start for s, t in itertools.pairwise(subs))  # type: ignore[union-attr]
    for a, b in itertools.pairwise(ids):
        assert [f.object for f in kg.out(a, "precedes")] == [b]
    assert kg.out(ids[-1], "precedes") == []
    assert [n.id for n in kg.of_type("Step") if n.props.get("kind") == "damage-substep"] == ids


def test_damage_substeps_state_what_may_activate(kg: KnowledgeGraph) -> None:
    sub4 = "edison/rule-08/substep-04"
    assert document_fact(kg, sub4, "forbids", "concept/spell-trap-card").source == (
        "edison/rule-08/substep-04/p-03"
    )
    assert document_fact(kg, sub4, "allows", "concept/quick-effect").source == (
        "edison/rule-08/substep-04/p-02"
    )


def test_segoc_has_4_ordered_steps(kg: KnowledgeGraph) -> None:
    ids = [f"edison/rule-07/step-{n:02d}" for n in range(1, 5)]
    steps = [kg.node(i) for i in ids]
    assert all(s.type == "Step" and s.props["kind"] == "segoc-step" for s in steps)
    assert [s.text.split(":")[0] for s in steps] == [f"• Passo {n}" for n in range(1, 5)]  # type: ignore[union-attr]
    for a, b in itertools.pairwise(ids):
        assert [f.object for f in kg.out(a, "precedes")] == [b]
    assert len([n for n in kg.of_type("Step") if n.props.get("kind") == "segoc-step"]) == 4


def test_tag_turn_order_has_5_steps(kg: KnowledgeGraph) -> None:
    parent = "tag/turn-procedure/turn-order"
    steps = [kg.node(c) for c in kg.children(parent) if kg.node(c).type == "Step"]
    assert [s.id for s in steps] == [f"{parent}/step-{n:02d}" for n in range(1, 6)]
    assert [s.text for s in steps] == [
        "- Equipe 1 Duelista 1A",
        "- Equipe 2 Duelista 2A",
        "- Equipe 1 Duelista 1B",
        "- Equipe 2 Duelista 2B",
        "- Equipe 1 Duelista 1A",
    ]
    assert (
        len([f for f in kg.facts if f.predicate == "precedes" and f.subject.startswith(parent)])
        == 4
    )


def test_examples(kg: KnowledgeGraph) -> None:
    examples = kg.of_type("Example")
    assert len(examples) >= 60
    by_doc = {
        d: sum(1 for e in examples if e.span and e.span.document == d) for d in ("edison", "tag")
    }
    assert by_doc["edison"] >= 35 and by_doc["tag"] >= 30
    for e in examples:
        targets = [f.object for f in kg.out(e.id, "example_of")]
        assert targets and all(t in kg and kg.node(t).type in TEXT_TYPES for t in targets), e.id


@pytest.mark.parametrize(
    "node_id",
    [
        "edison/rule-05",
        "edison/rule-05/example-03",
        "card/dark-armed-dragon",
        "tag/turn-procedure/turn-order/step-04",
        "edison/fl/forbidden",
        "rulings/special-summon/inherent",
        "rulings/spell-speed/speed-3",
        "concept/inherent-special-summon",
        "concept/summon-negation",
        "format/edison",
        "format/tag",
        "format/general",
    ],
)
def test_well_known_ids_exist(kg: KnowledgeGraph, node_id: str) -> None:
    assert node_id in kg


def test_well_known_nodes(kg: KnowledgeGraph) -> None:
    assert kg.node("edison/rule-05/example-03").type == "Example"
    assert kg.node("edison/rule-05/example-03").parent == "edison/rule-05"
    assert "Jinzo" in (kg.node("edison/rule-05/example-03").text or "")
    dad = kg.node("card/dark-armed-dragon")
    assert (dad.type, dad.label_en, dad.label_pt) == (
        "Card",
        "Dark Armed Dragon",
        "Dragão Negro Armado",
    )


# --- cards and linking -----------------------------------------------------------------------


def test_cards_are_bilingual(kg: KnowledgeGraph, service: RulingsService) -> None:
    cards = kg.of_type("Card")
    bilingual = [c for c in cards if c.label_pt and c.label_en]
    assert len(bilingual) >= 150
    stats = service.stats()
    assert stats["cards"] == len(cards)
    assert stats["cards_bilingual"] == len(bilingual)


def test_every_card_name_candidate_is_linked(service: RulingsService) -> None:
    # Known gap history: 3 candidates ("Luminoso", an attribute word in a Tag example) until the
    # glossary gained the archetype concepts; now every candidate links.
    stats = service.stats()
    print("unlinked card mentions:", stats["unlinked"])
    assert stats["unlinked_card_mentions"] == len(stats["unlinked"]) == 0, stats["unlinked"]


# --- typed facts stated by the documents -----------------------------------------------------


def test_cyber_dragon_is_an_inherent_special_summon(kg: KnowledgeGraph) -> None:
    f = document_fact(kg, "card/cyber-dragon", "summoned_by", "concept/inherent-special-summon")
    assert f.source is not None
    assert f.source.startswith("rulings/special-summon/inherent/")
    source = kg.node(f.source)
    assert source.props["kind"] == "entry" and source.props["entity"] == "card/cyber-dragon"
    assert source.text == "Cyber Dragon"
    assert f.props["exception"] is False


def test_gorz_is_a_non_inherent_special_summon(kg: KnowledgeGraph) -> None:
    f = document_fact(
        kg,
        "card/gorz-the-emissary-of-darkness",
        "summoned_by",
        "concept/non-inherent-special-summon",
    )
    assert f.source is not None and f.source.startswith("rulings/special-summon/non-inherent/")
    assert kg.node(f.source).text == "Gorz, Emissary of Darkness"
    assert not list(
        facts(
            kg,
            "card/gorz-the-emissary-of-darkness",
            "summoned_by",
            "concept/inherent-special-summon",
        )
    )


def test_summon_lists_classify_each_card_once(kg: KnowledgeGraph) -> None:
    stated = [f for f in kg.facts if f.predicate == "summoned_by" and f.authority == "document"]
    assert len(stated) >= 25
    by_card: dict[str, set[str]] = {}
    for f in stated:
        by_card.setdefault(f.subject, set()).add(f.object)
    assert {k: v for k, v in by_card.items() if len(v) > 1} == {}


@pytest.mark.parametrize(
    "card", ["solemn-judgment", "solemn-warning", "saber-hole", "thunder-king-rai-oh"]
)
def test_summon_negators(kg: KnowledgeGraph, card: str) -> None:
    f = document_fact(kg, f"card/{card}", "has_capability", "concept/summon-negation")
    assert f.source == "rulings/special-summon/inherent/rules/p-01"


@pytest.mark.parametrize(
    "card", ["divine-wrath", "herald-of-perfection", "light-and-darkness-dragon"]
)
def test_activation_negators(kg: KnowledgeGraph, card: str) -> None:
    f = document_fact(kg, f"card/{card}", "has_capability", "concept/activation-negation")
    assert f.source == "rulings/special-summon/inherent/rules/p-02"


def test_summon_negation_rules(kg: KnowledgeGraph) -> None:
    inherent, non = "concept/inherent-special-summon", "concept/non-inherent-special-summon"
    assert document_fact(kg, inherent, "negatable_by", "concept/summon-negation")
    assert document_fact(kg, inherent, "not_negatable_by", "concept/activation-negation")
    assert document_fact(kg, non, "not_negatable_by", "concept/summon-negation")
    assert document_fact(kg, non, "negatable_by", "concept/activation-negation")
    assert document_fact(kg, inherent, "does_not_start_chain", "concept/chain")
    assert document_fact(kg, non, "starts_chain", "concept/chain")


def test_spell_speeds(kg: KnowledgeGraph) -> None:
    speed = {n: f"concept/spell-speed-{n}" for n in (1, 2, 3)}
    can = {(f.subject, f.object) for f in kg.facts if f.predicate == "can_respond_to"}
    cannot = {(f.subject, f.object) for f in kg.facts if f.predicate == "cannot_respond_to"}
    assert can == {
        (speed[2], speed[1]),
        (speed[2], speed[2]),
        (speed[3], speed[1]),
        (speed[3], speed[2]),
        (speed[3], speed[3]),
    }
    assert {(speed[1], speed[n]) for n in (1, 2, 3)} | {(speed[2], speed[3])} == cannot
    assert can.isdisjoint(cannot)
    curated = list(facts(kg, "concept/counter-trap", "has_spell_speed", speed[3], "curated"))
    assert len(curated) == 1 and curated[0].props["file"] == "glossary.yaml"


def test_card_spell_speed_is_inferred_from_its_class(kg: KnowledgeGraph) -> None:
    (f,) = facts(kg, "card/solemn-judgment", "has_spell_speed", "concept/spell-speed-3", "inferred")
    assert f.props == {"via": "concept/counter-trap"} and f.source is None


# --- formats ---------------------------------------------------------------------------------


def test_every_edison_rule_applies_in_edison_and_differs_from_general(kg: KnowledgeGraph) -> None:
    intro = "edison/differences/p-01"
    for rule in kg.of_type("Rule"):
        f = document_fact(kg, rule.id, "applies_in", "format/edison")
        assert f.source == rule.id
        assert document_fact(kg, rule.id, "differs_from", "format/general").source == intro
    assert "formato atual" in (kg.node(intro).text or "")


@pytest.mark.parametrize(("document", "fmt"), [("tag", "tag"), ("rulings", "general")])
def test_every_section_applies_in_its_document_format(
    kg: KnowledgeGraph, document: str, fmt: str
) -> None:
    sections = [s for s in kg.of_type("Section") if s.span and s.span.document == document]
    assert len(sections) >= 6
    for s in sections:
        assert document_fact(kg, s.id, "applies_in", f"format/{fmt}").source == s.id


def test_documents_apply_in_their_manifest_format(kg: KnowledgeGraph) -> None:
    for doc, fmt in (("edison", "edison"), ("rulings", "general"), ("tag", "tag")):
        assert document_fact(kg, doc, "applies_in", f"format/{fmt}").source == doc


def test_forbidden_and_limited_categories_lack_their_card_lists(kg: KnowledgeGraph) -> None:
    fl = "edison/fl"
    categories = [c for c in kg.children(fl) if kg.node(c).type == "Section"]
    assert categories == [f"{fl}/forbidden", f"{fl}/limited", f"{fl}/semi-limited"]
    for cat in categories:
        missing = [c for c in kg.children(cat) if kg.node(c).props.get("cards_missing")]
        assert len(missing) == 1, cat
        assert (kg.node(missing[0]).text or "").startswith("Os seguintes cards são")
    flagged = {n.parent for n in kg.nodes if n.props.get("cards_missing")}
    assert flagged == set(categories)


# --- provenance ------------------------------------------------------------------------------


def test_every_document_fact_cites_an_existing_text_node(kg: KnowledgeGraph) -> None:
    stated = [f for f in kg.facts if f.authority == "document" and f.predicate != "part_of"]
    by_manifest = []
    for f in stated:
        assert f.source is not None and f.source in kg, f
        if kg.node(f.source).type == "Document":
            by_manifest.append(f)  # "this document applies in format X" comes from the manifest
            continue
        assert kg.node(f.source).type in TEXT_TYPES, f
    assert sorted((f.subject, f.predicate) for f in by_manifest) == [
        ("edison", "applies_in"),
        ("rulings", "applies_in"),
        ("tag", "applies_in"),
    ]


def test_curated_and_inferred_facts_say_where_they_come_from(kg: KnowledgeGraph) -> None:
    for f in kg.facts:
        if f.authority == "curated" and f.props["file"].startswith("claims/"):
            # A curated claim's facts cite the passage whose text states the claim.
            assert f.subject.startswith("claim/") and f.source in kg, f
            assert kg.node(f.source).span is not None
            assert isinstance(f.props["line"], int)
        elif f.authority == "curated":
            assert f.source is None and f.props["file"] in ("cards.yaml", "glossary.yaml"), f
            assert isinstance(f.props["line"], int)
        elif f.authority == "inferred" and "via" in f.props:
            # Inferred from a class fact (a Counter Trap is Spell Speed 3).
            assert f.source is None and f.props["via"] in kg, f
        elif f.authority == "inferred":
            # Read from card data: the card's password and the datasets it came from.
            # (A card not yet released has neither: its id is all the card data gives.)
            key = f.props.get("password", f.props.get("konami_id"))
            node = kg.node(f.subject)
            released = "password" in node.props or "konami_id" in node.props
            assert f.source is None and (isinstance(key, int) or not released), f
            assert f.props["dataset"], f
        else:
            assert f.authority == "document"
        assert f.subject in kg and f.object in kg, f


def test_build_report_matches_the_graph(built: Built) -> None:
    nodes, edges = built.kg.counts()
    assert built.report.node_counts == nodes
    assert built.report.edge_counts == edges
    assert built.artifact.manifest["node_counts"] == nodes
    assert nodes["Document"] == 3 and nodes["Rule"] == 13 and nodes["Step"] == 16
