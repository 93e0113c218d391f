"""Grading without storage: a question's fingerprint (its key and source text), a session's view
of a question (no key), feedback, and an exam's score by topic."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass

from kb.presentation.quiz import normalise_answer
from kb.presentation.quiz_model import Question, localized
from kb.training.schemas import Feedback, SessionQuestion, TopicScore


def fingerprint(q: Question) -> str:
    """What a question's grading depends on (prompt, options, key, cited text): a new build
    that changes any of it changes the fingerprint, and older answers' keys are stale."""
    data = {
        "kind": q.kind,
        "prompt": q.prompt,
        "context": q.context,
        "statement": q.statement,
        "options": [[o.key, o.text] for o in q.options],
        "answer": q.answer,
        "citation": [q.citation.document, q.citation.start, q.citation.end, q.citation.text],
    }
    return hashlib.sha256(json.dumps(data, ensure_ascii=False).encode()).hexdigest()


def shown(q: Question, lang: str = "pt") -> SessionQuestion:
    """The question as a session shows it before it is answered, in `lang`: no key, explanation
    or source."""
    q = localized(q, lang)
    return SessionQuestion(
        id=q.id,
        kind=q.kind,  # type: ignore[arg-type]
        family=q.family,
        format=q.format,
        topics=list(q.topics),
        prompt=q.prompt,
        context=q.context,
        statement=q.statement,
        options=[{"key": o.key, "text": o.text} for o in q.options],  # type: ignore[misc]
    )


def read_answer(q: Question, value: str | bool | int, field: str = "answer") -> str:
    """The answer as one of the question's option keys (InvalidQuery naming `field` if none)."""
    return normalise_answer(q, value, field)


def feedback(
    q: Question, given: str | None, time_taken_ms: int | None, lang: str = "pt"
) -> Feedback:
    """The key, explanation (in `lang`) and citation of an answered question."""
    q = localized(q, lang)
    return Feedback(
        question_id=q.id,
        correct=given == q.answer,
        given=given,
        expected=q.answer,
        expected_text=q.option(q.answer).text,
        explanation=q.explanation,
        machine_translated=q.machine_translated,
        citation=asdict(q.citation),  # type: ignore[arg-type]
        time_taken_ms=time_taken_ms,
    )


@dataclass(frozen=True)
class Graded:
    """One question of a closed exam: its topics and whether it was answered right."""

    topics: tuple[str, ...]
    correct: bool


def by_topic(graded: Iterable[Graded]) -> list[TopicScore]:
    """The score of every topic the questions have (a question counts for each of its topics)."""
    totals: dict[str, list[int]] = {}
    for g in graded:
        for topic in g.topics:
            count = totals.setdefault(topic, [0, 0])
            count[0] += 1
            count[1] += int(g.correct)
    return [
        TopicScore(topic=t, total=total, correct=right, score=round(right / total, 4))
        for t, (total, right) in sorted(totals.items())
    ]


def score(correct: int, total: int) -> float:
    return round(correct / total, 4) if total else 0.0


def passed(correct: int, total: int, pass_mark: float) -> bool:
    """Passed when the share of right answers reaches the pass mark (compared exactly)."""
    return total > 0 and correct >= pass_mark * total - 1e-9


def topics_json(topics: Iterable[str]) -> str:
    return json.dumps(list(topics))


def topics_of(text: str) -> list[str]:
    value = json.loads(text)
    return [str(t) for t in value] if isinstance(value, list) else []


def by_id(questions: Iterable[Question]) -> Mapping[str, Question]:
    return {q.id: q for q in questions}
