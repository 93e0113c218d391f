"""The quiz's records: questions with their options, answer key, explanation and citation."""

from __future__ import annotations

import random
from dataclasses import asdict, dataclass, replace
from typing import Any


@dataclass(frozen=True)
class Citation:
    """The source span a question is built from: `text == documents[document][start:end]`."""

    id: str
    document: str
    section: str | None
    start: int
    end: int
    text: str


@dataclass(frozen=True)
class Option:
    key: str
    text: str


@dataclass(frozen=True)
class Question:
    """One question. `group` joins variants of one source (a quiz holds at most one of them)."""

    id: str
    kind: str  # "true-false", "yes-no" or "multiple-choice"
    family: str  # what it is drawn from: statement, order, damage-step, summon, capability …
    format: str
    topics: tuple[str, ...]
    prompt: str
    context: str | None
    statement: str | None
    options: tuple[Option, ...]
    answer: str
    explanation: str
    citation: Citation
    group: str
    # The cited text is a machine translation (the manifest's `machine_translated`): its wording
    # may not be the official one, and the explanation says so.
    machine_translated: bool = False

    def option(self, key: str) -> Option:
        return next(o for o in self.options if o.key == key)


MACHINE_TRANSLATED_NOTE = (
    "Atenção: o trecho citado vem de uma tradução automática; a redação pode não ser a oficial "
    "(o sentido da regra é o do documento)."
)


def flag_machine_translated(q: Question, documents: frozenset[str]) -> Question:
    """`q` with its explanation flagged when the passage it cites is machine-translated text."""
    if q.citation.document not in documents or q.machine_translated:
        return q
    return replace(
        q, machine_translated=True, explanation=f"{q.explanation} {MACHINE_TRANSLATED_NOTE}"
    )


TRUE_FALSE = (Option("true", "Verdadeiro"), Option("false", "Falso"))
YES_NO = (Option("yes", "Sim"), Option("no", "Não"))


def lettered(texts: list[str], seed: str) -> tuple[Option, ...]:
    """Options a, b, c … in an order fixed by `seed` (the question id): same id, same order."""
    shuffled = sorted(texts)
    random.Random(seed).shuffle(shuffled)
    return tuple(Option(chr(ord("a") + i), t) for i, t in enumerate(shuffled))


def key_of(options: tuple[Option, ...], text: str) -> str:
    return next(o.key for o in options if o.text == text)


def question_json(q: Question) -> dict[str, Any]:
    """A question as plain data (the answer key included: quizzes are for training)."""
    data = asdict(q)
    del data["group"]
    data["topics"] = list(q.topics)
    data["options"] = [asdict(o) for o in q.options]
    return data
