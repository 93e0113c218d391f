"""The training service on SQLite and on a real PostgreSQL server (the `database` fixture),
over the hand-made bank with a fixed clock: keys stay on the server until an answer or the
exam's close, exams enforce their time limit and pass mark, answers are recorded once."""

from __future__ import annotations

import pytest

from kb.errors import Conflict, InvalidQuery, NotFound, Unauthorized
from kb.training.schemas import (
    AnswerRequest,
    ExamRequest,
    NewTrainee,
    PracticeRequest,
)
from kb.training.service import TrainingService
from training.conftest import FixedClock  # type: ignore[import-not-found]

KEY_FIELDS = {"answer", "explanation", "citation", "expected", "machine_translated"}


def token_of(training: TrainingService, name: str | None = "Ana") -> str:
    return training.create_trainee(NewTrainee(name=name)).token


def keys(question_id: str, training: TrainingService) -> str:
    return training.bank.by_id[question_id].answer


def wrong(question_id: str, training: TrainingService) -> str:
    q = training.bank.by_id[question_id]
    return next(o.key for o in q.options if o.key != q.answer)


def test_a_session_shows_no_key(training: TrainingService) -> None:
    token = token_of(training)
    session = training.start_practice(token, PracticeRequest(n=5))
    data = session.model_dump()
    assert len(data["questions"]) == 5
    for q in data["questions"]:
        assert not KEY_FIELDS & set(q), q
    assert training.session(token, session.id).model_dump() == data


def test_practice_grades_each_answer_with_its_key_and_records_it(
    training: TrainingService, clock: FixedClock
) -> None:
    token = token_of(training)
    session = training.start_practice(token, PracticeRequest(format="edison", n=3))
    first, second = session.questions[0].id, session.questions[1].id
    clock.advance(seconds=12)
    right = training.answer_practice(
        token, session.id, AnswerRequest(question_id=first, answer=keys(first, training))
    )
    assert right.correct and right.time_taken_ms == 12000 and right.explanation
    assert right.citation.document == "alpha"
    clock.advance(seconds=3)
    miss = training.answer_practice(
        token, session.id, AnswerRequest(question_id=second, answer=wrong(second, training))
    )
    assert not miss.correct and miss.time_taken_ms == 3000
    assert miss.expected == keys(second, training)
    assert training.session(token, session.id).answered == [first, second]
    progress = training.progress(token)
    assert progress.answers == 2 and progress.correct == 1
    assert [m.key for m in progress.by_format] == ["edison"]


def test_answering_twice_or_outside_the_session_is_a_conflict(training: TrainingService) -> None:
    token = token_of(training)
    session = training.start_practice(token, PracticeRequest(n=2))
    qid = session.questions[0].id
    training.answer_practice(token, session.id, AnswerRequest(question_id=qid, answer=1))
    with pytest.raises(Conflict) as err:
        training.answer_practice(token, session.id, AnswerRequest(question_id=qid, answer=1))
    assert err.value.params["key"] == qid and "already answered" in str(err.value)
    outside = next(
        q.id for q in training.bank.questions if q.id not in {x.id for x in session.questions}
    )
    with pytest.raises(Conflict, match="not a question of session"):
        training.answer_practice(token, session.id, AnswerRequest(question_id=outside, answer=1))
    assert training.progress(token).answers == 1  # the refused answers wrote nothing


def test_tokens_are_checked(training: TrainingService, clock: FixedClock) -> None:
    for token in (None, "", "nope", "x" * 500):
        with pytest.raises(Unauthorized):
            training.progress(token)
    token = token_of(training, None)
    assert training.progress(token).name is None
    clock.advance(days=366)
    with pytest.raises(Unauthorized, match="expired"):
        training.progress(token)


def test_another_trainees_session_is_not_found(training: TrainingService) -> None:
    mine, theirs = token_of(training), token_of(training, "Bia")
    session = training.start_practice(mine, PracticeRequest(n=1))
    with pytest.raises(NotFound):
        training.session(theirs, session.id)
    with pytest.raises(NotFound):
        training.answer_exam(mine, session.id, AnswerRequest(question_id="q00:alpha", answer=1))


def test_bad_filters_name_the_field(training: TrainingService) -> None:
    token = token_of(training)
    with pytest.raises(InvalidQuery) as err:
        training.start_practice(token, PracticeRequest(topics=["chain", "nope"]))
    assert err.value.field == "topics[1]"
    with pytest.raises(InvalidQuery) as err:
        training.start_exam(token, ExamRequest(format="general", topics=["damage-step"]))
    assert err.value.field == "topic" and err.value.params["available"] == "chain, summon"
    with pytest.raises(InvalidQuery) as err:
        training.start_exam(token, ExamRequest(format="tag"))
    assert err.value.field == "format"


def test_an_exam_keeps_its_keys_until_it_is_closed(training: TrainingService) -> None:
    token = token_of(training)
    exam = training.start_exam(token, ExamRequest(format="edison", n=4, pass_mark=0.5))
    ids = [q.id for q in exam.questions]
    ack = training.answer_exam(
        token, exam.id, AnswerRequest(question_id=ids[0], answer=keys(ids[0], training))
    )
    assert ack.model_dump().keys() == {
        "question_id",
        "recorded",
        "answered",
        "remaining",
        "deadline",
    }
    assert ack.answered == 1 and ack.remaining == 3
    training.answer_exam(
        token, exam.id, AnswerRequest(question_id=ids[1], answer=keys(ids[1], training))
    )
    training.answer_exam(
        token, exam.id, AnswerRequest(question_id=ids[2], answer=wrong(ids[2], training))
    )
    with pytest.raises(Conflict, match="still open"):
        training.exam_result(token, exam.id)
    result = training.close_exam(token, exam.id)
    assert (result.total, result.answered, result.correct) == (4, 3, 2)
    assert result.score == 0.5 and result.passed and not result.timed_out
    assert {m.question_id: m.given for m in result.missed} == {
        ids[2]: wrong(ids[2], training),
        ids[3]: None,
    }
    assert all(m.explanation and m.citation.text for m in result.missed)
    assert sum(t.total for t in result.by_topic) == 4
    assert training.exam_result(token, exam.id) == result
    with pytest.raises(Conflict, match="already closed"):
        training.close_exam(token, exam.id)
    with pytest.raises(Conflict, match="closed"):
        training.answer_exam(
            token, exam.id, AnswerRequest(question_id=ids[3], answer=keys(ids[3], training))
        )


def test_an_exams_time_limit_is_enforced_by_the_server(
    training: TrainingService, clock: FixedClock
) -> None:
    token = token_of(training)
    exam = training.start_exam(token, ExamRequest(n=3, time_limit=60, pass_mark=0.3))
    assert exam.deadline == clock.now.replace(minute=1)
    ids = [q.id for q in exam.questions]
    clock.advance(seconds=59)
    training.answer_exam(
        token, exam.id, AnswerRequest(question_id=ids[0], answer=keys(ids[0], training))
    )
    clock.advance(seconds=2)
    with pytest.raises(Conflict, match="time limit passed"):
        training.answer_exam(
            token, exam.id, AnswerRequest(question_id=ids[1], answer=keys(ids[1], training))
        )
    assert training.session(token, exam.id).closed
    result = training.exam_result(token, exam.id)  # closed by its time limit
    assert result.timed_out and result.closed == exam.deadline
    assert (result.answered, result.correct, result.passed) == (1, 1, True)
    with pytest.raises(Conflict):
        training.close_exam(token, exam.id)


def test_a_question_changed_by_a_new_build_is_never_graded_against_its_old_key(
    training: TrainingService,
) -> None:
    from dataclasses import replace

    from kb.presentation.quiz import QuestionBank

    token = token_of(training)
    exam = training.start_exam(token, ExamRequest(format="edison", n=2, pass_mark=0.5))
    practice = training.start_practice(token, PracticeRequest(format="edison", n=2))
    changed = exam.questions[0].id
    old = training.bank
    rekeyed = [
        replace(q, answer="false")
        if q.id == changed and q.kind == "true-false"
        else replace(q, answer="a")
        if q.id == changed
        else q
        for q in old.questions
    ]
    new_bank = QuestionBank(old.topics, rekeyed)
    training._bank = lambda: new_bank
    training.build_id = "build-2"
    with pytest.raises(Conflict, match="retired"):
        training.answer_exam(token, exam.id, AnswerRequest(question_id=changed, answer=1))
    other = exam.questions[1].id
    training.answer_exam(
        token, exam.id, AnswerRequest(question_id=other, answer=keys(other, training))
    )
    result = training.close_exam(token, exam.id)
    assert result.retired == [changed] and result.total == 1 and result.correct == 1
    assert changed not in {q.id for q in training.session(token, practice.id).questions}


def test_concurrent_answers_to_one_question_record_exactly_one(training: TrainingService) -> None:
    from concurrent.futures import ThreadPoolExecutor

    token = token_of(training)
    session = training.start_practice(token, PracticeRequest(n=1))
    qid = session.questions[0].id

    def answer(_: int) -> str:
        try:
            training.answer_practice(token, session.id, AnswerRequest(question_id=qid, answer=1))
            return "recorded"
        except Conflict:
            return "conflict"

    with ThreadPoolExecutor(8) as pool:
        outcomes = list(pool.map(answer, range(8)))
    assert outcomes.count("recorded") == 1 and outcomes.count("conflict") == 7
    assert training.progress(token).answers == 1


def test_the_pass_mark_is_met_exactly(training: TrainingService) -> None:
    token = token_of(training)
    exam = training.start_exam(token, ExamRequest(format="edison", n=4, pass_mark=0.75))
    ids = [q.id for q in exam.questions]
    for qid in ids[:3]:
        training.answer_exam(
            token, exam.id, AnswerRequest(question_id=qid, answer=keys(qid, training))
        )
    result = training.close_exam(token, exam.id)
    assert result.score == 0.75 and result.passed
    assert training.progress(token).answers == 3  # counted once the exam is closed
