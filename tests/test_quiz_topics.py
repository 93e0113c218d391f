"""The quiz's topics as a list (`GET /quiz/topics`, `ygo-rulings quiz-topics`): every topic a
quiz can be drawn from, with its pt/en names, its question count (what `GET /quiz` calls
`available`) and its formats; the web page's topic lists read it."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from api.app import create_app
from api.cli import app as cli_app
from kb.errors import InvalidQuery
from kb.service import RulingsService

THEMES = {"chain", "damage-step", "spell-speed", "summon"}


@pytest.fixture(scope="module")
def client(service: RulingsService) -> TestClient:
    return TestClient(create_app(service), raise_server_exceptions=False)


def test_every_topic_with_questions_is_listed_with_its_names(service: RulingsService) -> None:
    listed = service.quiz_topics()
    assert listed["format"] is None
    topics = {t["id"]: t for t in listed["topics"]}
    with_questions = {t for q in service.question_bank.questions for t in q.topics}
    assert set(topics) == with_questions and set(topics) >= THEMES
    assert [t["kind"] for t in listed["topics"]] == sorted(
        (t["kind"] for t in listed["topics"]), key=lambda k: k != "theme"
    )  # themes first
    assert topics["chain"] | {"questions": 0, "formats": []} == {
        "id": "chain",
        "kind": "theme",
        "node": None,
        "label_pt": "Corrente",
        "label_en": "Chain",
        "questions": 0,
        "formats": [],
    }
    rule = topics["edison-rule-08"]
    assert rule["kind"] == "section" and rule["node"] == "edison/rule-08"
    assert rule["label_pt"].startswith("Edison › Regra #8 — ")
    assert rule["label_en"].startswith("Edison › Rule #8 — ")
    assert topics["tag-basic-rules"]["label_en"] == "Tag Duel › Basic Rules"
    assert topics["tag-basic-rules"]["formats"] == ["tag"]


@pytest.mark.parametrize("format", [None, "edison", "tag", "general"])
def test_counts_are_what_a_quiz_can_draw(service: RulingsService, format: str | None) -> None:
    listed = service.quiz_topics(format)
    assert listed["format"] == format and listed["topics"]
    for t in listed["topics"]:
        quiz = service.quiz(format=format, topic=t["id"], n=1, seed=1)
        assert quiz["available"] == t["questions"], t["id"]
        if format is not None:
            assert format in t["formats"]
    if format == "tag":  # no Edison rule has a question in Tag Duel
        assert not any(t["id"].startswith("edison-") for t in listed["topics"])


def test_a_format_without_questions_lists_none_and_an_unknown_one_is_refused(
    service: RulingsService, client: TestClient
) -> None:
    assert service.quiz_topics("goat")["topics"] == []  # declared by name, no document
    with pytest.raises(InvalidQuery) as exc:
        service.quiz_topics("nope")
    assert exc.value.field == "format"
    bad = client.get("/quiz/topics", params={"format": "nope"})
    assert bad.status_code == 422
    assert (bad.json()["ok"], bad.json()["field"]) == (False, "format")
    assert "'nope'" in bad.json()["error"]


def test_the_route_and_the_command_give_the_same_topics(
    service: RulingsService, client: TestClient
) -> None:
    served = client.get("/quiz/topics", params={"format": "edison"})
    assert served.status_code == 200 and served.headers["etag"]
    assert served.json() == service.quiz_topics("edison")
    runner = CliRunner()
    data = ["--data", str(service.settings.data_dir), "--corpus", str(service.settings.corpus_dir)]
    printed = runner.invoke(cli_app, ["quiz-topics", "--format", "edison", "--json", *data])
    assert printed.exit_code == 0, printed.output
    assert json.loads(printed.stdout) == served.json()
    text = runner.invoke(cli_app, ["quiz-topics", "--format", "tag", *data])
    assert text.exit_code == 0, text.output
    assert "tag-basic-rules: Tag Duel › Regras Básicas / Tag Duel › Basic Rules — " in text.stdout
    refused = runner.invoke(cli_app, ["quiz-topics", "--format", "nope", *data])
    assert refused.exit_code == 2 and "format" in refused.stderr
