"""The one pt/en negation lexicon, read by ingest (document polarity, permissions, quiz flips)
and by answers (question and statement polarity).

Patterns work on folded text (`kb.ids.fold`: lowercase, no accents) unless their name says
otherwise. Portuguese "no" is a preposition ("in the"), so English "no" negates only as a
determiner before a subject and an English modal ("No duelist can …").
"""

from __future__ import annotations

import re

# Words that negate in the documents (Portuguese).
NEGATORS_PT: tuple[str, ...] = ("nao", "nem", "nenhum", "nenhuma", "nunca", "jamais", "ninguem")
# Words that negate in English questions and statements.
NEGATORS_EN: tuple[str, ...] = (
    "not",
    "never",
    "nothing",
    "cannot",
    "can't",
    "doesn't",
    "don't",
    "isn't",
    "aren't",
    "won't",
    "none",
    "neither",
    "nor",
    "nobody",
    "no one",
)
# Words that deny a permission or an action: "X is illegal" answers "can I X?" with no, "skips
# the draw" = "does not draw".
DENIERS: tuple[str, ...] = (
    "ilegal",
    "ilegais",
    "illegal",
    "skips?",
    "skipped",
    "pula",
    "pular",
    "pulam",
    "pulou",
    "nada",
)
# Phrases with a negation word that do not negate: "a não ser" (unless), "ou não" (or not),
# "(mas não …)" (but not …), "whether or not", "not only".
NOT_NEGATION_PT = r"\ba nao ser\b|\bmas nao a\b|\(mas nao [^)]*\)|\bou nao\b"
NOT_NEGATION_ANY = re.compile(
    NOT_NEGATION_PT
    + r"|\bwhether or not\b|\bor not\b|\bnot (?:only|just|merely)\b|\bnao (?:so|apenas|somente)\b"
)
NOT_NEGATION_DOC = re.compile(NOT_NEGATION_PT)

_EN_MODALS = r"(?:can|could|may|might|will|would|shall|should|must|is|are|was|were|gets?|has|have)"
# English "No <subject> can …" (the subject is one to three words, not a format name).
_NO_SUBJECT = rf"(?:^|(?<=[,.;:!?]\s)|(?<=^\W))no (?:[\w-]+ ){{1,3}}{_EN_MODALS}\b"

# Negation in a (Portuguese) document clause.
DOC_NEGATION = re.compile(rf"\b({'|'.join(NEGATORS_PT[:-1])}|ilegal|ilegais)\b")
# English "no" as the object's determiner of having: "the turn player has no priority", "there
# is no distinction" (as "não tem", "não há"). A requirement ("must have no Extra Deck", "precisam
# estar sem") describes, it does not deny.
_HAS_NO = (
    r"(?<!must )(?<!to )\b(?:has|have|had|gets?|got|there (?:is|are|was|were|'s))\s+no\b"
    r"(?! longer)"
)
# Negation anywhere in a question or a curated statement, pt or en.
ANY_NEGATION = re.compile(
    rf"\b({'|'.join((*NEGATORS_PT, *NEGATORS_EN, *DENIERS))})\b|{_NO_SUBJECT}|{_HAS_NO}"
)
# A denying predicate ("… é ilegal?"): it negates the clause it ends, relative clause or not.
DENYING = re.compile(rf"\b({'|'.join(DENIERS[:-1])})\b")
# "Does X prevent the opponents from banishing?" asks whether they cannot: a preventing verb
# whose object is a player (not a card: "stop Raigeki Break from destroying" asks about a
# protection), with its "from"/"de" + infinitive.
_PLAYER = (
    r"(?:oponentes?|adversarios?|opponents?|jogador\w*|players?|duelist\w*|parceir\w*|"
    r"partners?|companheir\w*|teammates?|me|you|them|eles|elas|ambos|both|nos|us)"
)
PREVENTING = re.compile(
    r"\b(impede|impedem|impedir|impediria|prevents?|prevented|stops?|stopped)\b"
    rf"(?:\s+[\w'-]+){{0,3}}?\s+{_PLAYER}\b(?:\s+[\w'-]+){{0,3}}?\s+(?:de|from)\s+\w+"
)
# A negation at the start of a list item, in the original case ("-NÃO PODEM ser negados").
NEGATIVE_LEAD = re.compile(r"\bN[ÃA]O\b|\bnão\b|\bnem\b|\bnenhum", re.IGNORECASE)
# Negation words for sentence flips, in the original case (word boundaries that keep hyphenated
# words such as "não-inerente" whole).
FLIP_NEGATORS = re.compile(r"(?<!\w)(não|nem|nenhum|nenhuma|nunca|jamais)(?![\w-])", re.IGNORECASE)
# A bullet forbidding something, in the original case ("NÃO PODE", "não são ativados").
FORBIDDING = re.compile(r"\bNÃO (?:PODE|PODEM|pode|podem|são ativados)\b")


def negated(folded: str) -> bool:
    """Whether a folded question or statement contains a negation (pt or en)."""
    return bool(ANY_NEGATION.search(NOT_NEGATION_ANY.sub(" ", folded)))
