"""A small hand-made question bank: two formats, three topics, three families, one document
marked machine-translated. Fast to build; every training test that needs no real KB uses it."""

from __future__ import annotations

from kb.presentation.quiz import QuestionBank
from kb.presentation.quiz_model import (
    TRUE_FALSE,
    Citation,
    Option,
    Question,
    flag_machine_translated,
)

DOCUMENTS = {
    "alpha": "Regra um. Regra dois. Regra tres. Regra quatro. Regra cinco. Regra seis.",
    "beta": "Desenhar cartões na velocidade ortográfica dois.",
}
TOPICS = ("chain", "damage-step", "summon")


def question(
    i: int, fmt: str, topics: tuple[str, ...], family: str, doc: str = "alpha"
) -> Question:
    """Question `i`: true-false keyed `true` for even i, multiple-choice keyed `b` for odd i."""
    text = DOCUMENTS[doc]
    start = (i * 3) % (len(text) - 5)
    citation = Citation(f"{doc}/p{i}", doc, None, start, start + 5, text[start : start + 5])
    if i % 2 == 0:
        kind, options, answer = "true-false", TRUE_FALSE, "true"
    else:
        kind = "multiple-choice"
        options = (Option("a", "Primeira"), Option("b", "Segunda"), Option("c", "Terceira"))
        answer = "b"
    return Question(
        id=f"q{i:02d}:{doc}",
        kind=kind,
        family=family,
        format=fmt,
        topics=topics,
        prompt=f"Pergunta {i}?",
        context=None,
        statement=f"Afirmação {i}." if kind == "true-false" else None,
        options=options,
        answer=answer,
        explanation=f"Explicação {i}.",
        citation=citation,
        group=f"g{i:02d}",
    )


def questions() -> list[Question]:
    """24 questions: edison (chain, damage-step) and general (chain, summon), three families;
    the general summon ones cite `beta`, the machine-translated document."""
    out: list[Question] = []
    families = ("statement", "order", "fact")
    for i in range(24):
        family = families[i % 3]
        if i < 8:
            out.append(question(i, "edison", ("chain",), family))
        elif i < 14:
            out.append(question(i, "edison", ("damage-step",), family))
        elif i < 18:
            out.append(question(i, "general", ("chain",), family))
        else:
            out.append(question(i, "general", ("summon",), family, doc="beta"))
    return out


def small_bank() -> QuestionBank:
    translated = frozenset({"beta"})
    return QuestionBank(TOPICS, [flag_machine_translated(q, translated) for q in questions()])
