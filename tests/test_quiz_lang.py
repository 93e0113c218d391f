"""English prompts for every question family, chosen by `lang`: every family has its English
questions, none keeps a Portuguese template word, and a question's id and key are the same in
both languages (grading does not depend on the language)."""

from __future__ import annotations

import json
import re

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from api.app import create_app
from api.cli import app as cli_app
from kb.errors import InvalidQuery
from kb.presentation.quiz import QuestionBank
from kb.presentation.quiz_lang import WORDS
from kb.presentation.quiz_model import Question, localized, question_json
from kb.service import RulingsService

FAMILIES = (
    "statement",
    "claim",
    "order",
    "damage-step",
    "summon",
    "fact",
    "capability",
    "spell-speed",
)
_QUOTED = re.compile(r"«[^»]*»")
_FIELD = re.compile(r"\{[^}]*\}")


def template_fragments(lang: str) -> set[str]:
    """The fixed words of a language's templates (the text between their fields)."""
    return {
        frag.strip(" ,.:;()?")
        for template in WORDS[lang].values()
        for frag in _FIELD.split(template)
        if re.search(r"[^\W\d_]{3,}", frag)
    }


PT_ONLY = {f for f in template_fragments("pt") if f} - template_fragments("en")


def own_words(q: Question) -> list[str]:
    """The English question's own words: prompt, options and explanation, without the quoted
    document text (quoted «…», an order question's steps, a statement's sentence)."""
    texts = [q.prompt, q.explanation]
    if q.family != "order":  # the options of an order question are the document's steps
        texts += [o.text for o in q.options]
    return [_QUOTED.sub("«»", t) for t in texts]


def english(quiz: dict) -> bool:
    """Every prompt of a quiz without the Portuguese templates' words."""
    return all(
        not re.search(rf"\b{re.escape(f)}\b", _QUOTED.sub("«»", q["prompt"]))
        for q in quiz["questions"]
        for f in PT_ONLY
    )


@pytest.fixture(scope="module")
def bank(service: RulingsService) -> QuestionBank:
    return service.question_bank


def test_the_portuguese_template_words_are_known() -> None:
    assert {"Segundo as regras", "Verdadeiro ou falso", "Sub-etapa", "Inerente"} <= PT_ONLY


def test_every_question_has_english_words(bank: QuestionBank) -> None:
    assert {q.family for q in bank.questions} == set(FAMILIES)
    missing = [q.id for q in bank.questions if q.en is None]
    assert not missing, missing[:5]


@pytest.mark.parametrize("family", FAMILIES)
def test_every_family_speaks_english(bank: QuestionBank, family: str) -> None:
    questions = [q for q in bank.questions if q.family == family]
    assert questions
    for q in questions:
        en = localized(q, "en")
        assert (en.id, en.answer, en.citation) == (q.id, q.answer, q.citation)
        assert [o.key for o in en.options] == [o.key for o in q.options]
        left = [
            f for text in own_words(en) for f in PT_ONLY if re.search(rf"\b{re.escape(f)}\b", text)
        ]
        assert not left, (q.id, left, own_words(en))
        if q.machine_translated:
            assert en.explanation.endswith(WORDS["en"]["machine_translated"])


@pytest.mark.parametrize("family", FAMILIES)
def test_an_english_answer_grades_as_the_portuguese_one(bank: QuestionBank, family: str) -> None:
    q = next(q for q in bank.questions if q.family == family)
    english = question_json(q, "en")
    key_text = next(o["text"] for o in english["options"] if o["key"] == q.answer)
    for lang in ("pt", "en"):
        for answer in (q.answer, key_text):
            graded = bank.check([{"id": q.id, "answer": answer}], lang)["results"][0]
            assert graded["correct"] and graded["expected"] == q.answer, (lang, answer)
    en_result = bank.check([{"id": q.id, "answer": q.answer}], "en")["results"][0]
    assert en_result["expected_text"] == key_text
    assert en_result["citation"]["text"] == q.citation.text  # quoted as the document wrote it


@pytest.mark.parametrize("seed", [1, 7])
def test_same_seed_same_ids_and_keys_in_both_languages(bank: QuestionBank, seed: int) -> None:
    pt = bank.quiz(None, None, 50, seed)
    en = bank.quiz(None, None, 50, seed, "en")
    assert [(q["id"], q["answer"]) for q in en["questions"]] == [
        (q["id"], q["answer"]) for q in pt["questions"]
    ]
    assert pt["questions"] != en["questions"]


def test_an_unknown_language_names_lang(bank: QuestionBank, service: RulingsService) -> None:
    for call in (
        lambda: bank.quiz(None, None, 1, 1, "es"),
        lambda: bank.check([{"id": bank.questions[0].id, "answer": "true"}], "es"),
        lambda: service.quiz(n=1, seed=1, lang="es"),
    ):
        with pytest.raises(InvalidQuery) as exc:
            call()
        assert exc.value.field == "lang"


def test_the_quiz_route_chooses_the_language(service: RulingsService) -> None:
    client = TestClient(create_app(service), raise_server_exceptions=False)
    params = {"topic": "summon", "n": 3, "seed": 5}
    pt = client.get("/quiz", params=params).json()
    en = client.get("/quiz", params={**params, "lang": "en"}).json()
    assert client.get("/quiz", params={**params, "lang": "pt"}).json() == pt  # pt: the default
    assert [(q["id"], q["answer"]) for q in en["questions"]] == [
        (q["id"], q["answer"]) for q in pt["questions"]
    ]
    assert english(en)
    bad = client.get("/quiz", params={**params, "lang": "xx"})
    assert bad.status_code == 422 and bad.json()["field"] == "lang"
    first = en["questions"][0]
    key_text = next(o["text"] for o in first["options"] if o["key"] == first["answer"])
    body = {"answers": [{"id": first["id"], "answer": key_text}]}
    check = client.post("/quiz/check", json=body)  # an English option's words grade as its key
    assert check.status_code == 200 and check.json()["correct"] == 1


def test_the_cli_chooses_the_language(service: RulingsService) -> None:
    runner = CliRunner()
    data = ["--data", str(service.settings.data_dir), "--corpus", str(service.settings.corpus_dir)]
    args = ["quiz", "--topic", "summon", "--n", "2", "--seed", "5", "--json", *data]
    pt = json.loads(runner.invoke(cli_app, args).stdout)
    got = runner.invoke(cli_app, [*args, "--lang", "en"])
    assert got.exit_code == 0, got.output
    en = json.loads(got.stdout)
    assert [(q["id"], q["answer"]) for q in en["questions"]] == [
        (q["id"], q["answer"]) for q in pt["questions"]
    ]
    assert english(en)
    terminal = runner.invoke(
        cli_app, [*args[: -1 - len(data)], *data, "--lang", "en"], input="1\n1\n"
    )
    assert (
        terminal.exit_code == 0
        and "Score:" in terminal.stdout
        and "Pontuação" not in terminal.stdout
    )
    bad = runner.invoke(cli_app, [*args, "--lang", "xx"])
    assert bad.exit_code != 0 and "lang" in bad.output


def test_the_check_route_and_command_explain_in_the_language(service: RulingsService) -> None:
    """POST /quiz/check?lang=en and `quiz-check --lang en`: the same grading, the explanation and
    the key's words in English; an unknown lang is a 422 in the envelope naming `lang`."""
    client = TestClient(create_app(service), raise_server_exceptions=False)
    q = service.question_bank.by_id["summon:card/cyber-dragon"]
    body = {"answers": [{"id": q.id, "answer": "non-inherent"}]}
    pt = client.post("/quiz/check", json=body).json()
    en = client.post("/quiz/check", params={"lang": "en"}, json=body).json()
    assert client.post("/quiz/check", params={"lang": "pt"}, json=body).json() == pt
    english = localized(q, "en")
    result = en["results"][0]
    assert result["explanation"] == english.explanation != pt["results"][0]["explanation"]
    assert result["expected_text"] == english.option(q.answer).text
    assert {k: v for k, v in result.items() if k not in ("explanation", "expected_text")} == {
        k: v for k, v in pt["results"][0].items() if k not in ("explanation", "expected_text")
    }
    bad = client.post("/quiz/check", params={"lang": "es"}, json=body)
    assert bad.status_code == 422
    assert (
        bad.json()["ok"] is False
        and bad.json()["field"] == "lang"
        and "'es'" in bad.json()["error"]
    )

    runner = CliRunner()
    data = ["--data", str(service.settings.data_dir), "--corpus", str(service.settings.corpus_dir)]
    printed = runner.invoke(cli_app, ["quiz-check", json.dumps(body), "--lang", "en", *data])
    assert printed.exit_code == 0, printed.output
    assert json.loads(printed.stdout) == en
    refused = runner.invoke(cli_app, ["quiz-check", json.dumps(body), "--lang", "es", *data])
    assert refused.exit_code == 2 and "lang" in refused.stderr
