"""The quiz's records: questions with their options, answer key, explanation and citation."""

from __future__ import annotations

import random
from dataclasses import asdict, dataclass, replace
from typing import Any

from kb.errors import unknown_value
from kb.presentation.quiz_lang import LANGS, WORDS


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
class Texts:
    """A question's words in another language: options in the same order (same keys)."""

    prompt: str
    context: str | None
    statement: str | None
    options: tuple[str, ...]
    explanation: str


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
    # The English words (prompt, options, explanation); the fields above are the Portuguese ones,
    # which grading and fingerprints use: the id and key do not depend on the language.
    en: Texts | None = None

    def option(self, key: str) -> Option:
        return next(o for o in self.options if o.key == key)


MACHINE_TRANSLATED_NOTE = WORDS["pt"]["machine_translated"]


def flag_machine_translated(q: Question, documents: frozenset[str]) -> Question:
    """`q` with its explanation flagged when the passage it cites is machine-translated text."""
    if q.citation.document not in documents or q.machine_translated:
        return q
    en = q.en and replace(
        q.en, explanation=f"{q.en.explanation} {WORDS['en']['machine_translated']}"
    )
    return replace(
        q, machine_translated=True, explanation=f"{q.explanation} {MACHINE_TRANSLATED_NOTE}", en=en
    )


def check_lang(lang: str) -> str:
    """`lang` if the quiz speaks it (pt or en); else the 422 naming `lang`."""
    if lang not in LANGS:
        raise unknown_value("lang", lang, f"unknown language {lang!r}; use {' or '.join(LANGS)}")
    return lang


def localized(q: Question, lang: str) -> Question:
    """`q` with its words in `lang` (same id, keys and citation)."""
    if lang == "pt" or q.en is None:
        return q
    t = q.en
    options = tuple(Option(o.key, text) for o, text in zip(q.options, t.options, strict=True))
    return replace(
        q,
        prompt=t.prompt,
        context=t.context,
        statement=t.statement,
        options=options,
        explanation=t.explanation,
        en=None,
    )


def keyed(keys: tuple[str, ...]) -> tuple[Option, ...]:
    """Options with fixed keys, their words (`true` → Verdadeiro) from the Portuguese templates."""
    return tuple(Option(k, WORDS["pt"][k]) for k in keys)


def words_of(keys: tuple[str, ...], lang: str) -> tuple[str, ...]:
    return tuple(WORDS[lang][k] for k in keys)


TRUE_FALSE = keyed(("true", "false"))
YES_NO = keyed(("yes", "no"))


def lettered(texts: list[str], seed: str) -> tuple[Option, ...]:
    """Options a, b, c … in an order fixed by `seed` (the question id): same id, same order."""
    shuffled = sorted(texts)
    random.Random(seed).shuffle(shuffled)
    return tuple(Option(chr(ord("a") + i), t) for i, t in enumerate(shuffled))


def key_of(options: tuple[Option, ...], text: str) -> str:
    return next(o.key for o in options if o.text == text)


def question_json(q: Question, lang: str = "pt") -> dict[str, Any]:
    """A question as plain data in `lang` (the answer key included: quizzes are for training)."""
    q = localized(q, lang)
    data = asdict(q)
    del data["group"]
    del data["en"]
    data["topics"] = list(q.topics)
    data["options"] = [asdict(o) for o in q.options]
    return data
