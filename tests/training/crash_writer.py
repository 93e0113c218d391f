"""A process that records practice answers from several threads and prints each one's
acknowledgement (`ack <session> <question>`) only after its transaction committed; the crash
test kills it with SIGKILL mid-run. Usage: python crash_writer.py DB_URL THREADS."""

from __future__ import annotations

import sys
import threading
from datetime import UTC, datetime

from kb.training.database import Database
from kb.training.schemas import AnswerRequest, NewTrainee, PracticeRequest
from kb.training.service import TrainingService
from training.bank import small_bank  # type: ignore[import-not-found]

PRINT = threading.Lock()


def main(url: str, threads: int) -> None:
    bank = small_bank()
    training = TrainingService(
        lambda: bank, "crash", lambda f: f, Database(url), lambda: datetime.now(UTC)
    )
    training.db.migrate()

    def work() -> None:
        token = training.create_trainee(NewTrainee()).token
        while True:
            session = training.start_practice(token, PracticeRequest(n=24))
            for q in session.questions:
                training.answer_practice(
                    token, session.id, AnswerRequest(question_id=q.id, answer=1)
                )
                with PRINT:
                    sys.stdout.write(f"ack {session.id} {q.id}\n")
                    sys.stdout.flush()

    for _ in range(threads):
        threading.Thread(target=work, daemon=True).start()
    threading.Event().wait()


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
