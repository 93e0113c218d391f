"""Card-name candidates (what `unlinked_card_mentions` counts) on hand-made passages of any document."""

from __future__ import annotations

import pytest

from ingest.candidates import candidates
from kb.model import Node, Span


def _node(text: str, kind: str = "paragraph", start: int = 100) -> Node:
    return Node(
        id="newdoc/p1",
        type="Passage",
        text=text,
        span=Span("newdoc", start, start + len(text)),
        props={"kind": kind},
    )


def _names(text: str, kind: str = "paragraph") -> list[str]:
    return [c.text for c in candidates(_node(text, kind))]


@pytest.mark.parametrize(
    ("text", "name"),
    [
        (
            "Use o Tufão Espacial Místico/Mystical Space Typhoon na Etapa de Dano.",
            "Mystical Space Typhoon",
        ),
        ("O Pote da Ganância (Pot of Greed) compra dois cards.", "Pot of Greed"),
        ("Gorz, o Emissário das Trevas / Gorz the Emissary of Darkness é invocado.", "Emissary"),
        ('O card "Julgamento Solene" nega a Invocação.', "Julgamento Solene"),
    ],
)
def test_names_a_reader_sees_are_candidates(text: str, name: str) -> None:
    assert any(name in found for found in _names(text)), _names(text)


def test_offsets_are_absolute_and_exact() -> None:
    text = "O Pote da Ganância (Pot of Greed) compra dois cards."
    node = _node(text, start=500)
    for c in candidates(node):
        assert text[c.start - 500 : c.end - 500] == c.text


@pytest.mark.parametrize(
    "text",
    [
        "Magias/Armadilhas com Velocidade de Magia 2 podem responder.",
        "Zona dos Cards de Magia / Armadilha do seu oponente.",
        "Efeitos Rápidos / Efeitos Contínuos que modificam o ATK.",
        "Os monstros vão para o Cemitério no fim da Etapa de Dano.",
    ],
)
def test_game_terms_are_not_candidates(text: str) -> None:
    assert _names(text) == []


def test_a_list_of_names_after_a_colon_is_read_only_when_it_is_a_list() -> None:
    listed = _names("Exemplos: Cyber Dragon, Gorz the Emissary of Darkness e Jinzo.", "list-item")
    assert listed == ["Cyber Dragon", "Gorz the Emissary of Darkness", "Jinzo"]
    assert _names("Atenção: o jogador do turno escolhe, e depois o oponente.", "list-item") == []
