"""Controlled polarity flips of one Portuguese sentence, for true/false questions.

A sentence flips only when the change is unambiguous:
- it has exactly one negation, a `não` right before a verb, and it is removed
  ("… não pode ativar …" → "… pode ativar …");
- or it has no negation, no quantifier (apenas, só, qualquer, todos …) and exactly one modal or
  copula (pode, podem, é, são, será, vai …) outside a subordinate clause, and `não` is inserted
  before it;
- and never when the sentence contrasts two clauses (mas, porém …: flipping one side leaves a
  contrast between two equal claims, which gives the flip away) or, for a removal, when the
  negation is one of time or degree ("não … ainda" is "not yet"; "geralmente não" is a hedge):
  removing the `não` would not state the opposite.
The flipped sentence states the opposite of the document's sentence, so it is false.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kb.reading.negation import FLIP_NEGATORS

_W = r"(?<!\w)"  # word start ("-NÃO PODEM" is a list item's negation)
_E = r"(?![\w-])"  # word end (a hyphen continues the word: "não-inerente" is no negation)
_NEGATION = FLIP_NEGATORS
# Negation words that do not negate the sentence: "a não ser" (unless), "ou não" (or not).
_NOT_NEGATION = re.compile(r"\ba não ser\b|\bou não\b|\(mas não [^)]*\)", re.IGNORECASE)
VERBS = (
    "pode|podem|poderá|poderão|poderia|é|são|será|serão|foi|vai|irá|irão|está|estão|tem|têm|"
    "terá|ativa|ativam|ativará|aplica|aplicam|inicia|iniciam|destrói|destroem|permite|permitirá|"
    "afeta|afetam|afetará|conta|contam|compra|deve|devem|causa|gera"
)
_REMOVABLE = re.compile(
    _W + r"(não|NÃO)\s+(" + VERBS + r")" + _E + r"(\s+mais" + _E + ")?", re.IGNORECASE
)
_INSERTABLE = re.compile(
    _W + r"(pode|podem|poderá|poderão|é|são|será|serão|vai|irá|deve|devem)" + _E, re.IGNORECASE
)
_QUANTIFIER = re.compile(
    _W + r"(apenas|só|somente|qualquer|quaisquer|sempre|também|todos|todas|todo|toda|ambos|ambas|"
    r"cada|máximo|mínimo|independente|exceto|incluindo|ainda|mesmo|mesma|mesmos|mesmas|"
    r"geralmente|normalmente)" + _E,
    re.IGNORECASE,
)
# A contrast inside the sentence ("X pode, mas Y não pode"), and negations of time or degree.
_CONTRAST = re.compile(r"\s(mas|porém|contudo|todavia)" + _E, re.IGNORECASE)
_HEDGE = re.compile(_W + r"(ainda|geralmente|normalmente|nem)" + _E, re.IGNORECASE)
# A subordinate clause before the insertion site: "quando X é …", "que Y pode …" are not the claim.
_SUBORDINATE = re.compile(
    _W + r"(quando|quanto|quantos|quantas|enquanto|porque|cujo|cuja|caso|que)" + _E, re.IGNORECASE
)


@dataclass(frozen=True)
class Flip:
    """The flipped sentence and what changed: `removed` True when a `não` was taken out."""

    text: str
    removed: bool
    word: str


def negations(sentence: str) -> list[str]:
    """The negation words that negate something in the sentence."""
    return _NEGATION.findall(_NOT_NEGATION.sub(" ", sentence))


def flip(sentence: str) -> Flip | None:
    """The sentence with its polarity flipped in one controlled place, or None."""
    if _CONTRAST.search(sentence):
        return None
    found = negations(sentence)
    if len(found) == 1:
        sites = list(_REMOVABLE.finditer(sentence))
        if len(sites) != 1 or _NOT_NEGATION.search(sentence) or _HEDGE.search(sentence):
            return None
        m = sites[0]
        text = sentence[: m.start()] + m.group(2) + sentence[m.end() :]
        if m.start() == 0:
            text = text[:1].upper() + text[1:]
        return Flip(text, True, m.group(1))
    if found or _QUANTIFIER.search(sentence):
        return None
    sites = list(_INSERTABLE.finditer(sentence))
    if len(sites) != 1:
        return None
    m = sites[0]
    clause_start = max(sentence.rfind(c, 0, m.start()) for c in ",;(")
    if _SUBORDINATE.search(sentence, clause_start + 1, m.start()):
        return None
    word = m.group(1)
    neg = "NÃO" if word.isupper() and len(word) > 1 else "não"
    if m.start() == 0:
        neg, word = neg.capitalize(), word.lower()
    return Flip(sentence[: m.start()] + f"{neg} {word}" + sentence[m.end() :], False, word)
