"""The training records over SQLAlchemy: one Repository per transaction (a Session), with the
reads and writes the service needs and nothing else. Ids and tokens are random; only a
token's hash is stored."""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from kb.errors import Conflict
from kb.training.schedule import ReviewState
from kb.training.tables import AnswerRow, ReviewRow, SessionQuestionRow, SessionRow, TraineeRow


def new_id() -> str:
    return secrets.token_hex(16)


def new_token() -> str:
    return secrets.token_urlsafe(32)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


class Repository:
    """Reads and writes of one transaction."""

    def __init__(self, session: Session) -> None:
        self.s = session

    # --- trainees ---------------------------------------------------------------------------
    def add_trainee(self, token: str, name: str | None, now: datetime, expires: datetime) -> str:
        row = TraineeRow(
            id=new_id(), token_hash=token_hash(token), name=name, created_at=now, expires_at=expires
        )
        self.s.add(row)
        self.s.flush()
        return row.id

    def trainee_by_token(self, token: str) -> TraineeRow | None:
        found = self.s.execute(
            select(TraineeRow).where(TraineeRow.token_hash == token_hash(token))
        ).scalar_one_or_none()
        return found

    # --- sessions ---------------------------------------------------------------------------
    def add_session(self, row: SessionRow, questions: Sequence[tuple[str, str]]) -> None:
        self.s.add(row)
        self.s.flush()
        for position, (qid, fp) in enumerate(questions):
            self.s.add(
                SessionQuestionRow(
                    session_id=row.id, position=position, question_id=qid, fingerprint=fp
                )
            )
        self.s.flush()

    def session(self, session_id: str, trainee_id: str, *, lock: bool = False) -> SessionRow | None:
        """The trainee's session (None for another trainee's: its id is not theirs to know);
        `lock` holds it for this transaction (an exam's answers and close are serialised)."""
        query = select(SessionRow).where(
            SessionRow.id == session_id, SessionRow.trainee_id == trainee_id
        )
        if lock:
            query = query.with_for_update()
        return self.s.execute(query).scalar_one_or_none()

    def open_exams(self, trainee_id: str) -> list[SessionRow]:
        return list(
            self.s.execute(
                select(SessionRow)
                .where(
                    SessionRow.trainee_id == trainee_id,
                    SessionRow.kind == "exam",
                    SessionRow.closed_at.is_(None),
                )
                .with_for_update()
            ).scalars()
        )

    def session_questions(self, session_id: str) -> list[SessionQuestionRow]:
        return list(
            self.s.execute(
                select(SessionQuestionRow)
                .where(SessionQuestionRow.session_id == session_id)
                .order_by(SessionQuestionRow.position)
            ).scalars()
        )

    def session_answers(self, session_id: str) -> list[AnswerRow]:
        return list(
            self.s.execute(
                select(AnswerRow).where(AnswerRow.session_id == session_id).order_by(AnswerRow.id)
            ).scalars()
        )

    # --- answers ----------------------------------------------------------------------------
    def add_answer(self, row: AnswerRow) -> None:
        """Record one answer; a second answer to the same question of a session (even from a
        concurrent request) is a Conflict and writes nothing."""
        try:
            with self.s.begin_nested():
                self.s.add(row)
                self.s.flush()
        except IntegrityError as exc:
            raise Conflict("question", row.question_id, "already answered in this session") from exc

    def answers(self, trainee_id: str) -> list[AnswerRow]:
        return list(
            self.s.execute(
                select(AnswerRow).where(AnswerRow.trainee_id == trainee_id).order_by(AnswerRow.id)
            ).scalars()
        )

    def session_kinds(self, trainee_id: str) -> dict[str, str]:
        rows = self.s.execute(
            select(SessionRow.id, SessionRow.kind).where(SessionRow.trainee_id == trainee_id)
        )
        return {sid: kind for sid, kind in rows}

    # --- reviews ----------------------------------------------------------------------------
    def reviews(self, trainee_id: str) -> dict[str, ReviewState]:
        rows = self.s.execute(select(ReviewRow).where(ReviewRow.trainee_id == trainee_id)).scalars()
        return {
            r.question_id: ReviewState(r.question_id, r.fingerprint, r.card, r.due, r.last_correct)
            for r in rows
        }

    def review(self, trainee_id: str, question_id: str) -> ReviewState | None:
        r = self.s.get(ReviewRow, (trainee_id, question_id))
        if r is None:
            return None
        return ReviewState(r.question_id, r.fingerprint, r.card, r.due, r.last_correct)

    def put_review(self, trainee_id: str, state: ReviewState) -> None:
        row = self.s.get(ReviewRow, (trainee_id, state.question_id))
        if row is None:
            row = ReviewRow(trainee_id=trainee_id, question_id=state.question_id)
            self.s.add(row)
        row.fingerprint = state.fingerprint
        row.card = state.card
        row.due = state.due
        row.last_correct = state.last_correct
        self.s.flush()
