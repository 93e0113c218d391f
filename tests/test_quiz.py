"""Judge training: questions are deterministic, sourced, keyed by the documents, and graded."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from tests_support import REPO  # type: ignore[import-not-found]
from typer.testing import CliRunner

from api.app import create_app
from api.cli import app as cli_app
from api.terminal_quiz import run_quiz
from bench.quiz_sample import SEED, SIZE
from kb.errors import InvalidQuery
from kb.graph import KnowledgeGraph
from kb.presentation.polarity import flip, negations
from kb.presentation.quiz import QuestionBank, build_bank
from kb.presentation.quiz_model import Question
from kb.service import RulingsService


@pytest.fixture(scope="module")
def bank(service: RulingsService) -> QuestionBank:
    return service.question_bank


def correct_answers(quiz: dict) -> list[dict]:
    return [{"id": q["id"], "answer": q["answer"]} for q in quiz["questions"]]


# --- polarity ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("sentence", "flipped"),
    [
        ("O Jogador A não pode ativar o Umi.", "O Jogador A pode ativar o Umi."),
        ("-NÃO PODEM ser negados por Divine Wrath.", "-PODEM ser negados por Divine Wrath."),
        ("Eles não aplicam mais os seus efeitos.", "Eles aplicam os seus efeitos."),
        (
            "Seu companheiro pode Tributar o monstro.",
            "Seu companheiro não pode Tributar o monstro.",
        ),
        ("O Umi é destruído.", "O Umi não é destruído."),
        ("-PODEM ser negados por Solemn Judgment.", "-NÃO PODEM ser negados por Solemn Judgment."),
    ],
)
def test_flip(sentence: str, flipped: str) -> None:
    result = flip(sentence)
    assert result is not None and result.text == flipped


@pytest.mark.parametrize(
    "sentence",
    [
        "Você não pode ativar X se você não tiver Zonas vazias.",  # two negations
        "Nenhum dano será causado.",  # "nenhum" cannot be removed cleanly
        "Apenas uma Magia de Campo pode estar ativa.",  # a quantifier
        "O efeito pode ativar e o card é destruído.",  # two modals
        "Efeitos que disparam quando o dano é causado ativam agora.",  # subordinate clause
        "É uma Invocação-Especial não-inerente e pode ser negada.",  # two modals
        "Os jogadores constroem uma corrente.",  # nothing to flip
    ],
)
def test_no_flip(sentence: str) -> None:
    assert flip(sentence) is None


def test_negations_ignore_compounds_and_unless() -> None:
    assert negations("A Invocação não-inerente ocorre, a não ser que …") == []
    assert negations("Ele NÃO pode") == ["NÃO"]


# --- the bank -------------------------------------------------------------------------------
def test_bank_covers_every_family(bank: QuestionBank) -> None:
    families = {q.family for q in bank.questions}
    assert families == {
        "statement",
        "claim",
        "order",
        "damage-step",
        "summon",
        "fact",
        "capability",
        "spell-speed",
    }
    assert len({q.id for q in bank.questions}) == len(bank.questions) >= 250
    assert {f"edison-rule-{i:02d}" for i in range(1, 14)} <= set(bank.topics)
    assert {"summon", "chain", "spell-speed", "damage-step", "tag-basic-rules"} <= set(bank.topics)


def test_every_citation_is_the_document_slice(
    bank: QuestionBank, kg: KnowledgeGraph, documents: dict[str, str]
) -> None:
    for q in bank.questions:
        c = q.citation
        assert c.text == documents[c.document][c.start : c.end], q.id
        node = kg.node(c.id)
        assert node.span is not None and node.span.start <= c.start < c.end <= node.span.end
        assert q.answer in {o.key for o in q.options}, q.id
        assert q.explanation and q.prompt


def test_true_false_keys_follow_the_document(bank: QuestionBank) -> None:
    statements = [q for q in bank.questions if q.family == "statement"]
    assert len(statements) >= 150
    for q in statements:
        if q.answer == "true":
            assert q.statement == q.citation.text, q.id  # the document's own sentence
        else:
            flipped = flip(q.citation.text)
            assert flipped is not None and q.statement == flipped.text, q.id
            assert q.statement != q.citation.text
    groups: dict[str, set[str]] = {}
    for q in statements:
        groups.setdefault(q.group, set()).add(q.answer)
    assert all(answers == {"true", "false"} for answers in groups.values())


def test_order_keys_follow_the_steps(bank: QuestionBank, kg: KnowledgeGraph) -> None:
    orders = [q for q in bank.questions if q.family == "order"]
    assert {"order:edison/rule-07/step-01", "order:tag/turn-procedure/turn-order/step-03"} <= {
        q.id for q in orders
    }
    for q in orders:
        step = kg.node(q.id.removeprefix("order:"))
        assert q.citation.id == step.id
        assert q.option(q.answer).text in " ".join((step.text or "").split())


def test_summon_keys_follow_the_documents(bank: QuestionBank, kg: KnowledgeGraph) -> None:
    q = bank.by_id["summon:card/cyber-dragon"]
    assert q.answer == "inherent" and "Cyber Dragon" in q.citation.text
    assert bank.by_id["summon:card/monster-reborn"].answer == "non-inherent"
    for q in (q for q in bank.questions if q.family == "summon"):
        subject = q.id.removeprefix("summon:")
        kinds = {f.object for f in kg.out(subject, "summoned_by") if f.authority == "document"}
        assert kinds == {f"concept/{q.answer}-special-summon"}, q.id


def test_fact_and_speed_keys(bank: QuestionBank) -> None:
    negatable = "fact:concept/inherent-special-summon:negatable_by:concept/activation-negation"
    assert bank.by_id[negatable].answer == "no"
    assert "NÃO PODEM" in bank.by_id[negatable].citation.text
    assert bank.by_id["speed:card/book-of-moon"].answer == "2"
    chain = "fact:concept/inherent-special-summon:starts_chain:concept/chain"
    assert bank.by_id[chain].answer == "no"


def test_readme_examples_are_real(service: RulingsService) -> None:
    quiz = service.quiz(topic="summon", n=1, seed=38)
    q = quiz["questions"][0]
    assert q["id"] == "capability:concept/summon-negation:card/saber-hole"
    assert q["answer"] == "a" and quiz["available"] == 230
    assert q["options"][0]["text"] == "Buraco-Sabre (Saber Hole)"
    graded = service.quiz_check([{"id": "summon:card/cyber-dragon", "answer": "non-inherent"}])
    assert graded["results"][0]["expected"] == "inherent"


# --- quizzes ----------------------------------------------------------------------------------
def test_quizzes_are_deterministic(service: RulingsService, kg: KnowledgeGraph) -> None:
    first = service.quiz(n=20, seed=42)
    assert first == service.quiz(n=20, seed=42)
    rebuilt = build_bank(kg, service.artifact.documents, service.doc_formats, ["rulings"])
    assert rebuilt.quiz(None, None, 20, 42) == first
    other = service.quiz(n=20, seed=43)
    assert [q["id"] for q in other["questions"]] != [q["id"] for q in first["questions"]]
    assert len(first["questions"]) == 20 and len({q["id"] for q in first["questions"]}) == 20
    groups = {q["id"].rsplit(":", 1)[0] for q in first["questions"] if q["kind"] == "true-false"}
    assert len(groups) == sum(q["kind"] == "true-false" for q in first["questions"])
    assert len({q["family"] for q in first["questions"]}) >= 5  # families are interleaved


def test_quiz_filters(service: RulingsService) -> None:
    tag = service.quiz(format="tag", n=50, seed=1)
    assert tag["questions"] and all(q["format"] == "tag" for q in tag["questions"])
    rule = service.quiz(topic="edison-rule-05", n=50, seed=1)
    assert all("edison-rule-05" in q["topics"] for q in rule["questions"])
    assert len(rule["questions"]) == rule["available"] >= 8
    summon = service.quiz(topic="summon", n=50, seed=1)
    assert {"summon", "fact"} <= {q["family"] for q in summon["questions"]}
    # Rule 3 has no flippable sentence or ordered steps; its rule claims make its questions.
    rule3 = service.quiz(topic="edison-rule-03", n=5, seed=1)["questions"]
    assert rule3 and all(q["family"] == "claim" and "edison-rule-03" in q["topics"] for q in rule3)
    assert isinstance(service.quiz(n=1)["seed"], int)  # a random seed is reported


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"n": 0}, "n"),
        ({"n": 51}, "n"),
        ({"seed": -1}, "seed"),
        ({"seed": 2**32}, "seed"),
        ({"topic": "goat"}, "topic"),
        ({"format": "pauper"}, "format"),
    ],
)
def test_quiz_parameters_are_checked(service: RulingsService, kwargs: dict, field: str) -> None:
    with pytest.raises(InvalidQuery) as err:
        service.quiz(**{"n": 5, "seed": 1, **kwargs})
    assert err.value.field == field
    if field == "topic":
        assert "edison-rule-01" in err.value.reason and "spell-speed" in err.value.reason


# --- grading ----------------------------------------------------------------------------------
def test_grading(service: RulingsService) -> None:
    quiz = service.quiz(n=15, seed=7)
    right = service.quiz_check(correct_answers(quiz))
    assert right["total"] == 15 and right["correct"] == 15 and right["score"] == 1.0
    wrong = [
        {"id": q["id"], "answer": next(o["key"] for o in q["options"] if o["key"] != q["answer"])}
        for q in quiz["questions"]
    ]
    graded = service.quiz_check(wrong)
    assert graded["correct"] == 0
    for result, q in zip(graded["results"], quiz["questions"], strict=True):
        assert result["expected"] == q["answer"] and not result["correct"]
        assert result["explanation"] and result["citation"] == q["citation"]


def test_answer_forms(bank: QuestionBank) -> None:
    tf = next(q for q in bank.questions if q.kind == "true-false" and q.answer == "true")
    yes_no = next(q for q in bank.questions if q.kind == "yes-no" and q.answer == "no")
    mc = next(q for q in bank.questions if q.family == "capability")
    answers = [
        {"id": tf.id, "answer": True},
        {"id": tf.id, "answer": "Verdadeiro"},
        {"id": yes_no.id, "answer": "não"},
        {"id": yes_no.id, "answer": False},
        {"id": mc.id, "answer": mc.answer.upper()},
        {"id": mc.id, "answer": mc.option(mc.answer).text},
        {"id": mc.id, "answer": "abcd".index(mc.answer) + 1},
    ]
    assert bank.check(answers)["correct"] == len(answers)


@pytest.mark.parametrize(
    ("answers", "field"),
    [
        ([], "answers"),
        ([{"id": "tf:nope:s0:true", "answer": "true"}], "answers.0.id"),
        ([{"id": "summon:card/cyber-dragon", "answer": "maybe"}], "answers.0.answer"),
        ([{"id": "summon:card/cyber-dragon", "answer": None}], "answers.0.answer"),
    ],
)
def test_bad_answers(bank: QuestionBank, answers: list, field: str) -> None:
    with pytest.raises(InvalidQuery) as err:
        bank.check(answers)
    assert err.value.field == field


# --- the edges --------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def client(service: RulingsService) -> TestClient:
    return TestClient(create_app(service), raise_server_exceptions=False)


def test_quiz_routes(client: TestClient, service: RulingsService) -> None:
    params = {"format": "edison", "topic": "edison-rule-08", "n": 5, "seed": 3}
    quiz = client.get("/quiz", params=params).json()
    assert quiz == service.quiz(format="edison", topic="edison-rule-08", n=5, seed=3)
    graded = client.post("/quiz/check", json={"answers": correct_answers(quiz)}).json()
    assert graded["correct"] == graded["total"] == 5


@pytest.mark.parametrize(
    ("method", "url", "kwargs", "needle"),
    [
        ("get", "/quiz", {"params": {"n": 0}}, "n"),
        ("get", "/quiz", {"params": {"n": 51}}, "n"),
        ("get", "/quiz", {"params": {"n": "many"}}, "n"),
        ("get", "/quiz", {"params": {"seed": -5}}, "seed"),
        ("get", "/quiz", {"params": {"topic": "goat"}}, "topic"),
        ("get", "/quiz", {"params": {"format": "pauper"}}, "format"),
        ("post", "/quiz/check", {"json": {}}, "answers"),
        ("post", "/quiz/check", {"json": {"answers": []}}, "answers"),
        ("post", "/quiz/check", {"json": {"answers": [{"id": "x", "answer": "a"}]}}, "id"),
        ("post", "/quiz/check", {"json": {"answers": [{"answer": "a"}]}}, "id"),
    ],
)
def test_quiz_route_errors(
    client: TestClient, method: str, url: str, kwargs: dict, needle: str
) -> None:
    r = getattr(client, method)(url, **kwargs)
    assert r.status_code == 422, r.text
    body = r.json()
    assert body["ok"] is False and body["status"] == 422 and needle in body["error"]


def test_terminal_quiz_loop(service: RulingsService) -> None:
    quiz = service.quiz(n=3, seed=5)
    lines = iter(["", "nonsense", *(q["answer"] for q in quiz["questions"])])
    shown: list[str] = []
    summary = run_quiz(quiz, service.quiz_check, lambda _: next(lines, None), shown.append)
    assert summary["answered"] == summary["correct"] == 3
    assert any("must be one of" in s for s in shown) and "Pontuação: 3/3" in shown[-1]
    stopped = run_quiz(quiz, service.quiz_check, lambda _: None, shown.append)
    assert stopped["answered"] == 0


def test_cli_quiz(data_copy: Path, corpus_dir: Path) -> None:
    where = ["--data", str(data_copy), "--corpus", str(corpus_dir)]
    printed = CliRunner().invoke(cli_app, ["quiz", "--n", "2", "--seed", "9", "--json", *where])
    assert printed.exit_code == 0, printed.output
    quiz = json.loads(printed.stdout)
    answers = "\n".join(q["answer"] for q in quiz["questions"]) + "\n"
    played = CliRunner().invoke(cli_app, ["quiz", "--n", "2", "--seed", "9", *where], input=answers)
    assert played.exit_code == 0, played.output
    assert "Pontuação: 2/2 (seed 9)" in played.stdout
    bad = CliRunner().invoke(cli_app, ["quiz", "--n", "99", *where])
    assert bad.exit_code == 2


def test_question_records_are_frozen(bank: QuestionBank) -> None:
    q: Question = bank.questions[0]
    with pytest.raises(AttributeError):
        q.answer = "x"  # type: ignore[misc]


def test_claims_are_true_false_questions_keyed_by_holds(
    bank: QuestionBank, kg: KnowledgeGraph
) -> None:
    claims = [q for q in bank.questions if q.family == "claim"]
    assert len(claims) == len(kg.of_type("Claim"))
    for q in claims:
        claim = kg.node(q.citation.id)
        assert q.answer == ("true" if claim.props["holds"] else "false")
        assert q.statement == claim.label_pt and q.citation.text == claim.text
    assert {q.answer for q in claims} == {"true", "false"}


# --- fairness rules (kb/presentation/quiz_checks.py) ------------------------------------------
def test_a_statement_holding_in_several_steps_is_detected() -> None:
    from kb.presentation.quiz_checks import holds_in_several

    assert holds_in_several("Efeitos de Virar NÃO são ativados ainda.", [])  # an absence
    later = ["Uma única corrente manual é construída. Correntes adicionais são construídas."]
    assert holds_in_several("Uma única corrente manual pode ser construída nesta sub-etapa.", later)
    assert not holds_in_several("Efeitos de Virar ativam e formam uma corrente agora.", later)


def test_no_damage_step_question_is_keyed_by_a_statement_of_several_substeps(
    bank: QuestionBank, kg: KnowledgeGraph
) -> None:
    from kb.presentation.quiz_checks import holds_in_several

    questions = [q for q in bank.questions if q.family == "damage-step"]
    assert len(questions) >= 5
    substeps = [s for s in kg.of_type("Step") if s.props.get("kind") == "damage-substep"]
    texts = {s.id: [kg.node(c).text or "" for c in kg.children(s.id)] for s in substeps}
    for q in questions:
        assert not negations(q.citation.text), q.id
        home = kg.node(q.citation.id).parent
        elsewhere = [t for sid, ts in texts.items() if sid != home for t in ts]
        assert not holds_in_several(q.citation.text, elsewhere), q.id
    ids = {q.id for q in questions}
    assert "damage-step:edison/rule-08/substep-02/p-02" not in ids  # "NÃO são ativados ainda"
    assert "damage-step:edison/rule-08/substep-04/p-04" not in ids  # also in sub-steps 5-7
    assert "damage-step:edison/rule-08/substep-06/p-04" in ids  # Flip effects: sub-step 6 only


def test_giveaways_are_detected() -> None:
    from kb.presentation.quiz_checks import fair_options, giveaway

    names = ["Começo da Etapa de Dano", "Antes do Cálculo de Dano", "Final da Etapa de Dano"]
    shown = ['Efeitos que disparam "no começo da Etapa de Dano" ativam agora.']
    assert giveaway(shown, names, names[0]) == {"comec"}
    assert fair_options(names[0], names[1:], shown, "seed") is None
    # a distractor sharing the prompt's word with the key makes the question fair
    steps = ["Durante o Cálculo de Dano", "Final da Etapa de Dano", "Depois do Cálculo de Dano"]
    chosen = fair_options(steps[0], steps[1:], ["Antes do Cálculo de Dano"], "s", k=1)
    assert chosen == ["Durante o Cálculo de Dano", "Depois do Cálculo de Dano"]


def test_no_multiple_choice_prompt_gives_its_key_away(bank: QuestionBank) -> None:
    from kb.presentation.quiz_checks import distinct, giveaway

    lettered = [q for q in bank.questions if q.family in ("order", "damage-step", "capability")]
    assert len(lettered) >= 25
    for q in lettered:
        texts = [o.text for o in q.options]
        assert distinct(texts) and len(texts) >= 3, q.id
        key = q.option(q.answer).text
        shown = [q.statement or ""]  # (the rule's title, "Os 7 Tempos …", counts; not a clue)
        if q.family == "capability":
            shown = [q.prompt]
        elif q.family == "order" and "«" in q.prompt:
            shown.append(q.prompt.split("«", 1)[1].rsplit("»", 1)[0])
        common = {"efeit", "ativ", "agor", "dan", "etap", "sub", "batalh", "monstr"}
        assert not giveaway(shown, texts, key, common), q.id


def test_true_false_statements_name_their_subject(bank: QuestionBank) -> None:
    from kb.presentation.quiz_checks import lacks_subject

    assert lacks_subject("-NÃO PODEM ser negados por cartas como Saber Hole")
    assert lacks_subject("Se o efeito for de um monstro, pode ser negado com Divine Wrath.")
    assert not lacks_subject("Efeitos de Virar ativam agora.")
    verb_first = [
        q for q in bank.questions if q.family == "statement" and lacks_subject(q.citation.text)
    ]
    assert verb_first, "the special-summon rule lists open with their verb"
    for q in verb_first:
        assert q.context, q.id
    q = bank.by_id["tf:rulings/special-summon/non-inherent/rules/p-01:s0:false"]
    assert q.context == "Invocações-Especiais não-inerentes"
    assert q.statement == "PODEM ser negados por cartas como Saber Hole ou Thunder King Rai-oh"


@pytest.mark.parametrize(
    "sentence",
    [
        "Efeitos de Virar NÃO são ativados ainda.",  # "not yet": removing não is no opposite
        'Se "Tempestade Pesada" for usada, "Armadilha Falsa" não pode evitar, mas "Escudo" pode.',
        "No Formato Edison, isto pode ocorrer, enquanto no formato atual geralmente não é o caso.",
    ],
)
def test_flips_that_would_give_themselves_away_are_not_made(sentence: str) -> None:
    assert flip(sentence) is None


def test_flipped_statements_keep_their_subject(bank: QuestionBank) -> None:
    """A flip adds or removes one `não` (and a `mais`): every other word stays."""
    for q in bank.questions:
        if q.family == "statement" and q.answer == "false":
            original = q.citation.text.split()
            flipped = (q.statement or "").split()
            removed = [w for w in original if w not in flipped]
            added = [w for w in flipped if w not in original]
            assert original[:1] == flipped[:1] or {w.casefold() for w in removed + added} & {
                "não",
                "-não",
            }, q.id
            assert {w.casefold().strip("-") for w in removed + added} <= {"não", "mais"} | {
                w.casefold().strip("-") for w in original[:1] + flipped[:1]
            }, q.id


def test_the_reviewed_sample_is_the_current_one(bank: QuestionBank) -> None:
    """docs/quiz-review.md reviews `sample(100, 13)`: a generator change that alters the sample
    must come with a new review."""
    review = (REPO / "docs" / "quiz-review.md").read_text("utf-8")
    reviewed = re.findall(
        r"^\| (\d+) \| `([^`]+)` \| [a-z-]+ · [a-z]+ \| (ok|faulty) \|", review, re.M
    )
    assert [int(n) for n, _, _ in reviewed] == list(range(1, SIZE + 1))
    assert [q.id for q in bank.sample(SIZE, SEED)] == [qid for _, qid, _ in reviewed]
    assert sum(verdict == "faulty" for _, _, verdict in reviewed) < 3
    assert f"--seed {SEED} --n {SIZE}" in review
