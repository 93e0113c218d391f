"""Reading a verdict off the best-matching statement or example (for questions no reasoner covers).

Each clause of the best-ranked passages is aligned with the question: by embedding similarity,
shared entities and shared stems. The best clause's polarity (não, NÃO, nem, nenhum, nunca …),
flipped by a negation in the question itself, gives the verdict.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kb.analysis import analyse
from kb.ids import fold
from kb.search import Hit, SearchIndex

# Negation in the (Portuguese) documents. "No" is the preposition "no" (= in the) in Portuguese.
_DOC_NEG = re.compile(r"\b(nao|nem|nenhum|nenhuma|nunca|jamais)\b")
_NOT_NEGATION = re.compile(
    r"\ba nao ser\b|\bmas nao a\b|\(mas nao [^)]*\)"
)  # "unless", "(but not …)"
_QUESTION_NEG = re.compile(
    r"\b(nao|not|never|nunca|cannot|can't|doesn't|don't|isn't|aren't|won't)\b"
)


@dataclass(frozen=True)
class Clause:
    hit: Hit
    text: str
    start: int
    end: int
    score: float
    negative: bool


def question_negated(question: str) -> bool:
    return bool(_QUESTION_NEG.search(fold(question)))


def negative(text: str) -> bool:
    return bool(_DOC_NEG.search(_NOT_NEGATION.sub(" ", fold(text))))


def best_clause(
    index: SearchIndex, question: str, entities: list[str], hits: list[Hit], depth: int = 5
) -> Clause | None:
    """The clause of the top `depth` hits that best aligns with the question."""
    q_terms = set(analyse(question))
    q_ents = set(entities)
    candidates: list[tuple[int, int]] = []  # (rank, clause id)
    for rank, hit in enumerate(hits[:depth]):
        unit = index.position.get(hit.node.id)
        if unit is None:
            continue
        candidates += [(rank, c) for c in index.clauses_of.get(unit, [])]
    if not candidates:
        return None
    sims = index.clause_similarity(question, [c for _, c in candidates])
    best: Clause | None = None
    for (rank, c), sim in zip(candidates, sims, strict=True):
        cl = index.clauses[c]
        shared = len(q_terms & set(analyse(cl.text))) / max(len(q_terms), 1)
        ents = len(q_ents & cl.entities) / max(len(q_ents), 1) if q_ents else 0.0
        foreign = {e for e in cl.entities if e.startswith("card/")} - q_ents
        mismatch = len(foreign) / max(len({e for e in cl.entities if e.startswith("card/")}), 1)
        score = (
            float(sim)
            + 0.25 * ents
            - 0.1 * mismatch
            + 0.15 * shared
            + 0.03 * (depth - rank) / depth
        )
        if best is None or score > best.score:
            hit = hits[rank]
            best = Clause(hit, cl.text, cl.start, cl.end, score, negative(cl.text))
    return best
