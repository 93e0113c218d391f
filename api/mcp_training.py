"""The MCP tools of judge training: one per `TrainingService` method, named after it, with the
route's body model as arguments plus the trainee's `token` (an assistant has no HTTP header to
send it in), and the route's response model as result. They write (answers are recorded), so
they are not marked read-only. Keys reach the assistant only in `answer_practice`'s feedback and
in a closed exam's result, as on the HTTP routes.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from api.mcp_tools import ToolArgs, ToolSpec
from kb.service import RulingsService
from kb.training.schemas import (
    AnswerRequest,
    ExamAnswer,
    ExamRequest,
    ExamResult,
    Feedback,
    NewTrainee,
    PracticeRequest,
    Progress,
    Trainee,
    TrainingSession,
)

TOKEN = Field(max_length=200, description="The trainee's token from create_trainee.")
SESSION = Field(max_length=64, description="The id start_practice returned.")
EXAM = Field(max_length=64, description="The id start_exam returned.")
KEEP_KEYS = " Show the trainee the prompt and options only; the key comes back with their answer."
LANG_HELP = "The language of the prompts, options and explanations (same ids and keys)."


class NewTraineeArgs(ToolArgs, NewTrainee):
    """The arguments of `create_trainee`: POST /trainees's body."""


class TokenArgs(ToolArgs):
    token: str = TOKEN


class PracticeArgs(ToolArgs, PracticeRequest):
    """The arguments of `start_practice`: POST /practice's body and the token."""

    token: str = TOKEN
    lang: Literal["pt", "en"] = Field(default="pt", description=LANG_HELP)


class PracticeAnswerArgs(ToolArgs, AnswerRequest):
    token: str = TOKEN
    session_id: str = SESSION
    lang: Literal["pt", "en"] = Field(default="pt", description=LANG_HELP)


class ExamArgs(ToolArgs, ExamRequest):
    """The arguments of `start_exam`: POST /exams's body and the token."""

    token: str = TOKEN
    lang: Literal["pt", "en"] = Field(default="pt", description=LANG_HELP)


class ExamAnswerArgs(ToolArgs, AnswerRequest):
    token: str = TOKEN
    exam_id: str = EXAM


class ExamIdArgs(ToolArgs):
    token: str = TOKEN
    exam_id: str = EXAM
    lang: Literal["pt", "en"] = Field(default="pt", description=LANG_HELP)


def _json(model: Any) -> dict[str, Any]:
    data: dict[str, Any] = model.model_dump(mode="json")
    return data


def _answer(a: AnswerRequest) -> AnswerRequest:
    return AnswerRequest(question_id=a.question_id, answer=a.answer)


def _request(model: type[PracticeRequest], a: PracticeRequest) -> Any:
    fields = set(model.model_fields)
    return model.model_validate(a.model_dump(include=fields))


def _create(s: RulingsService, a: NewTraineeArgs) -> dict[str, Any]:
    return _json(s.training.create_trainee(NewTrainee(name=a.name)))


def _practice(s: RulingsService, a: PracticeArgs) -> dict[str, Any]:
    return _json(s.training.start_practice(a.token, _request(PracticeRequest, a), a.lang))


def _practice_answer(s: RulingsService, a: PracticeAnswerArgs) -> dict[str, Any]:
    return _json(s.training.answer_practice(a.token, a.session_id, _answer(a), a.lang))


def _exam(s: RulingsService, a: ExamArgs) -> dict[str, Any]:
    return _json(s.training.start_exam(a.token, _request(ExamRequest, a), a.lang))


def _exam_answer(s: RulingsService, a: ExamAnswerArgs) -> dict[str, Any]:
    return _json(s.training.answer_exam(a.token, a.exam_id, _answer(a)))


def _close(s: RulingsService, a: ExamIdArgs) -> dict[str, Any]:
    return _json(s.training.close_exam(a.token, a.exam_id, a.lang))


def _result(s: RulingsService, a: ExamIdArgs) -> dict[str, Any]:
    return _json(s.training.exam_result(a.token, a.exam_id, a.lang))


def _progress(s: RulingsService, a: TokenArgs) -> dict[str, Any]:
    return _json(s.training.progress(a.token))


TRAINING_TOOLS: tuple[ToolSpec[Any], ...] = (
    ToolSpec(
        "create_trainee",
        "Start judge training",
        "A new trainee: an opaque token (keep it; send it to every other training tool) and "
        "an optional display name. Nothing personal beyond that name is kept.",
        NewTraineeArgs,
        Trainee,
        "name",
        _create,
        read_only=False,
    ),
    ToolSpec(
        "start_practice",
        "A practice set that remembers",
        "Questions chosen by spaced repetition (FSRS): those due, those missed, then new ones, "
        "by format and topics; ids, prompts and options only." + KEEP_KEYS,
        PracticeArgs,
        TrainingSession,
        "session_id",
        _practice,
        read_only=False,
    ),
    ToolSpec(
        "answer_practice",
        "Answer a practice question",
        "Record and grade one answer (an option key, its text, its number, true/false): the "
        "key, the explanation and the exact citation. A question answered twice is an error.",
        PracticeAnswerArgs,
        Feedback,
        "session_id",
        _practice_answer,
        read_only=False,
    ),
    ToolSpec(
        "start_exam",
        "Start an exam",
        "An exam of n questions (format, topics), an optional time limit the server enforces "
        "and a pass mark; no keys until it is closed (close_exam).",
        ExamArgs,
        TrainingSession,
        "exam_id",
        _exam,
        read_only=False,
    ),
    ToolSpec(
        "answer_exam",
        "Answer an exam question",
        "Record one exam answer; says nothing of the key. Refused after the time limit or "
        "the close.",
        ExamAnswerArgs,
        ExamAnswer,
        "exam_id",
        _exam_answer,
        read_only=False,
    ),
    ToolSpec(
        "close_exam",
        "Close and grade an exam",
        "Close an exam for good (no more answers, no extension) and grade it: pass or fail, "
        "the score by topic, each missed question with its key, explanation and citation.",
        ExamIdArgs,
        ExamResult,
        "exam_id",
        _close,
        read_only=False,
    ),
    ToolSpec(
        "exam_result",
        "A closed exam's result",
        "The result of a closed exam (an exam past its time limit is closed now).",
        ExamIdArgs,
        ExamResult,
        "exam_id",
        _result,
        read_only=False,
    ),
    ToolSpec(
        "progress",
        "A trainee's progress",
        "Answers, what is due for review, and mastery by topic and by format, from every "
        "recorded answer.",
        TokenArgs,
        Progress,
        "token",
        _progress,
        read_only=False,
    ),
)
