"""The pure core: the next practice set and mastery follow from recorded answers (fixed clock)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from kb.training.grading import fingerprint
from kb.training.progress import Answered, mastery_by
from kb.training.schedule import plan, review
from training.bank import small_bank  # type: ignore[import-not-found]

BANK = small_bank()
POOL = BANK.questions
FPS = {q.id: fingerprint(q) for q in POOL}
T0 = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def test_due_then_missed_then_new_then_later() -> None:
    a, b, c = POOL[0], POOL[1], POOL[2]
    states = {
        a.id: review(None, a.id, FPS[a.id], True, T0),  # right: due in 10 minutes
        b.id: review(None, b.id, FPS[b.id], False, T0),  # missed: due in 1 minute
        c.id: review(None, c.id, FPS[c.id], True, T0 - timedelta(days=1)),  # due long ago
    }
    now = T0 + timedelta(seconds=30)
    chosen = plan(POOL, states, FPS, 5, now, seed=1)
    assert [q.id for q in chosen[:2]] == [c.id, b.id]  # due first, then missed
    assert a.id not in {q.id for q in chosen}  # not due, and new questions come first
    later = plan(POOL, states, FPS, 5, T0 + timedelta(minutes=11), seed=1)
    assert [q.id for q in later[:3]] == [c.id, b.id, a.id]  # all due now, earliest first
    assert plan(POOL, states, FPS, 24, now, seed=1)[-1].id == a.id  # the not-due one comes last


def test_a_rekeyed_question_starts_again() -> None:
    q = POOL[0]
    learnt = review(None, q.id, FPS[q.id], True, T0)
    again = review(learnt, q.id, FPS[q.id], True, T0 + timedelta(minutes=10))
    assert again.due > learnt.due
    fresh = review(again, q.id, "another-fingerprint", True, T0 + timedelta(minutes=20))
    assert fresh.card != again.card and fresh.fingerprint == "another-fingerprint"
    stale = {q.id: again}
    other = {**FPS, q.id: "another-fingerprint"}
    first = plan(POOL, stale, other, 24, T0 + timedelta(days=30), seed=3)
    assert q.id in {x.id for x in first}  # treated as new, not as a due card of the old key


def test_mastery_by_topic_and_format() -> None:
    q0, q1 = POOL[0], POOL[9]  # edison chain, edison damage-step
    states = {
        q0.id: review(None, q0.id, FPS[q0.id], True, T0),
        q1.id: review(None, q1.id, FPS[q1.id], False, T0),
    }
    answers = [
        Answered(q0.id, "edison", q0.topics, True),
        Answered(q1.id, "edison", q1.topics, False),
    ]
    topics = {m.key: m for m in mastery_by(answers, states, T0, "topic")}
    assert topics["chain"].accuracy == 1.0 and topics["damage-step"].accuracy == 0.0
    assert topics["chain"].mastery == 1.0  # recall right after a right answer
    later = {m.key: m for m in mastery_by(answers, states, T0 + timedelta(days=20), "topic")}
    assert 0 < later["chain"].mastery < 1.0  # forgetting over time
    (fmt,) = mastery_by(answers, states, T0, "format")
    assert (fmt.key, fmt.answers, fmt.correct, fmt.questions) == ("edison", 2, 1, 2)
