"""The typed requests and results of judge training, shared by the service, the CLI's JSON, the
routes (OpenAPI) and the MCP tools. A question as a session shows it has no key and no
explanation: those come back only in a `Feedback` (after a practice answer) or an `ExamResult`
(after the exam is closed)."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import AwareDatetime, BaseModel, Field, StrictBool, StrictInt, StrictStr

from kb.presentation.quiz import MAX_QUESTIONS
from kb.schemas import Closed, QuestionKind, QuizOption, SourceSpan

SessionKind = Literal["practice", "exam"]
MAX_TOPICS = 20
MAX_TIME_LIMIT = 4 * 3600
MIN_TIME_LIMIT = 30
NAME_LENGTH = 80


class Request(BaseModel, extra="forbid"):
    """A request body: unknown keys are refused (a misspelt `time_limit` is not ignored)."""


class NewTrainee(Request):
    """The body of POST /trainees: an optional display name, nothing else personal."""

    name: StrictStr | None = Field(
        default=None, max_length=NAME_LENGTH, description="A display name (optional)."
    )


class Trainee(Closed):
    """A new trainee and the token that identifies them (shown once: keep it)."""

    token: str = Field(description="Send as `Authorization: Bearer <token>` on training routes.")
    name: str | None
    created: datetime
    expires: datetime


class PracticeRequest(Request):
    """The body of POST /practice: the filters and size of a practice set."""

    format: StrictStr | None = Field(default=None, description="A format id (see /stats).")
    topics: list[StrictStr] = Field(
        default_factory=list, max_length=MAX_TOPICS, description="Topics; empty: all."
    )
    n: StrictInt = Field(default=10, ge=1, le=MAX_QUESTIONS, description="Questions (1..50).")


class ExamRequest(PracticeRequest):
    """The body of POST /exams: a practice set's filters plus an optional time limit and the
    pass mark, both enforced by the server."""

    time_limit: StrictInt | None = Field(
        default=None,
        ge=MIN_TIME_LIMIT,
        le=MAX_TIME_LIMIT,
        description="Seconds from the start; answers after it are refused and the exam closes.",
    )
    pass_mark: float = Field(default=0.75, ge=0, le=1, description="Share of right answers.")


class AnswerRequest(Request):
    """One answer to a question of a session."""

    question_id: StrictStr = Field(max_length=300, description="A question id of the session.")
    answer: StrictStr | StrictBool | StrictInt = Field(
        description="An option key, its text, its 1-based number, or true/false."
    )


class SessionQuestion(Closed):
    """A question as a session shows it: no key, no explanation, no citation."""

    id: str
    kind: QuestionKind
    family: str
    format: str
    topics: list[str]
    prompt: str
    context: str | None
    statement: str | None
    options: list[QuizOption]


class TrainingSession(Closed):
    """A practice session or an exam, as the trainee sees it."""

    id: str
    kind: SessionKind
    format: str | None
    topics: list[str]
    build_id: str = Field(description="The KB build the questions were drawn from.")
    created: datetime
    deadline: datetime | None = Field(description="An exam's time limit, as a moment (UTC).")
    pass_mark: float | None
    closed: bool
    questions: list[SessionQuestion]
    answered: list[str] = Field(description="The ids of the questions already answered.")


class Feedback(Closed):
    """A graded answer: the key, the explanation and the citation."""

    question_id: str
    correct: bool
    given: str | None = Field(description="The answer as an option key; null: not answered.")
    expected: str
    expected_text: str
    explanation: str
    machine_translated: bool
    citation: SourceSpan
    time_taken_ms: int | None = Field(description="Since the previous answer (or the start).")


class ExamAnswer(Closed):
    """An exam answer recorded: no key until the exam is closed."""

    question_id: str
    recorded: bool
    answered: int = Field(ge=0)
    remaining: int = Field(ge=0)
    deadline: datetime | None


class TopicScore(Closed):
    topic: str
    total: int = Field(ge=0)
    correct: int = Field(ge=0)
    score: float = Field(ge=0, le=1)


class ExamResult(Closed):
    """A closed exam: the score, pass or fail, the score by topic and each missed question
    (wrong or unanswered) with its key, explanation and citation."""

    id: str
    format: str | None
    topics: list[str]
    total: int = Field(ge=0, description="Questions graded (retired ones are not).")
    answered: int = Field(ge=0)
    correct: int = Field(ge=0)
    score: float = Field(ge=0, le=1)
    pass_mark: float
    passed: bool
    timed_out: bool = Field(description="Closed by its time limit rather than by the trainee.")
    closed: datetime
    by_topic: list[TopicScore]
    missed: list[Feedback]
    retired: list[str] = Field(
        description="Questions whose source text changed since the exam began: not graded."
    )


class Mastery(Closed):
    """What the recorded answers say of one topic or format."""

    key: str = Field(description="The topic or format id.")
    answers: int = Field(ge=0)
    correct: int = Field(ge=0)
    accuracy: float = Field(ge=0, le=1)
    questions: int = Field(ge=0, description="Distinct questions answered.")
    mastery: float = Field(
        ge=0, le=1, description="Mean recall probability now (FSRS) over those questions."
    )


class Progress(Closed):
    """A trainee's progress: totals, what is due, mastery by topic and by format."""

    name: str | None
    answers: int = Field(ge=0)
    correct: int = Field(ge=0)
    due: int = Field(ge=0, description="Questions the scheduler says to review now.")
    by_topic: list[Mastery]
    by_format: list[Mastery]


class HistoryAnswer(Closed):
    question_id: str = Field(max_length=300)
    build_id: str = Field(max_length=128)
    fingerprint: str = Field(max_length=64)
    format: str = Field(max_length=64)
    topics: list[str] = Field(max_length=MAX_TOPICS * 5)
    given: str = Field(max_length=64)
    correct: bool
    time_taken_ms: int = Field(ge=0)
    answered_at: AwareDatetime
    session: SessionKind | None


class HistoryReview(Closed):
    question_id: str = Field(max_length=300)
    fingerprint: str = Field(max_length=64)
    card: dict[str, str | int | float | None]
    due: AwareDatetime
    last_correct: bool


class History(Closed):
    """A trainee's history as JSON (export and import): every answer and review state; sessions
    and the token are not part of it."""

    version: Literal[1] = 1
    name: str | None = Field(default=None, max_length=NAME_LENGTH)
    answers: list[HistoryAnswer]
    reviews: list[HistoryReview]


class Imported(Closed):
    answers: int = Field(ge=0, description="Answers added.")
    skipped: int = Field(ge=0, description="Answers already recorded (same question and time).")
    reviews: int = Field(ge=0)
