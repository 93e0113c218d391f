"""Parsers and the tree they build: exact spans into the corpus files, nesting, ids and order."""

from __future__ import annotations

import itertools
import json
import re
from collections import defaultdict
from typing import TYPE_CHECKING

import pytest

from ingest.builder import DocumentBuilder
from ingest.documents.edison import parse_edison, permission
from ingest.documents.tag import parse_tag
from ingest.segment import Segment
from kb.graph import KnowledgeGraph
from kb.model import TEXT_TYPES, Node, Span

if TYPE_CHECKING:
    from conftest import Built

ID = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*(?:/[a-z0-9]+(?:-[a-z0-9]+)*)*")


def text_nodes(kg: KnowledgeGraph, document: str | None = None) -> list[Node]:
    nodes = [n for n in kg.nodes if n.type in TEXT_TYPES]
    if document is not None:
        nodes = [n for n in nodes if n.span is not None and n.span.document == document]
    return nodes


# --- the real corpus ---------------------------------------------------------------------------


def test_every_text_node_is_an_exact_slice_of_its_corpus_file(
    kg: KnowledgeGraph, documents: dict[str, str]
) -> None:
    nodes = text_nodes(kg)
    assert len(nodes) > 300
    for n in nodes:
        assert n.span is not None and n.text, n.id
        assert n.span.document in documents, n.id
        assert 0 <= n.span.start < n.span.end <= len(documents[n.span.document]), n.id
        assert documents[n.span.document][n.span.start : n.span.end] == n.text, n.id


def test_every_document_is_parsed(kg: KnowledgeGraph, documents: dict[str, str]) -> None:
    docs = kg.of_type("Document")
    assert sorted(d.id for d in docs) == sorted(documents) == ["edison", "rulings", "tag"]
    for d in docs:
        assert d.span == Span(d.id, 0, len(documents[d.id]))
        assert len(text_nodes(kg, d.id)) > 50


def test_artifact_stores_the_exact_document_texts(built: Built, documents: dict[str, str]) -> None:
    assert built.artifact.documents == documents


@pytest.mark.parametrize("document", ["edison", "rulings", "tag"])
def test_text_nodes_overlap_only_when_nested(kg: KnowledgeGraph, document: str) -> None:
    """Two text spans of a document are disjoint unless one node lies inside its ancestor."""
    nodes = sorted(text_nodes(kg, document), key=lambda n: (n.span.start, -n.span.end))  # type: ignore[union-attr]
    for a, b in itertools.combinations(nodes, 2):
        assert a.span is not None and b.span is not None
        if a.span.start < b.span.end and b.span.start < a.span.end:
            inner, outer = (b, a) if a.id in kg.ancestors(b.id) else (a, b)
            assert outer.id in kg.ancestors(inner.id), f"{a.id} overlaps {b.id}"
            assert outer.span is not None and inner.span is not None
            assert outer.span.start <= inner.span.start and inner.span.end <= outer.span.end


def test_card_entries_lie_inside_their_list_item(kg: KnowledgeGraph) -> None:
    entries = [n for n in kg.of_type("Passage") if n.props.get("kind") == "entry"]
    assert len(entries) >= 25
    for e in entries:
        parent = kg.node(e.parent or "")
        assert parent.props.get("kind") == "list-item"
        assert parent.span is not None and e.span is not None
        assert parent.span.start <= e.span.start < e.span.end <= parent.span.end
        assert e.id.startswith(f"{parent.id}/entry-")
        assert e.props["entity"] in kg


def test_ids_are_unique_and_readable(built: Built) -> None:
    raw = json.loads((built.data_dir / "current" / "graph.json").read_text("utf-8"))
    ids = [r["id"] for r in raw["nodes"]]
    assert len(ids) == len(set(ids)) == len(built.kg.nodes)
    assert [i for i in ids if not ID.fullmatch(i)] == []


def test_tree_parents_exist_and_part_of_mirrors_them(kg: KnowledgeGraph) -> None:
    part_of = {(f.subject, f.object) for f in kg.facts if f.predicate == "part_of"}
    for n in kg.nodes:
        if n.parent is None:
            continue
        assert n.parent in kg, n.id
        assert n.id.startswith(n.parent + "/"), n.id
        assert (n.id, n.parent) in part_of, n.id
        assert n.span is not None and kg.ancestors(n.id)[-1] == n.span.document
    assert all(kg.node(s).parent == o for s, o in part_of)


def test_children_are_numbered_in_document_order(kg: KnowledgeGraph) -> None:
    groups: dict[tuple[str, str], list[Node]] = defaultdict(list)
    for n in text_nodes(kg):
        if n.parent is not None and n.order is not None:
            prefix = n.id.rsplit("/", 1)[1].rsplit("-", 1)[0]
            groups[(n.parent, prefix)].append(n)
    assert groups
    for (parent, prefix), nodes in groups.items():
        by_order = sorted(nodes, key=lambda n: n.order or 0)
        by_position = sorted(nodes, key=lambda n: n.span.start if n.span else 0)
        assert by_order == by_position, (parent, prefix)
        assert len({n.order for n in nodes}) == len(nodes)


# --- parsers on small texts --------------------------------------------------------------------

MINI_EDISON = """Regras do Formato Edison
Diferenças nas Regras do Formato Edison
As regras abaixo diferem.
REGRA DO FORMATO EDISON # 7 - Efeitos Simultâneos Ativam em Corrente
• Passo 1: Os Efeitos Obrigatórios do Jogador do Turno.
• Passo 2: Os Efeitos Obrigatórios do Oponente.
• Exemplo 1: Você ativa um efeito.
REGRA DO FORMATO EDISON # 8 - Os 7 Tempos da Etapa de Dano
• Cards de Armadilha de Resposta podem ser ativados.
Sub-etapa 1 - Começo da Etapa de Dano
● Efeitos Rápidos NÃO PODEM ativar.
Sub-etapa 2 - Vire os Cards
● Um alvo é virado.
"""


def test_parse_edison_structure() -> None:
    doc = parse_edison("edison", MINI_EDISON, "Edison", "Edison")
    nodes = {n.id: n for n in doc.nodes}
    assert doc.nodes[0].id == "edison" and doc.nodes[0].type == "Document"
    assert nodes["edison/title"].text == "Regras do Formato Edison"
    assert nodes["edison/differences"].type == "Section"
    assert nodes["edison/differences/p-01"].text == "As regras abaixo diferem."
    rule7 = nodes["edison/rule-07"]
    assert rule7.type == "Rule" and rule7.props == {
        "number": 7,
        "title": "Efeitos Simultâneos Ativam em Corrente",
    }
    assert [nodes[f"edison/rule-07/step-0{i}"].type for i in (1, 2)] == ["Step", "Step"]
    assert nodes["edison/rule-07/example-01"].type == "Example"
    sub = nodes["edison/rule-08/substep-01"]
    assert sub.type == "Step" and sub.order == 1 and sub.props["title"] == "Começo da Etapa de Dano"
    assert nodes["edison/rule-08/substep-01/p-01"].props["permission"] == "forbidden"
    assert nodes["edison/rule-08/substep-02/p-01"].props["permission"] == "happens"
    assert nodes["edison/rule-08/p-01"].props["permission"] == "allowed"
    for n in doc.nodes[1:]:
        assert n.span is not None
        assert MINI_EDISON[n.span.start : n.span.end] == n.text
    facts = {(f.subject, f.predicate, f.object) for f in doc.facts}
    assert ("edison/rule-07", "applies_in", "format/edison") in facts
    assert ("edison/rule-07/example-01", "example_of", "edison/rule-07") in facts
    assert ("edison/rule-08/substep-01", "part_of", "edison/rule-08") in facts


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("• Efeitos de Virar NÃO são ativados ainda.", "forbidden"),
        ("● Efeitos Rápidos de monstros que modificam ATK/DEF podem ser ativados.", "allowed"),
        ("● Monstros marcados como 'destruídos em batalha' não aplicam mais efeitos.", "happens"),
    ],
)
def test_damage_step_permission(text: str, expected: str) -> None:
    assert permission(text) == expected


MINI_TAG = """Visão Geral das Regras de Tag Dueling
- Regras Básicas
- Procedimentos do Turno
Regras Básicas
A Partida é entre duas equipes.
- Um item da lista.
Exemplos
| O Duelista 1A ativa um card. |
Procedimentos do Turno
Ordem do Turno:
- Equipe 1 Duelista 1A
- Equipe 2 Duelista 2A
* Uma nota.
Depois da ordem.
"""


def test_parse_tag_structure() -> None:
    doc = parse_tag("tag", MINI_TAG, "Tag", "Tag")
    nodes = {n.id: n for n in doc.nodes}
    assert nodes["tag/toc-01"].props["kind"] == "toc"
    assert nodes["tag/basic-rules"].type == "Section"
    assert nodes["tag/basic-rules/p-01"].text == "A Partida é entre duas equipes."
    item = nodes["tag/basic-rules/p-01/item-01"]
    assert item.text == "- Um item da lista." and item.parent == "tag/basic-rules/p-01"
    example = nodes["tag/basic-rules/example-01"]
    assert example.text == "O Duelista 1A ativa um card."  # the row without its pipes
    steps = [nodes[f"tag/turn-procedure/turn-order/step-0{i}"] for i in (1, 2)]
    assert [s.text for s in steps] == ["- Equipe 1 Duelista 1A", "- Equipe 2 Duelista 2A"]
    assert nodes["tag/turn-procedure/turn-order/p-01"].text == "* Uma nota."
    assert nodes["tag/turn-procedure/p-01"].text == "Depois da ordem."
    for n in doc.nodes[1:]:
        assert n.span is not None
        assert MINI_TAG[n.span.start : n.span.end] == n.text
    facts = {(f.subject, f.predicate, f.object) for f in doc.facts}
    assert ("tag/basic-rules/example-01", "example_of", "tag/basic-rules/p-01") in facts
    for section in ("tag/basic-rules", "tag/turn-procedure", "tag/turn-procedure/turn-order"):
        assert (section, "applies_in", "format/tag") in facts


def test_builder_rejects_duplicates_and_wrong_spans() -> None:
    b = DocumentBuilder("d", "alpha beta", "D", "D")
    b.child("d", "Passage", Segment(0, 5, "alpha"))
    with pytest.raises(ValueError, match="duplicate id"):
        b.child("d", "Passage", Segment(6, 10, "beta"), number=1)
    with pytest.raises(ValueError, match="does not match"):
        b.add(Node("d/x", "Passage", text="gamma", span=Span("d", 6, 10)))
