"""What makes a generated question unfair, checked before it enters the bank.

- A statement that holds in several steps cannot key a one-step question: a negated statement
  ("Efeitos de Virar NÃO são ativados ainda") states an absence that lasts beyond the step that
  says it, and a statement one step repeats (even inside a longer sentence) holds in both.
- No prompt gives the key away: a word only the key option has must not appear in the prompt or
  the statement ("no começo da Etapa de Dano" → "Começo da Etapa de Dano"); options are distinct.
- A true/false statement names its subject: a sentence that opens with its verb ("-NÃO PODEM ser
  negados …", a list item under a heading) is shown with the heading it belongs to.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Sequence

from kb.presentation.polarity import VERBS, negations
from kb.search.analysis import analyse

_NOTE = re.compile(r"\(ex:[^)]*\)")
_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+")
# A sentence that starts with its verb (after a bullet, a leading condition "Se …," and a "não").
_VERB_FIRST = re.compile(
    r"^[\W_]*(?:se\b[^,]*,\s*)?(?:não\s+|nao\s+)?(?:" + VERBS + r")(?![\w-])", re.IGNORECASE
)
CONTAINED = 0.8  # share of a sentence's words another step's sentence holds: "the same statement"
MIN_WORDS = 3


def words(text: str) -> set[str]:
    """The analysed content words of a text (stems, without stop words or example notes)."""
    return set(analyse(_NOTE.sub(" ", text)))


def sentence_words(text: str) -> list[set[str]]:
    """The content words of each sentence of a text that has at least MIN_WORDS of them."""
    found = [words(s) for s in _SENTENCE_END.split(text)]
    return [w for w in found if len(w) >= MIN_WORDS]


def same_statement(a: set[str], b: set[str]) -> bool:
    """One sentence's words are (almost) all in the other: they state the same thing."""
    return bool(a and b) and len(a & b) / min(len(a), len(b)) >= CONTAINED


def holds_in_several(text: str, elsewhere: Iterable[str]) -> bool:
    """A step's statement that also holds in other steps: negated, or repeated in `elsewhere`."""
    if negations(text):
        return True
    mine = sentence_words(text)
    return any(
        same_statement(a, b) for other in elsewhere for b in sentence_words(other) for a in mine
    )


def giveaway(
    shown: Sequence[str], options: Sequence[str], key: str, common: Iterable[str] = ()
) -> set[str]:
    """The words only the key option has that the prompt or statement also has (empty: fair).

    `common` words say nothing of one option (e.g. "efeitos", in every sub-step's text)."""
    others: set[str] = set(common)
    for option in options:
        if option != key:
            others |= words(option)
    seen = set().union(*(words(t) for t in shown)) if shown else set()
    return (words(key) - others) & seen


def fair_options(
    key: str,
    candidates: Sequence[str],
    shown: Sequence[str],
    seed: str,
    k: int = 3,
    common: Iterable[str] = (),
) -> list[str] | None:
    """The key and up to `k` distractors, preferring those that share the words the key shares
    with the prompt (so no word points at the key); None when no choice is fair."""
    clues = words(key) & set().union(*(words(t) for t in shown))
    pool = sorted(set(candidates) - {key})
    random.Random(seed).shuffle(pool)
    pool.sort(key=lambda c: -len(words(c) & clues))  # stable: ties keep the seeded order
    chosen = [key, *pool[:k]]
    if len(chosen) < 2 or not distinct(chosen) or giveaway(shown, chosen, key, common):
        return None
    return chosen


def distinct(options: Sequence[str]) -> bool:
    """No two options say the same (after folding case and spaces)."""
    folded = [" ".join(o.casefold().split()) for o in options]
    return len(set(folded)) == len(folded)


def lacks_subject(sentence: str) -> bool:
    """The sentence opens with its verb: its subject is in the heading above it."""
    return _VERB_FIRST.match(sentence) is not None
