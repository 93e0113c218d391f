"""Judge training over one question bank and one database: trainees, practice sessions, exams,
progress and history. Every method is one transaction (all of it is written or none) and one
CLI command, route and MCP tool; the token is checked first in each."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from typing import Any

from fsrs import Card

from kb.errors import Conflict, InvalidQuery, NotFound, Unauthorized, unknown_value
from kb.presentation.quiz import QuestionBank, order
from kb.presentation.quiz_model import Question, check_lang
from kb.training import grading
from kb.training.database import Database
from kb.training.progress import Answered, due_count, mastery_by
from kb.training.repository import Repository, new_id, new_token
from kb.training.schedule import ReviewState, card_fields, plan, review
from kb.training.schemas import (
    AnswerRequest,
    ExamAnswer,
    ExamRequest,
    ExamResult,
    Feedback,
    History,
    HistoryAnswer,
    HistoryReview,
    Imported,
    NewTrainee,
    PracticeRequest,
    Progress,
    Trainee,
    TrainingSession,
)
from kb.training.tables import AnswerRow, SessionRow, TraineeRow

Clock = Callable[[], datetime]
MAX_TOKEN_CHARS = 200
MAX_HISTORY = 100_000  # answers one import may hold


class TrainingService:
    """Judge training. `bank` gives the current build's question bank (built on first use),
    `check_format` reads a format id (InvalidQuery when unknown), `clock` is UTC now."""

    def __init__(
        self,
        bank: Callable[[], QuestionBank],
        build_id: str,
        check_format: Callable[[str | None], str | None],
        database: Database,
        clock: Clock,
        token_days: int = 365,
    ) -> None:
        self._bank = bank
        self.build_id = build_id
        self.check_format = check_format
        self.db = database
        self.clock = clock
        self.token_days = token_days

    @property
    def bank(self) -> QuestionBank:
        return self._bank()

    # --- trainees -------------------------------------------------------------------------
    def create_trainee(self, request: NewTrainee) -> Trainee:
        """A new trainee and their token (the server keeps only its hash)."""
        name = request.name.strip() if request.name else None
        now = self.clock()
        expires = now + timedelta(days=self.token_days)
        token = new_token()
        with self.db.transaction() as s:
            Repository(s).add_trainee(token, name or None, now, expires)
        return Trainee(token=token, name=name or None, created=now, expires=expires)

    def _trainee(self, repo: Repository, token: str | None) -> TraineeRow:
        if not token:
            raise Unauthorized("a trainee's token is required (Authorization: Bearer <token>)")
        if len(token) > MAX_TOKEN_CHARS:
            raise Unauthorized("unknown trainee token")
        row = repo.trainee_by_token(token)
        if row is None:
            raise Unauthorized("unknown trainee token (POST /trainees issues one)")
        if row.expires_at <= self.clock():
            raise Unauthorized(f"the trainee token expired at {row.expires_at.isoformat()}")
        return row

    # --- drawing questions ----------------------------------------------------------------
    def _pool(self, request: PracticeRequest) -> tuple[str | None, list[str], list[Question]]:
        fmt = self.check_format(request.format)
        bank = self.bank
        topics: list[str] = []
        for i, topic in enumerate(request.topics):
            if topic not in bank.topics:
                raise unknown_value(
                    f"topics[{i}]",
                    topic,
                    f"unknown topic {topic!r}; use one of {', '.join(bank.topics)}",
                )
            if topic not in topics:
                topics.append(topic)
        wanted = set(topics)
        pool = [
            q
            for q in bank.questions
            if (fmt is None or q.format == fmt) and (not wanted or wanted & set(q.topics))
        ]
        if not pool:
            if len(topics) <= 1:
                raise bank.no_questions(fmt, topics[0] if topics else None)
            raise InvalidQuery("topics", f"no questions for topics {topics} in format {fmt!r}")
        return fmt, topics, pool

    def _open(
        self,
        repo: Repository,
        trainee: TraineeRow,
        kind: str,
        fmt: str | None,
        topics: list[str],
        chosen: Sequence[Question],
        deadline: datetime | None = None,
        pass_mark: float | None = None,
        lang: str = "pt",
    ) -> TrainingSession:
        now = self.clock()
        row = SessionRow(
            id=new_id(),
            trainee_id=trainee.id,
            kind=kind,
            format=fmt,
            topics=grading.topics_json(topics),
            n=len(chosen),
            build_id=self.build_id,
            created_at=now,
            deadline=deadline,
            pass_mark=pass_mark,
            closed_at=None,
            timed_out=False,
        )
        repo.add_session(row, [(q.id, grading.fingerprint(q)) for q in chosen])
        return self._view(row, list(chosen), [], lang)

    def _view(
        self, row: SessionRow, questions: list[Question], answered: list[str], lang: str = "pt"
    ) -> TrainingSession:
        return TrainingSession(
            id=row.id,
            kind=row.kind,  # type: ignore[arg-type]
            format=row.format,
            topics=grading.topics_of(row.topics),
            build_id=row.build_id,
            created=row.created_at,
            deadline=row.deadline,
            pass_mark=row.pass_mark,
            closed=self._closed(row),
            questions=[grading.shown(q, lang) for q in questions],
            answered=answered,
        )

    def _closed(self, row: SessionRow) -> bool:
        return row.closed_at is not None or (
            row.deadline is not None and row.deadline <= self.clock()
        )

    # --- practice -------------------------------------------------------------------------
    def start_practice(
        self, token: str | None, request: PracticeRequest, lang: str = "pt"
    ) -> TrainingSession:
        """A practice set chosen by the scheduler: due, then missed, then new questions; its
        prompts and options in `lang` (pt or en)."""
        check_lang(lang)
        with self.db.transaction() as s:
            repo = Repository(s)
            trainee = self._trainee(repo, token)
            fmt, topics, pool = self._pool(request)
            self._settle(repo, trainee)
            fps = {q.id: grading.fingerprint(q) for q in pool}
            seed = random.SystemRandom().randrange(2**32)
            chosen = plan(pool, repo.reviews(trainee.id), fps, request.n, self.clock(), seed)
            return self._open(repo, trainee, "practice", fmt, topics, chosen, lang=lang)

    def session(
        self, token: str | None, session_id: str, kind: str | None = None, lang: str = "pt"
    ) -> TrainingSession:
        """A practice session or exam as the trainee sees it, in `lang` (keys only through answers
        and results)."""
        check_lang(lang)
        with self.db.transaction() as s:
            repo = Repository(s)
            trainee = self._trainee(repo, token)
            row = self._session(repo, trainee, session_id, kind)
            questions, _ = self._questions(repo, row)
            answered = [a.question_id for a in repo.session_answers(row.id)]
            return self._view(row, [q for q in questions if q is not None], answered, lang)

    def answer_practice(
        self, token: str | None, session_id: str, request: AnswerRequest, lang: str = "pt"
    ) -> Feedback:
        """Grade one answer of a practice session, record it and schedule the question (the
        explanation in `lang`; the grading is the same in every language)."""
        check_lang(lang)
        with self.db.transaction() as s:
            repo = Repository(s)
            trainee = self._trainee(repo, token)
            row = self._session(repo, trainee, session_id, "practice")
            q, given, answer = self._record(repo, trainee, row, request)
            return grading.feedback(q, given, answer.time_taken_ms, lang)

    # --- exams ----------------------------------------------------------------------------
    def start_exam(
        self, token: str | None, request: ExamRequest, lang: str = "pt"
    ) -> TrainingSession:
        """An exam of `n` questions (fewer when the filters allow fewer), in `lang`; its time limit
        and pass mark are kept by the server."""
        check_lang(lang)
        with self.db.transaction() as s:
            repo = Repository(s)
            trainee = self._trainee(repo, token)
            fmt, topics, pool = self._pool(request)
            chosen = order(pool, random.SystemRandom().randrange(2**32))[: request.n]
            deadline = (
                self.clock() + timedelta(seconds=request.time_limit)
                if request.time_limit is not None
                else None
            )
            return self._open(
                repo, trainee, "exam", fmt, topics, chosen, deadline, request.pass_mark, lang
            )

    def answer_exam(self, token: str | None, exam_id: str, request: AnswerRequest) -> ExamAnswer:
        """Record one exam answer; nothing about the key is said until the exam is closed."""
        with self.db.transaction() as s:
            repo = Repository(s)
            trainee = self._trainee(repo, token)
            row = self._session(repo, trainee, exam_id, "exam", lock=True)
            self._refuse_closed(row)
            self._record(repo, trainee, row, request)
            answered = len(repo.session_answers(row.id))
            return ExamAnswer(
                question_id=request.question_id,
                recorded=True,
                answered=answered,
                remaining=max(row.n - answered, 0),
                deadline=row.deadline,
            )

    def close_exam(self, token: str | None, exam_id: str, lang: str = "pt") -> ExamResult:
        """Close an exam (once: it cannot be reopened, extended or submitted again) and grade it
        (the missed questions explained in `lang`)."""
        check_lang(lang)
        with self.db.transaction() as s:
            repo = Repository(s)
            trainee = self._trainee(repo, token)
            row = self._session(repo, trainee, exam_id, "exam", lock=True)
            if row.closed_at is not None:
                raise Conflict("exam", row.id, "already closed; GET its result")
            self._close(repo, trainee, row)
            return self._result(repo, row, lang)

    def exam_result(self, token: str | None, exam_id: str, lang: str = "pt") -> ExamResult:
        """A closed exam's result (an exam past its time limit is closed now), in `lang`."""
        check_lang(lang)
        with self.db.transaction() as s:
            repo = Repository(s)
            trainee = self._trainee(repo, token)
            row = self._session(repo, trainee, exam_id, "exam", lock=True)
            if row.closed_at is None:
                if not self._closed(row):
                    raise Conflict(
                        "exam", row.id, "still open: its keys come with its result once closed"
                    )
                self._close(repo, trainee, row)
            return self._result(repo, row, lang)

    def _close(self, repo: Repository, trainee: TraineeRow, row: SessionRow) -> None:
        """Close an exam for good; its answers now review their questions' cards."""
        now = self.clock()
        if row.deadline is not None and row.deadline <= now:
            row.closed_at, row.timed_out = row.deadline, True
        else:
            row.closed_at, row.timed_out = now, False
        for answer in repo.session_answers(row.id):
            self._review(repo, trainee.id, answer)

    def _refuse_closed(self, row: SessionRow) -> None:
        if row.closed_at is not None:
            raise Conflict("exam", row.id, "closed: no answer is taken after it")
        if row.deadline is not None and row.deadline <= self.clock():
            raise Conflict("exam", row.id, f"its time limit passed at {row.deadline.isoformat()}")

    def _result(self, repo: Repository, row: SessionRow, lang: str = "pt") -> ExamResult:
        questions, stale = self._questions(repo, row)
        answers = {a.question_id: a for a in repo.session_answers(row.id)}
        graded: list[grading.Graded] = []
        missed: list[Feedback] = []
        answered = right = 0
        for q in questions:
            if q is None:
                continue
            a = answers.get(q.id)
            if a is not None and a.fingerprint != grading.fingerprint(q):
                stale.append(q.id)
                continue
            correct = a is not None and a.correct
            answered += a is not None
            right += correct
            graded.append(grading.Graded(q.topics, correct))
            if not correct:
                missed.append(
                    grading.feedback(
                        q, a.given if a else None, a.time_taken_ms if a else None, lang
                    )
                )
        total = len(graded)
        pass_mark = row.pass_mark if row.pass_mark is not None else 1.0
        return ExamResult(
            id=row.id,
            format=row.format,
            topics=grading.topics_of(row.topics),
            total=total,
            answered=answered,
            correct=right,
            score=grading.score(right, total),
            pass_mark=pass_mark,
            passed=grading.passed(right, total, pass_mark),
            timed_out=row.timed_out,
            closed=row.closed_at or self.clock(),
            by_topic=grading.by_topic(graded),
            missed=missed,
            retired=sorted(set(stale)),
        )

    # --- shared steps ---------------------------------------------------------------------
    def _session(
        self,
        repo: Repository,
        trainee: TraineeRow,
        session_id: str,
        kind: str | None,
        *,
        lock: bool = False,
    ) -> SessionRow:
        row = repo.session(session_id, trainee.id, lock=lock) if len(session_id) <= 64 else None
        if row is None or (kind is not None and row.kind != kind):
            raise NotFound(f"{kind or 'training'} session", session_id)
        return row

    def _questions(
        self, repo: Repository, row: SessionRow
    ) -> tuple[list[Question | None], list[str]]:
        """The session's questions as the current bank has them; None (and the id in the
        second list) for each one retired or re-keyed since the session began."""
        by_id = self.bank.by_id
        out: list[Question | None] = []
        stale: list[str] = []
        for sq in repo.session_questions(row.id):
            q = by_id.get(sq.question_id)
            if q is None or grading.fingerprint(q) != sq.fingerprint:
                out.append(None)
                stale.append(sq.question_id)
            else:
                out.append(q)
        return out, stale

    def _record(
        self, repo: Repository, trainee: TraineeRow, row: SessionRow, request: AnswerRequest
    ) -> tuple[Question, str, AnswerRow]:
        """Grade and write one answer of a session, and review its card."""
        qid = request.question_id
        entry = next((sq for sq in repo.session_questions(row.id) if sq.question_id == qid), None)
        if entry is None:
            raise Conflict("question", qid, f"not a question of session {row.id}")
        q = self.bank.by_id.get(qid)
        if q is None or grading.fingerprint(q) != entry.fingerprint:
            raise Conflict(
                "question",
                qid,
                f"its source changed in build {self.build_id} since the session began "
                f"(build {row.build_id}): retired, not graded against the old key",
            )
        given = grading.read_answer(q, request.answer)
        now = self.clock()
        previous = [a.answered_at for a in repo.session_answers(row.id)]
        since = max([row.created_at, *previous])
        answer = AnswerRow(
            trainee_id=trainee.id,
            session_id=row.id,
            question_id=q.id,
            build_id=self.build_id,
            fingerprint=entry.fingerprint,
            format=q.format,
            topics=grading.topics_json(q.topics),
            given=given,
            correct=given == q.answer,
            time_taken_ms=max(int((now - since).total_seconds() * 1000), 0),
            answered_at=now,
        )
        repo.add_answer(answer)
        if row.kind == "practice":  # an exam's answers say nothing until it is closed
            self._review(repo, trainee.id, answer)
        return q, given, answer

    def _review(self, repo: Repository, trainee_id: str, answer: AnswerRow) -> None:
        state = review(
            repo.review(trainee_id, answer.question_id),
            answer.question_id,
            answer.fingerprint,
            answer.correct,
            answer.answered_at,
        )
        repo.put_review(trainee_id, state)

    def _settle(self, repo: Repository, trainee: TraineeRow) -> set[str]:
        """Close the trainee's exams past their time limit (their answers then count); the ids
        of the exams still open, whose answers count for nothing yet."""
        still_open: set[str] = set()
        for row in repo.open_exams(trainee.id):
            if self._closed(row):
                self._close(repo, trainee, row)
            else:
                still_open.add(row.id)
        return still_open

    # --- progress and history -------------------------------------------------------------
    def progress(self, token: str | None) -> Progress:
        """Totals, what is due, and mastery by topic and by format, from the recorded answers
        (not those of an exam still open, nor those of questions retired since)."""
        with self.db.transaction() as s:
            repo = Repository(s)
            trainee = self._trainee(repo, token)
            still_open = self._settle(repo, trainee)
            rows = [a for a in repo.answers(trainee.id) if a.session_id not in still_open]
            states = repo.reviews(trainee.id)
        now = self.clock()
        live = {q.id: grading.fingerprint(q) for q in self.bank.questions}
        answers = [
            Answered(a.question_id, a.format, tuple(grading.topics_of(a.topics)), a.correct)
            for a in rows
            if live.get(a.question_id) == a.fingerprint
        ]
        current = {k: v for k, v in states.items() if live.get(k) == v.fingerprint}
        return Progress(
            name=trainee.name,
            answers=len(answers),
            correct=sum(a.correct for a in answers),
            due=due_count(current.values(), set(current), now),
            by_topic=mastery_by(answers, current, now, "topic"),
            by_format=mastery_by(answers, current, now, "format"),
        )

    def export_history(self, token: str | None) -> History:
        """Every answer and review state of the trainee, as JSON (no token, no sessions; an open
        exam's answers wait for its close)."""
        with self.db.transaction() as s:
            repo = Repository(s)
            trainee = self._trainee(repo, token)
            still_open = self._settle(repo, trainee)
            kinds = repo.session_kinds(trainee.id)
            answers = [
                HistoryAnswer(
                    question_id=a.question_id,
                    build_id=a.build_id,
                    fingerprint=a.fingerprint,
                    format=a.format,
                    topics=grading.topics_of(a.topics),
                    given=a.given,
                    correct=a.correct,
                    time_taken_ms=a.time_taken_ms,
                    answered_at=a.answered_at,
                    session=kinds.get(a.session_id or ""),  # type: ignore[arg-type]
                )
                for a in repo.answers(trainee.id)
                if a.session_id not in still_open
            ]
            reviews = [
                HistoryReview(
                    question_id=r.question_id,
                    fingerprint=r.fingerprint,
                    card=card_fields(r),
                    due=r.due,
                    last_correct=r.last_correct,
                )
                for r in repo.reviews(trainee.id).values()
            ]
        return History(name=trainee.name, answers=answers, reviews=reviews)

    def import_history(self, token: str | None, history: History) -> Imported:
        """Add an exported history to the trainee: answers not already recorded (same question
        and moment), review states for questions the trainee has none of. All or nothing."""
        if len(history.answers) > MAX_HISTORY:
            raise InvalidQuery("answers", f"at most {MAX_HISTORY} answers per import")
        cards = [_card_json(r.card, f"reviews[{i}].card") for i, r in enumerate(history.reviews)]
        with self.db.transaction() as s:
            repo = Repository(s)
            trainee = self._trainee(repo, token)
            known = {(a.question_id, a.answered_at) for a in repo.answers(trainee.id)}
            added = skipped = 0
            for a in history.answers:
                if (a.question_id, a.answered_at) in known:
                    skipped += 1
                    continue
                known.add((a.question_id, a.answered_at))
                repo.add_answer(
                    AnswerRow(
                        trainee_id=trainee.id,
                        session_id=None,
                        question_id=a.question_id,
                        build_id=a.build_id,
                        fingerprint=a.fingerprint,
                        format=a.format,
                        topics=grading.topics_json(a.topics),
                        given=a.given,
                        correct=a.correct,
                        time_taken_ms=a.time_taken_ms,
                        answered_at=a.answered_at,
                    )
                )
                added += 1
            reviews = 0
            for r, card in zip(history.reviews, cards, strict=True):
                if repo.review(trainee.id, r.question_id) is None:
                    repo.put_review(
                        trainee.id,
                        ReviewState(r.question_id, r.fingerprint, card, r.due, r.last_correct),
                    )
                    reviews += 1
        return Imported(answers=added, skipped=skipped, reviews=reviews)


def _card_json(fields: dict[str, Any], field: str) -> str:
    """An exported FSRS card read back (InvalidQuery naming `field` when it is not one)."""
    try:
        return Card.from_dict(fields).to_json()  # type: ignore[arg-type]
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise InvalidQuery(field, f"not an FSRS card: {exc}") from exc
