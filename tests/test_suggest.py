""" "Did you mean": name-like spans of a question the linker did not resolve, looked up by card
search (kb.answering.suggest), and the answer that carries them (service, route, CLI)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from cards.test_banlist import real_records  # type: ignore[import-not-found]
from fastapi.testclient import TestClient

from api.app import create_app
from api.cli import did_you_mean
from kb.answering.suggest import name_runs, respan, suggest_cards
from kb.cards.search import CardIndex
from kb.schemas import Answer
from kb.service import RulingsService

HALF_REMEMBERED = "Dragão Gaia, o Cavaleiro do Trovão pode atacar duas vezes?"


@pytest.fixture(scope="module")
def index() -> CardIndex:
    return CardIndex(real_records())


def words(runs: list) -> list[list[str]]:
    return [[w.text for w in run] for run in runs]


def test_runs_are_capitalised_words_joined_by_function_words_commas_and_hyphens() -> None:
    assert words(name_runs(HALF_REMEMBERED)) == [
        ["Dragão", "Gaia", "o", "Cavaleiro", "do", "Trovão"]
    ]
    # a sentence's first word that is a function word is no part of a name; a hyphen joins
    assert words(name_runs("Can Blackwing - Kalut attack?")) == [["Blackwing", "Kalut"]]
    # a span already resolved breaks the run; lowercase words end it
    assert words(name_runs("Pode Pote da Ganância ativar", [(5, 9)])) == [["Ganância"]]
    assert name_runs("nada capitalizado aqui") == []


def test_a_half_remembered_name_suggests_the_card(index: CardIndex) -> None:
    found = suggest_cards(HALF_REMEMBERED, [], index, 0.85)
    assert found and found[0].card == "card/gaia-dragon-the-thunder-charger"
    assert HALF_REMEMBERED[found[0].start : found[0].end] == found[0].text
    assert all(s.score >= 0.85 for s in found) and len(found) <= 3


def test_one_word_suggests_only_one_word_names_and_the_threshold_holds(index: CardIndex) -> None:
    [jinzo] = suggest_cards("O Jinzzo pode ser invocado?", [], index, 0.85)
    assert jinzo.card == "card/jinzo" and jinzo.text == "Jinzzo"
    assert suggest_cards("O Jinzzo pode ser invocado?", [], index, 0.99) == []
    assert suggest_cards("O que acontece com uma Armadilha Contínua?", [], index, 0.85) == []


def test_the_answer_carries_suggestions_only_without_a_ruling(
    hash_service: RulingsService, monkeypatch: pytest.MonkeyPatch
) -> None:
    answer = Answer.model_validate(hash_service.ask(HALF_REMEMBERED))
    assert answer.verdict is None and answer.reasoner == "none"
    assert answer.suggestions[0].id == "card/gaia-dragon-the-thunder-charger"
    ruled = hash_service.ask("Julgamento Solene pode negar a Invocação do Dragão Cibernético?")
    assert ruled["verdict"] == "yes" and ruled["suggestions"] == []
    off = replace(hash_service.settings, suggest_min_score=1.01)
    monkeypatch.setattr(hash_service, "settings", off)
    assert hash_service.answerer.answer(HALF_REMEMBERED, None, 5)["suggestions"] == []


def test_route_json_and_cli_text_show_them(hash_service: RulingsService) -> None:
    client = TestClient(create_app(hash_service))
    body = client.post("/ask", json={"question": HALF_REMEMBERED}).json()
    first = body["suggestions"][0]
    assert set(first) == {"span", "text", "id", "name_en", "name_pt", "score"}
    assert body["question"][first["span"][0] : first["span"][1]] == first["text"]
    [line, *_] = did_you_mean(body)
    assert "did you mean: Gaia Dragon, the Thunder Charger" in line and "Dragão Gaia" in line


def test_suggestions_of_a_question_asked_in_other_words_keep_their_words() -> None:
    found = [
        {"span": [4, 15], "text": "Dragão Gaia", "id": "card/x"},
        {"span": [0, 2], "text": "zz"},
    ]
    asked = "Why can't Dragão Gaia attack?"
    [moved] = respan(found, asked)
    assert asked[moved["span"][0] : moved["span"][1]] == "Dragão Gaia"
