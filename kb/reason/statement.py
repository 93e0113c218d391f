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
_DOC_NEG = re.compile(r"\b(nao|nem|nenhum|nenhuma|nunca|jamais|ilegal|ilegais)\b")
# "a não ser" (unless), "(mas não a ativação)" (but not …), "ou não" (or not) do not negate.
_NOT_NEGATION = re.compile(r"\ba nao ser\b|\bmas nao a\b|\(mas nao [^)]*\)|\bou nao\b")
# Clauses that state an outcome (a permission, an obligation, a conclusion) decide over set-ups.
_OUTCOME = re.compile(
    r"\b(pode|podem|podera|poderao|deve|devem|portanto|sendo assim|assim|entao)\b"
)
_QUESTION_NEG = re.compile(
    r"\b(nao|not|never|nunca|nada|nothing|cannot|can't|doesn't|don't|isn't|aren't|won't)\b"
)


@dataclass(frozen=True)
class Clause:
    hit: Hit
    text: str
    start: int
    end: int
    score: float
    negative: bool


# A conditional or contrast clause of the question ("if my teammate doesn't …", "mas eu não"):
# negation inside it does not negate the question itself.
_SUBORDINATE = re.compile(
    r"\b(se|if|quando|when|while|enquanto|but|mas|unless|que|that|which)\b[^,?]*"
)
_EXCLUSIVE = re.compile(r"\b(apenas|somente|so|only|exclusivamente|unicamente)\b")
_PARTIES = {
    "teammate": re.compile(
        r"\b(parceiro|parceira|companheiro|companheira|teammate|partner|team-mate|aliado)\w*"
    ),
    "opponent": re.compile(r"\b(oponente|adversario|opponent)\w*"),
}
_NUMBER_WORDS = {
    "um": 1,
    "uma": 1,
    "one": 1,
    "dois": 2,
    "duas": 2,
    "two": 2,
    "tres": 3,
    "three": 3,
    "quatro": 4,
    "four": 4,
    "cinco": 5,
    "five": 5,
    "seis": 6,
    "six": 6,
    "sete": 7,
    "seven": 7,
    "oito": 8,
    "eight": 8,
}
_NUMBER = re.compile(r"\b(\d[\d.]*|" + "|".join(_NUMBER_WORDS) + r")\b")


def question_negated(question: str) -> bool:
    """Negation of the question's main clause (not of an 'if …' or 'but …' clause)."""
    main = _SUBORDINATE.sub(" ", fold(question))
    return bool(_QUESTION_NEG.search(main))


def _numbers(text: str) -> set[int]:
    out = set()
    for token in _NUMBER.findall(text):
        if token in _NUMBER_WORDS:
            out.add(_NUMBER_WORDS[token])
        else:
            digits = token.replace(".", "")
            if digits.isdigit():
                out.add(int(digits))
    return out


def contradicts(question: str, clause: str) -> bool:
    """The clause answers a different case than the question asks about: it is restricted
    ("apenas", "only") to parties the question goes beyond, or states other numbers."""
    q, c = fold(question), fold(clause)
    if _EXCLUSIVE.search(c):
        for pattern in _PARTIES.values():
            if pattern.search(q) and not pattern.search(c):
                return True
    # "um"/"uma"/"one" are mostly articles: only digits count as the number one.
    one = re.search(
        r"\b1\b|\b(maximo|apenas|so|somente|exatamente|at most|only)\s+(um|uma|one)\b", c
    )
    qn, cn = _numbers(q) - {1}, _numbers(c) - {1} | ({1} if one else set())
    counted = _NUMBER.search(c) and re.search(
        r"\b(melhor de|best of|copias|copies|pontos de vida|life points|lp|cards?)\b", q
    )
    return bool(counted and qn and cn and not qn & cn)


# A condition inside a statement ("… perde se … não puder comprar"): its negation is the
# condition's, not the statement's.
_CONDITION = re.compile(r"\b(se|quando|enquanto|caso)\b[^,.;]*")


def negative(text: str) -> bool:
    """Whether a document clause states a negative (outside its conditions)."""
    main = _CONDITION.sub(" ", _NOT_NEGATION.sub(" ", fold(text)))
    return bool(_DOC_NEG.search(main))


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
        outcome = 0.04 if _OUTCOME.search(fold(cl.text)) else 0.0
        score = (
            float(sim)
            + outcome
            + 0.25 * ents
            - 0.1 * mismatch
            + 0.15 * shared
            + 0.03 * (depth - rank) / depth
        )
        if best is None or score > best.score:
            hit = hits[rank]
            best = Clause(hit, cl.text, cl.start, cl.end, score, negative(cl.text))
    return best
