"""The training tables (SQLAlchemy 2 declarative models). The schema is created and changed only
by the Alembic migrations in `kb/training/migrations` (a test checks they match these models)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Integer,
    String,
    Text,
    TypeDecorator,
    UniqueConstraint,
)
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

ID_LENGTH = 32  # hex of 16 random bytes
QUESTION_ID_LENGTH = 300


class UTCDateTime(TypeDecorator[datetime]):
    """A timezone-aware UTC datetime on every database (SQLite stores it without the zone)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime: training times are UTC-aware")
        return value.astimezone(UTC)

    def process_result_value(self, value: Any, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        moment: datetime = value
        return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


class Base(DeclarativeBase):
    pass


class TraineeRow(Base):
    """A trainee: known only by the hash of the token the server issued, and an optional name."""

    __tablename__ = "trainees"
    id: Mapped[str] = mapped_column(String(ID_LENGTH), primary_key=True)
    token_hash: Mapped[str] = mapped_column(String(64))
    name: Mapped[str | None] = mapped_column(String(80))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime())
    __table_args__ = (UniqueConstraint("token_hash", name="uq_trainee_token"),)


class SessionRow(Base):
    """A practice session or an exam: its filters, its questions (`SessionQuestionRow`), the
    build it was drawn from; an exam's deadline and pass mark, and when it was closed."""

    __tablename__ = "training_sessions"
    id: Mapped[str] = mapped_column(String(ID_LENGTH), primary_key=True)
    trainee_id: Mapped[str] = mapped_column(ForeignKey("trainees.id"), index=True)
    kind: Mapped[str] = mapped_column(String(16))  # practice | exam
    format: Mapped[str | None] = mapped_column(String(64))
    topics: Mapped[str] = mapped_column(Text)  # JSON list
    n: Mapped[int] = mapped_column(Integer)
    build_id: Mapped[str] = mapped_column(String(128))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    deadline: Mapped[datetime | None] = mapped_column(UTCDateTime())
    pass_mark: Mapped[float | None] = mapped_column(Float)
    closed_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    timed_out: Mapped[bool] = mapped_column(Boolean, default=False)


class SessionQuestionRow(Base):
    """A question of a session, in order, with the fingerprint of its key and source text when
    it was drawn: a question whose fingerprint changed is never graded against the old key."""

    __tablename__ = "session_questions"
    session_id: Mapped[str] = mapped_column(ForeignKey("training_sessions.id"), primary_key=True)
    position: Mapped[int] = mapped_column(Integer, primary_key=True)
    question_id: Mapped[str] = mapped_column(String(QUESTION_ID_LENGTH))
    fingerprint: Mapped[str] = mapped_column(String(64))
    __table_args__ = (UniqueConstraint("session_id", "question_id", name="uq_session_question"),)


class AnswerRow(Base):
    """One recorded answer: never changed once written (one per question of a session)."""

    __tablename__ = "answers"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    trainee_id: Mapped[str] = mapped_column(ForeignKey("trainees.id"), index=True)
    session_id: Mapped[str | None] = mapped_column(ForeignKey("training_sessions.id"))
    question_id: Mapped[str] = mapped_column(String(QUESTION_ID_LENGTH))
    build_id: Mapped[str] = mapped_column(String(128))
    fingerprint: Mapped[str] = mapped_column(String(64))
    format: Mapped[str] = mapped_column(String(64))
    topics: Mapped[str] = mapped_column(Text)  # JSON list, as the question had them
    given: Mapped[str] = mapped_column(String(64))
    correct: Mapped[bool] = mapped_column(Boolean)
    time_taken_ms: Mapped[int] = mapped_column(Integer)
    answered_at: Mapped[datetime] = mapped_column(UTCDateTime())
    __table_args__ = (UniqueConstraint("session_id", "question_id", name="uq_answer_once"),)


class ReviewRow(Base):
    """A trainee's spaced-repetition state of one question (an FSRS card as JSON) and the
    fingerprint it was learnt under: a changed fingerprint starts the card again (re-keyed)."""

    __tablename__ = "reviews"
    trainee_id: Mapped[str] = mapped_column(ForeignKey("trainees.id"), primary_key=True)
    question_id: Mapped[str] = mapped_column(String(QUESTION_ID_LENGTH), primary_key=True)
    fingerprint: Mapped[str] = mapped_column(String(64))
    card: Mapped[str] = mapped_column(Text)
    due: Mapped[datetime] = mapped_column(UTCDateTime(), index=True)
    last_correct: Mapped[bool] = mapped_column(Boolean)
