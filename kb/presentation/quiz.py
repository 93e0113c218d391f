"""Judge training: quizzes drawn from the documents' statements, examples, steps and facts.

Every question carries its answer key, an explanation and the citation it is built from
(`citation.text == document[start:end]`). Question ids are stable and name their source and
variant (e.g. `tf:edison/rule-05/example-08:s0:false`), so a quiz is checked by rebuilding the
deterministic question bank and looking the ids up: no state is kept between requests.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from dataclasses import asdict
from typing import Any

from kb.errors import InvalidQuery, out_of_range, unknown_value
from kb.graph import KnowledgeGraph
from kb.ids import fold
from kb.presentation.quiz_facts import (
    capability_questions,
    fact_questions,
    speed_questions,
    summon_questions,
)
from kb.presentation.quiz_model import (
    Question,
    check_lang,
    flag_machine_translated,
    localized,
    question_json,
)
from kb.presentation.quiz_sources import (
    Sources,
    claim_questions,
    damage_step_questions,
    order_questions,
    statement_questions,
)
from kb.presentation.quiz_topics import TopicLabel, topic_labels, topic_list

MAX_QUESTIONS = 50
MAX_SEED = 2**32 - 1
MAX_ANSWERS = 4 * MAX_QUESTIONS  # answers one check grades
_TRUE = {"true", "t", "v", "verdadeiro", "yes", "y", "sim", "s", "1"}
_FALSE = {"false", "f", "falso", "no", "n", "nao", "0"}


def build_bank(
    kg: KnowledgeGraph,
    documents: dict[str, str],
    doc_formats: dict[str, str],
    machine_translated: Iterable[str] = (),
) -> QuestionBank:
    """Every question the knowledge base supports, in a fixed order; the explanations of those
    citing a `machine_translated` document say that its wording may not be the official one."""
    src = Sources(kg, documents, doc_formats)
    translated = frozenset(machine_translated)
    questions = [
        *statement_questions(src),
        *claim_questions(src),
        *order_questions(src),
        *damage_step_questions(src),
        *summon_questions(src),
        *fact_questions(src),
        *capability_questions(src),
        *speed_questions(src),
    ]
    return QuestionBank(
        src.declared_topics(),
        [flag_machine_translated(q, translated) for q in questions],
        topic_labels(src),
    )


class QuestionBank:
    """All the questions the knowledge base supports, with quiz selection and grading."""

    def __init__(
        self,
        topics: Iterable[str],
        questions: Iterable[Question],
        labels: Mapping[str, TopicLabel] | None = None,
    ) -> None:
        self.labels: dict[str, TopicLabel] = dict(labels or {})
        self.questions: list[Question] = []
        self.by_id: dict[str, Question] = {}
        for q in questions:
            if q.id not in self.by_id:
                self.by_id[q.id] = q
                self.questions.append(q)
        found = {t for q in self.questions for t in q.topics}
        self.topics: tuple[str, ...] = tuple(sorted(found | set(topics)))

    def quiz(
        self, format: str | None, topic: str | None, n: int, seed: int, lang: str = "pt"
    ) -> dict[str, Any]:
        """`n` questions for a format and topic in `lang` (pt or en); the same seed gives the same
        questions (same ids and keys in every language)."""
        check_lang(lang)
        if not 1 <= n <= MAX_QUESTIONS:
            raise out_of_range("n", 1, MAX_QUESTIONS, n)
        if not 0 <= seed <= MAX_SEED:
            raise out_of_range("seed", 0, MAX_SEED, seed)
        if topic is not None and topic not in self.topics:
            raise unknown_value(
                "topic", topic, f"unknown topic {topic!r}; use one of {', '.join(self.topics)}"
            )
        pool = [
            q
            for q in self.questions
            if (format is None or q.format == format) and (topic is None or topic in q.topics)
        ]
        if not pool:
            raise self.no_questions(format, topic)
        chosen = select(pool, n, seed)
        return {
            "format": format,
            "topic": topic,
            "n": n,
            "seed": seed,
            "available": len({q.group for q in pool}),
            "questions": [question_json(q, lang) for q in chosen],
        }

    def topic_list(self, format: str | None) -> dict[str, Any]:
        """The topics with questions in `format` (every format when None), with their pt/en
        names, question counts and formats (`GET /quiz/topics`)."""
        return topic_list(self.questions, self.labels, format)

    def no_questions(self, format: str | None, topic: str | None) -> InvalidQuery:
        """The 422 of a format and topic with no question: what is empty and what is available
        (the topics of that format, or the formats of that topic)."""
        if topic is None:
            formats = sorted({q.format for q in self.questions})
            return InvalidQuery(
                "format",
                f"no questions for format {format!r}; formats with questions: {', '.join(formats)}",
                code="invalid",
                params={"format": str(format), "available": ", ".join(formats)},
            )
        topics = sorted({t for q in self.questions if q.format == format for t in q.topics})
        formats = sorted({q.format for q in self.questions if topic in q.topics})
        return InvalidQuery(
            "topic",
            f"no questions for topic {topic!r} in format {format!r}; its topics with questions: "
            f"{', '.join(topics) or 'none'}; the formats of topic {topic!r}: "
            f"{', '.join(formats) or 'none'}",
            code="invalid",
            params={
                "format": str(format),
                "topic": topic,
                "available": ", ".join(topics),
                "formats": ", ".join(formats),
            },
        )

    def sample(self, n: int, seed: int) -> list[Question]:
        """`n` questions of every format and topic (no size cap): the seeded sample
        docs/quiz-review.md reviews, drawn as quizzes were when it was reviewed (`reviewed_draw`)."""
        return reviewed_draw(self.questions, n, seed)

    def check(self, answers: list[dict[str, Any]], lang: str = "pt") -> dict[str, Any]:
        """Grade answers `[{id, answer}]`, explaining every answer with its citation (the
        explanation's words in `lang`; the grading is the same in every language)."""
        check_lang(lang)
        if not answers:
            raise InvalidQuery("answers", "must hold at least one {id, answer}")
        if len(answers) > MAX_ANSWERS:
            raise InvalidQuery("answers", f"at most {MAX_ANSWERS} answers per request")
        results: list[dict[str, Any]] = []
        for i, item in enumerate(answers):
            qid = item.get("id") if isinstance(item, dict) else None
            q = self.by_id.get(qid) if isinstance(qid, str) else None
            if q is None:
                raise InvalidQuery(f"answers.{i}.id", f"unknown question id {qid!r}")
            given = normalise_answer(q, item.get("answer"), f"answers.{i}.answer")
            correct = given == q.answer
            shown = localized(q, lang)
            results.append(
                {
                    "id": q.id,
                    "correct": correct,
                    "given": given,
                    "expected": q.answer,
                    "expected_text": shown.option(q.answer).text,
                    "explanation": shown.explanation,
                    "machine_translated": q.machine_translated,
                    "citation": asdict(q.citation),
                }
            )
        right = sum(1 for r in results if r["correct"])
        return {
            "total": len(results),
            "correct": right,
            "score": round(right / len(results), 4),
            "results": results,
        }


def select(pool: list[Question], n: int, seed: int) -> list[Question]:
    """The first `n` of the seed's order of the pool (`order`): prefix-stable, so the first k
    questions of a quiz of n are the quiz of k."""
    return order(pool, seed)[:n]


def order(pool: list[Question], seed: int) -> list[Question]:
    """One variant per group, in an order fixed by the seed alone: rounds of one question of each
    family that has any left, each round shuffled (families stay interleaved in every prefix)."""
    rng = random.Random(seed)
    queues = family_queues(pool, rng)
    ordered: list[Question] = []
    while any(queues):
        round_ = [queue.pop() for queue in queues if queue]
        rng.shuffle(round_)
        ordered.extend(round_)
    return ordered


def family_queues(pool: list[Question], rng: random.Random) -> list[list[Question]]:
    """One variant of each group, chosen by `rng`, queued by family, each queue shuffled."""
    groups: dict[str, list[Question]] = {}
    for q in pool:
        groups.setdefault(q.group, []).append(q)
    by_family: dict[str, list[Question]] = {}
    for group in sorted(groups):
        variants = sorted(groups[group], key=lambda q: q.id)
        q = rng.choice(variants)
        by_family.setdefault(q.family, []).append(q)
    queues = [by_family[f] for f in sorted(by_family)]
    for queue in queues:
        rng.shuffle(queue)
    return queues


def reviewed_draw(pool: list[Question], n: int, seed: int) -> list[Question]:
    """The draw quizzes made before seeds were prefix-stable (its order depends on `n`): kept
    because docs/quiz-review.md reviews `sample(100, 13)` as drawn by it."""
    rng = random.Random(seed)
    queues = family_queues(pool, rng)
    chosen: list[Question] = []
    while len(chosen) < n and any(queues):
        for queue in queues:
            if queue and len(chosen) < n:
                chosen.append(queue.pop())
    rng.shuffle(chosen)
    return chosen


def normalise_answer(q: Question, value: Any, field: str) -> str:
    """An answer as an option key: booleans, yes/no/sim/não, letters, 1-based numbers or text."""
    keys = [o.key for o in q.options]
    if isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, int):
        text = str(value)
    elif isinstance(value, str):
        text = fold(value).strip().rstrip(".")
    else:
        raise InvalidQuery(field, f"must be one of {', '.join(keys)}, got {value!r}")
    if q.kind in ("true-false", "yes-no"):
        if text in _TRUE or text == q.options[0].key:
            return q.options[0].key
        if text in _FALSE or text == q.options[1].key:
            return q.options[1].key
    else:
        if text in keys:
            return text
        if text.isdigit() and 1 <= int(text) <= len(keys):
            return keys[int(text) - 1]
        for o in (*q.options, *localized(q, "en").options):  # an option's words in pt or en
            if fold(o.text).strip().rstrip(".") == text:
                return o.key
    raise InvalidQuery(field, f"must be one of {', '.join(keys)}, got {value!r}")
