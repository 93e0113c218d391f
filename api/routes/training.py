"""Routes: judge training that remembers (kb.training). `POST /trainees` issues a token; every
other training route takes it as `Authorization: Bearer <token>`.

Practice: `POST /practice` (a set chosen by the scheduler), `GET /practice/{id}`,
`POST /practice/{id}/answers` (graded at once: key, explanation, citation).
Exams: `POST /exams`, `GET /exams/{id}`, `POST /exams/{id}/answers` (recorded, not graded),
`POST /exams/{id}/close`, `GET /exams/{id}/result`. Progress and history: `GET /progress`,
`GET /history`, `POST /history`.

Thin adapters over `RulingsService.training`, like the `ygo-rulings trainee|practice|exam|
progress|history` commands and the MCP training tools. Responses are personal: `no-store`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from fastapi import Depends, FastAPI, Path, Response
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from api.errors import error_responses
from api.routes.wiki import QuizLangParam as Lang
from kb.service import RulingsService
from kb.training.schemas import (
    AnswerRequest,
    ExamAnswer,
    ExamRequest,
    ExamResult,
    Feedback,
    History,
    Imported,
    NewTrainee,
    PracticeRequest,
    Progress,
    Trainee,
    TrainingSession,
)

if TYPE_CHECKING:
    from kb.training.service import TrainingService

BEARER = HTTPBearer(auto_error=False, description="The trainee's token from POST /trainees.")
TRAINING_PATHS = frozenset(
    {
        "/trainees",
        "/practice",
        "/practice/{session_id}",
        "/practice/{session_id}/answers",
        "/exams",
        "/exams/{exam_id}",
        "/exams/{exam_id}/answers",
        "/exams/{exam_id}/close",
        "/exams/{exam_id}/result",
        "/progress",
        "/history",
    }
)
SessionId = Annotated[str, Path(max_length=64, description="The id POST /practice returned.")]
ExamId = Annotated[str, Path(max_length=64, description="The id POST /exams returned.")]
AUTHED = error_responses(401, 422, 503)
WITH_SESSION = error_responses(401, 404, 409, 422, 503)


def token_of(
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(BEARER)],
    response: Response,
) -> str | None:
    """The bearer token (None without one: the service answers 401); personal, never cached."""
    response.headers["cache-control"] = "no-store"
    return credentials.credentials if credentials else None


Token = Annotated[str | None, Depends(token_of)]


def register(app: FastAPI, service: RulingsService) -> None:
    """Add the training routes."""

    def training() -> TrainingService:
        return service.training

    @app.post(
        "/trainees",
        tags=["training"],
        status_code=201,
        response_model=Trainee,
        responses=error_responses(422, 503),
    )
    def new_trainee(body: NewTrainee, response: Response) -> Trainee:
        """A new trainee: an opaque token (no password; an optional display name only)."""
        response.headers["cache-control"] = "no-store"
        return training().create_trainee(body)

    @app.post(
        "/practice",
        tags=["training"],
        status_code=201,
        response_model=TrainingSession,
        responses=AUTHED,
    )
    def practice(body: PracticeRequest, token: Token, lang: Lang = "pt") -> TrainingSession:
        """A practice set chosen by the scheduler (due, missed, then new questions): question
        ids, prompts and options only."""
        return training().start_practice(token, body, lang)

    @app.get(
        "/practice/{session_id}",
        tags=["training"],
        response_model=TrainingSession,
        responses=WITH_SESSION,
    )
    def practice_session(session_id: SessionId, token: Token, lang: Lang = "pt") -> TrainingSession:
        """A practice session: its questions (no keys) and which are answered."""
        return training().session(token, session_id, "practice", lang)

    @app.post(
        "/practice/{session_id}/answers",
        tags=["training"],
        response_model=Feedback,
        responses=WITH_SESSION,
    )
    def practice_answer(
        session_id: SessionId, body: AnswerRequest, token: Token, lang: Lang = "pt"
    ) -> Feedback:
        """Answer one question: graded at once, with the key, explanation and citation."""
        return training().answer_practice(token, session_id, body, lang)

    @app.post(
        "/exams",
        tags=["training"],
        status_code=201,
        response_model=TrainingSession,
        responses=AUTHED,
    )
    def exam(body: ExamRequest, token: Token, lang: Lang = "pt") -> TrainingSession:
        """An exam: N questions, a format and topics, an optional time limit and a pass mark,
        kept by the server."""
        return training().start_exam(token, body, lang)

    @app.get(
        "/exams/{exam_id}",
        tags=["training"],
        response_model=TrainingSession,
        responses=WITH_SESSION,
    )
    def exam_session(exam_id: ExamId, token: Token, lang: Lang = "pt") -> TrainingSession:
        """An exam: its questions (no keys), its deadline, which are answered, whether closed."""
        return training().session(token, exam_id, "exam", lang)

    @app.post(
        "/exams/{exam_id}/answers",
        tags=["training"],
        response_model=ExamAnswer,
        responses=WITH_SESSION,
    )
    def exam_answer(exam_id: ExamId, body: AnswerRequest, token: Token) -> ExamAnswer:
        """Record one exam answer (no key until the exam is closed); 409 after its time limit."""
        return training().answer_exam(token, exam_id, body)

    @app.post(
        "/exams/{exam_id}/close",
        tags=["training"],
        response_model=ExamResult,
        responses=WITH_SESSION,
    )
    def exam_close(exam_id: ExamId, token: Token, lang: Lang = "pt") -> ExamResult:
        """Close an exam (once) and grade it: score by topic, each missed question explained."""
        return training().close_exam(token, exam_id, lang)

    @app.get(
        "/exams/{exam_id}/result",
        tags=["training"],
        response_model=ExamResult,
        responses=WITH_SESSION,
    )
    def exam_result(exam_id: ExamId, token: Token, lang: Lang = "pt") -> ExamResult:
        """A closed exam's result (409 while it is open; past its time limit it closes)."""
        return training().exam_result(token, exam_id, lang)

    @app.get("/progress", tags=["training"], response_model=Progress, responses=AUTHED)
    def progress(token: Token) -> Progress:
        """Answers, what is due, and mastery by topic and by format."""
        return training().progress(token)

    @app.get("/history", tags=["training"], response_model=History, responses=AUTHED)
    def history(token: Token) -> History:
        """The trainee's history as JSON (every answer and review state), to keep or move."""
        return training().export_history(token)

    @app.post(
        "/history",
        tags=["training"],
        response_model=Imported,
        responses=error_responses(401, 413, 422, 503),
    )
    def history_import(body: History, token: Token) -> Imported:
        """Add an exported history to this trainee (answers already recorded are skipped)."""
        return training().import_history(token, body)
