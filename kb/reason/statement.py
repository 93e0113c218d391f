"""Reading a verdict off the best-matching statement or example (for questions no reasoner covers).

The question's content terms and entities are aligned with each clause of the top passages; the
best clause's polarity (não, NÃO, nem, nenhum, cannot, not …), flipped by a negation in the
question itself, gives the verdict.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kb.analysis import analyse
from kb.ids import fold
from kb.search import Hit

_NEG = re.compile(
    r"\b(nao|nem|nenhum|nenhuma|nunca|jamais|not|no|never|cannot|can't|isn't|doesn't|don't)\b"
)
_CLAUSE = re.compile(
    r"(?<=[.;!?])\s+|,\s+(?=mas\b|but\b|porem\b|porém\b)|\s+(?=mas\s)|\s+(?=\bOU\b)"
)
_QUESTION_NEG = re.compile(r"\b(nao|not|doesn't|don't|isn't|can't|cannot|never|nunca)\b")


@dataclass(frozen=True)
class Clause:
    hit: Hit
    text: str
    overlap: float
    negative: bool


def clauses(hit: Hit) -> list[str]:
    text = hit.node.text or ""
    return [c for c in _CLAUSE.split(text) if c and c.strip()]


def question_negated(question: str) -> bool:
    return bool(_QUESTION_NEG.search(fold(question)))


def best_clause(question: str, entities: list[str], hits: list[Hit]) -> Clause | None:
    """The clause sharing most entities and stems with the question (ties: better-ranked hit)."""
    q_terms = set(analyse(question))
    best: Clause | None = None
    for rank, hit in enumerate(hits):
        ents = set(hit.entities)
        for text in clauses(hit):
            c_terms = set(analyse(text))
            shared = len(q_terms & c_terms) / max(len(q_terms), 1)
            ent_share = len(ents & set(entities)) / max(len(set(entities)), 1) if entities else 0.0
            score = shared + 0.5 * ent_share + 0.15 * (len(hits) - rank) / len(hits)
            if best is None or score > best.overlap:
                best = Clause(hit, text, score, bool(_NEG.search(fold(text))))
    return best
