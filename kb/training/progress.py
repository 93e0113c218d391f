"""Progress from recorded answers: counts and accuracy by topic and by format, and mastery as
the mean FSRS recall probability now of the questions answered. Pure: rows in, models out."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from kb.training.schedule import ReviewState, recall
from kb.training.schemas import Mastery


@dataclass(frozen=True)
class Answered:
    """One recorded answer, as progress reads it."""

    question_id: str
    format: str
    topics: tuple[str, ...]
    correct: bool


def mastery_by(
    answers: Sequence[Answered],
    states: dict[str, ReviewState],
    now: datetime,
    keys_of: str,
) -> list[Mastery]:
    """Mastery per topic (`keys_of="topic"`) or per format (`"format"`), sorted by key."""
    groups: dict[str, list[Answered]] = {}
    for a in answers:
        for key in a.topics if keys_of == "topic" else (a.format,):
            groups.setdefault(key, []).append(a)
    out: list[Mastery] = []
    for key, group in sorted(groups.items()):
        right = sum(a.correct for a in group)
        questions = sorted({a.question_id for a in group})
        recalls = [recall(states[q], now) if q in states else 0.0 for q in questions]
        out.append(
            Mastery(
                key=key,
                answers=len(group),
                correct=right,
                accuracy=round(right / len(group), 4),
                questions=len(questions),
                mastery=round(sum(recalls) / len(recalls), 4),
            )
        )
    return out


def due_count(states: Iterable[ReviewState], live: set[str], now: datetime) -> int:
    """Cards due now whose question is still in the bank."""
    return sum(1 for s in states if s.due <= now and s.question_id in live)
