"""Curated tables: what a card / concept entry becomes, and errors that name file and line."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from ingest.corpus import load_manifest
from ingest.curated import load_cards, load_glossary
from ingest.pipeline import ingest_corpus
from kb.errors import IngestError
from kb.graph import KnowledgeGraph


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text).lstrip("\n"), "utf-8")
    return path


CARDS = """
# header
version: 1
cards:
  - id: solemn-judgment
    en: Solemn Judgment
    pt: Julgamento Solene
    aliases: [Solemn Judgement]
    card_type: trap
    property: counter
    negates: [summon, spell-activation]
  - id: cyber-dragon
    en: Cyber Dragon
    pt: Dragão Cibernético
    card_type: monster
    monster_types: [effect]
    special_summon: inherent
    effect_types: [continuous]
    level: 5
"""


def test_cards_become_nodes_facts_and_linker_entries(tmp_path: Path) -> None:
    cur = load_cards(write(tmp_path, "cards.yaml", CARDS))
    assert [n.id for n in cur.nodes] == ["card/solemn-judgment", "card/cyber-dragon"]
    sj, cd = cur.nodes
    assert (sj.label_en, sj.label_pt, sj.type) == ("Solemn Judgment", "Julgamento Solene", "Card")
    assert sj.props["line"] == 4 and cd.props["line"] == 11
    assert cd.props["level"] == 5 and cd.props["special_summon"] == "inherent"
    facts = {(f.subject, f.predicate, f.object) for f in cur.facts}
    assert facts == {
        ("card/solemn-judgment", "instance_of", "concept/trap-card"),
        ("card/solemn-judgment", "instance_of", "concept/counter-trap"),
        ("card/solemn-judgment", "has_capability", "concept/summon-negation"),
        ("card/solemn-judgment", "has_capability", "concept/activation-negation"),
        ("card/cyber-dragon", "instance_of", "concept/monster-card"),
        ("card/cyber-dragon", "instance_of", "concept/effect-monster"),
        ("card/cyber-dragon", "has_effect_type", "concept/continuous-effect"),
        ("card/cyber-dragon", "summoned_by", "concept/inherent-special-summon"),
    }
    for f in cur.facts:
        assert f.authority == "curated" and f.source is None
        assert f.props["file"] == "cards.yaml" and f.props["line"] in (4, 11)
    scopes = {f.props.get("scope") for f in cur.facts if f.predicate == "has_capability"}
    assert scopes == {"summon", "spell-activation"}
    entry = cur.entries[0]
    assert entry.surfaces == ("Solemn Judgment", "Julgamento Solene", "Solemn Judgement")


@pytest.mark.parametrize(
    ("old", "new", "line", "message"),
    [
        ("    en: Cyber Dragon\n", "", 11, "lacks 'en'"),
        ("  - id: cyber-dragon", "  - id: cyber-dragons", 11, "is not the slug of"),
        ("card_type: monster", "card_type: wizard", 11, "unknown card_type"),
        ("    monster_types: [effect]\n", "", 11, "lacks 'monster_types'"),
        ("    property: counter\n", "", 4, "lacks 'property'"),
        ("property: counter", "property: quick", 4, "unknown property"),
        ("negates: [summon, spell-activation]", "negates: [everything]", 4, "unknown negates"),
        ("special_summon: inherent", "special_summon: sometimes", 11, "unknown special_summon"),
        ("  - id: cyber-dragon", "  - id: solemn-judgment", 11, "duplicate card id"),
        ("  - id: cyber-dragon\n", "  - just a string\n  - id: cyber-dragon\n", 11, "mapping"),
        ("    card_type: trap\n", "    card_type: trap: x\n", 8, "invalid YAML"),
    ],
)
def test_malformed_card_names_file_and_line(
    tmp_path: Path, old: str, new: str, line: int, message: str
) -> None:
    text = textwrap.dedent(CARDS).lstrip("\n")
    assert old in text
    path = write(tmp_path, "cards.yaml", text.replace(old, new, 1))
    with pytest.raises(IngestError, match=message) as info:
        load_cards(path)
    assert info.value.path == str(path)
    assert info.value.line == line
    assert str(info.value).startswith(f"{path}:{line}: ")


@pytest.mark.parametrize(
    ("text", "message"),
    [("version: 1\n", "expected a mapping with a list under 'cards'"), ("cards: 3\n", "list")],
)
def test_cards_file_shape(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(IngestError, match=message):
        load_cards(write(tmp_path, "cards.yaml", text))


def test_missing_and_non_utf8_tables(tmp_path: Path) -> None:
    with pytest.raises(IngestError, match="file not found"):
        load_cards(tmp_path / "cards.yaml")
    bad = tmp_path / "glossary.yaml"
    bad.write_bytes(b"concepts:\n  - id: caf\xe9\n")
    with pytest.raises(IngestError, match="not valid UTF-8") as info:
        load_glossary(bad)
    assert info.value.path == str(bad)


GLOSSARY = """
concepts:
  - id: trap-card
    en: Trap Card
    pt: Card de Armadilha
  - id: counter-trap
    en: Counter Trap
    pt: Armadilha de Resposta
    aliases: [Counter Traps]
    broader: trap-card
    spell_speed: 3
    definition_en: "A Spell Speed 3 Trap Card."
  - id: spell-speed-3
    en: Spell Speed 3
    pt: Velocidade de Magia 3
"""


def test_glossary_becomes_concepts_with_curated_facts(tmp_path: Path) -> None:
    cur = load_glossary(write(tmp_path, "glossary.yaml", GLOSSARY))
    assert [n.id for n in cur.nodes] == [
        "concept/trap-card",
        "concept/counter-trap",
        "concept/spell-speed-3",
    ]
    ct = cur.nodes[1]
    assert (
        ct.props["spell_speed"] == 3 and ct.props["definition_en"] == "A Spell Speed 3 Trap Card."
    )
    assert {(f.subject, f.predicate, f.object, f.props["line"]) for f in cur.facts} == {
        ("concept/counter-trap", "has_spell_speed", "concept/spell-speed-3", 5),
        ("concept/counter-trap", "broader", "concept/trap-card", 5),
    }
    assert cur.entries[1].surfaces == ("Counter Trap", "Armadilha de Resposta", "Counter Traps")


EFFECTS = """
concepts:
  - id: activation
    en: Activation
    pt: Ativação
  - id: continuous-effect
    en: Continuous Effect
    pt: Efeito Contínuo
    activated: false
"""


def test_an_effect_kind_applying_without_activation_is_a_fact(tmp_path: Path) -> None:
    cur = load_glossary(write(tmp_path, "glossary.yaml", EFFECTS))
    assert {(f.subject, f.predicate, f.object, f.authority) for f in cur.facts} == {
        ("concept/continuous-effect", "applies_without", "concept/activation", "curated")
    }
    bad = write(tmp_path, "bad.yaml", EFFECTS.replace("activated: false", "activated: nope"))
    with pytest.raises(IngestError, match="activated must be true or false"):
        load_glossary(bad)


@pytest.mark.parametrize(
    ("old", "new", "line", "message"),
    [
        ("spell_speed: 3", "spell_speed: 4", 5, "spell_speed must be 1, 2, 3 or none"),
        ("spell_speed: 3", "introduced: soon", 5, "introduced must be a year"),
        ("broader: trap-card", "broader: nothing", 5, "refers to unknown 'concept/nothing'"),
        ("  - id: spell-speed-3", "  - id: Spell Speed 3", 12, "is not a slug"),
        ("  - id: spell-speed-3", "  - id: trap-card", 12, "duplicate concept id"),
        ("    pt: Velocidade de Magia 3\n", "", 12, "lacks 'pt'"),
    ],
)
def test_malformed_concept_names_file_and_line(
    tmp_path: Path, old: str, new: str, line: int, message: str
) -> None:
    text = textwrap.dedent(GLOSSARY).lstrip("\n")
    assert old in text
    path = write(tmp_path, "glossary.yaml", text.replace(old, new, 1))
    with pytest.raises(IngestError, match=message) as info:
        load_glossary(path)
    assert info.value.line == line and f"glossary.yaml:{line}:" in str(info.value)


# --- the manifest ----------------------------------------------------------------------------


def test_manifest_lists_the_three_documents(corpus_dir: Path, documents: dict[str, str]) -> None:
    docs = load_manifest(corpus_dir).documents
    assert [(d.id, d.format) for d in docs] == [
        ("edison", "edison"),
        ("rulings", "general"),
        ("tag", "tag"),
    ]
    assert all(d.text == documents[d.id] for d in docs)


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (
            ("format: tag", "format: speed"),
            "document 'tag': unknown format 'speed' \\(field format",
        ),
        (
            ("  - id: tag\n    parser", "  - id: rulings\n    parser"),
            "duplicate document id 'rulings' \\(field id\\)",
        ),
        (("    title_en: Tag Duel rules overview\n", ""), "document 'tag' lacks title_en"),
        (("documents:", "docs:"), "expected a 'documents' list"),
        (
            ("file: 004_30f7390a4e398762.txt", "file: missing.txt"),
            "field file names a missing file",
        ),
        (("parser: tag ", "parser: tagg "), "unknown parser 'tagg' \\(field parser"),
        (("  - id: goat\n", "  - id: tag\n"), "duplicate format id 'tag'"),
        (("  - id: goat\n", "  - id: Goat Format\n"), "must be kebab-case"),
    ],
)
def test_malformed_manifest(corpus_copy: Path, edit: tuple[str, str], message: str) -> None:
    path = corpus_copy / "manifest.yaml"
    text = path.read_text("utf-8")
    assert edit[0] in text
    path.write_text(text.replace(edit[0], edit[1], 1), "utf-8")
    with pytest.raises(IngestError, match=message) as info:
        ingest_corpus(corpus_copy)
    assert info.value.path == str(path)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "file is empty"),
        (b"  \n\t\n", "file is empty"),
        (b"Regra 1\n\xff\xfe texto", "not valid UTF-8"),
        (b"PK\x03\x04\x00\x00binary", "a binary file"),
    ],
)
def test_bad_document_files(corpus_copy: Path, content: bytes, message: str) -> None:
    (corpus_copy / "004_30f7390a4e398762.txt").write_bytes(content)
    with pytest.raises(IngestError, match=message):
        load_manifest(corpus_copy)


# --- the real tables in the graph --------------------------------------------------------------


def test_real_curated_facts(kg: KnowledgeGraph) -> None:
    (speed,) = [
        f
        for f in kg.out("concept/counter-trap", "has_spell_speed")
        if f.object == "concept/spell-speed-3"
    ]
    assert speed.authority == "curated" and speed.props["file"] == "glossary.yaml"
    cyber = {
        (f.predicate, f.object) for f in kg.out("card/cyber-dragon") if f.authority == "curated"
    }
    assert ("summoned_by", "concept/inherent-special-summon") in cyber
    assert ("instance_of", "concept/effect-monster") in cyber
    assert kg.node("card/cyber-dragon").label_pt == "Dragão Cibernético"


def test_every_card_and_concept_has_labels(kg: KnowledgeGraph) -> None:
    for n in kg.of_type("Card", "Concept"):
        # Cards of the card database that were never printed in Portuguese have no pt name.
        assert n.label_en and (n.label_pt or n.props.get("origin") == "carddb"), n.id
    assert len(kg.of_type("Concept")) >= 150


KINDS = """
concepts:
  - id: limited
    en: Limited
    pt: Limitado
    disjoint_with: [semi-limited]
  - id: semi-limited
    en: Semi-Limited
    pt: Semi-Limitado
"""


def test_kinds_excluding_each_other_are_facts(tmp_path: Path) -> None:
    cur = load_glossary(write(tmp_path, "glossary.yaml", KINDS))
    assert {(f.subject, f.predicate, f.object) for f in cur.facts} == {
        ("concept/limited", "disjoint_with", "concept/semi-limited")
    }
    bad = KINDS.replace("disjoint_with: [semi-limited]", "disjoint_with: [nowhere]")
    with pytest.raises(IngestError, match="unknown"):
        load_glossary(write(tmp_path, "glossary.yaml", bad))
