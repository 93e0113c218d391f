"""Spaced repetition with FSRS (the `fsrs` package): each answer reviews the trainee's card of
that question (Again when wrong, Good when right), and the next practice set is what is due,
then what was missed, then questions never seen (in the seed's order), then what comes due next.

Pure: cards go in and out as JSON text; the clock is an argument.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from fsrs import Card, Rating, Scheduler

from kb.presentation.quiz import order
from kb.presentation.quiz_model import Question

SCHEDULER = Scheduler(enable_fuzzing=False)  # deterministic: the same answers, the same plan


@dataclass(frozen=True)
class ReviewState:
    """A trainee's card of one question, as stored."""

    question_id: str
    fingerprint: str
    card: str  # fsrs.Card as JSON
    due: datetime
    last_correct: bool


def review(
    state: ReviewState | None, question_id: str, fp: str, correct: bool, when: datetime
) -> ReviewState:
    """The card after one answer. A card learnt under another fingerprint (the question was
    re-keyed by a new build) starts again: its history says nothing of the new key."""
    card = Card.from_json(state.card) if state and state.fingerprint == fp else Card()
    card, _ = SCHEDULER.review_card(card, Rating.Good if correct else Rating.Again, when)
    return ReviewState(question_id, fp, card.to_json(), card.due, correct)


def recall(state: ReviewState, now: datetime) -> float:
    """The probability the trainee recalls the answer now (FSRS retrievability)."""
    card = Card.from_json(state.card)
    return float(SCHEDULER.get_card_retrievability(card, now))


def card_fields(state: ReviewState) -> dict[str, str | int | float | None]:
    data = json.loads(state.card)
    return {k: v for k, v in data.items() if isinstance(v, str | int | float) or v is None}


def plan(
    pool: Sequence[Question],
    states: dict[str, ReviewState],
    fingerprints: dict[str, str],
    n: int,
    now: datetime,
    seed: int,
) -> list[Question]:
    """The next practice set of `n` from `pool`: due cards (earliest first), missed ones, new
    questions in the seed's order, then the cards due soonest. A card whose fingerprint no
    longer matches the question counts as new (re-keyed); one whose question left the bank is
    not in the pool (retired)."""
    current = {
        q.id: states[q.id]
        for q in pool
        if q.id in states and states[q.id].fingerprint == fingerprints[q.id]
    }
    by_id = {q.id: q for q in pool}
    due = sorted(
        (s for s in current.values() if s.due <= now), key=lambda s: (s.due, s.question_id)
    )
    missed = sorted(
        (s for s in current.values() if s.due > now and not s.last_correct),
        key=lambda s: (s.due, s.question_id),
    )
    later = sorted(
        (s for s in current.values() if s.due > now and s.last_correct),
        key=lambda s: (s.due, s.question_id),
    )
    chosen: list[Question] = [by_id[s.question_id] for s in (*due, *missed)]
    seen = set(current)
    fresh = [q for q in order([q for q in pool if q.id not in seen], seed)]
    chosen.extend(fresh)
    chosen.extend(by_id[s.question_id] for s in later)
    unique: list[Question] = []
    groups: set[str] = set()
    for q in chosen:
        if q.group not in groups:
            groups.add(q.group)
            unique.append(q)
        if len(unique) == n:
            break
    return unique
