"""Reading a verdict off the best-matching statement or example (for questions no reasoner covers).

Each clause of the best-ranked passages is aligned with the question: by embedding similarity,
shared entities and shared stems. The best clause's polarity (não, NÃO, nem, nenhum, nunca …),
flipped by a negation in the question itself, gives the verdict.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache

from kb.ids import fold
from kb.link import Linker
from kb.reading.negation import (
    ANY_NEGATION,
    DENYING,
    DOC_NEGATION,
    NOT_NEGATION_ANY,
    NOT_NEGATION_DOC,
    PREVENTING,
)
from kb.search.analysis import analyse
from kb.search.index import Hit, SearchIndex

# The shared pt/en negation lexicon (kb.reading.negation).
_DOC_NEG = DOC_NEGATION
_NOT_NEGATION = NOT_NEGATION_DOC
_QUESTION_NEG = ANY_NEGATION
_NOT_NEGATION_ANY = NOT_NEGATION_ANY
# Clauses that state an outcome (a permission, an obligation, a conclusion) decide over set-ups.
_OUTCOME = re.compile(
    r"\b(pode|podem|podera|poderao|deve|devem|portanto|sendo assim|assim|entao)\b"
)


@dataclass(frozen=True)
class Clause:
    hit: Hit
    text: str
    start: int
    end: int
    score: float
    negative: bool


# A conditional, concessive, contrast or relative clause of the question ("if my teammate
# doesn't …", "mas eu não", "a monster that doesn't …"): negation inside it does not negate the
# question itself. A conditional ends at a comma, or where the asking clause starts ("if … I
# can't pay it?").
_ASKING = (
    r"(?=\b(?:i|eu|you|voce|we|nos|they|eles|elas|he|ele|she|ela)\s+(?:just\s+|so\s+)?"
    r"(?:can|could|may|must|will|would|do|does|did|cannot|can't|pode|posso|podemos|consigo)\b)"
)
# (Causes too: "Since X's Summon doesn't start a Chain, can I respond to it?" asks the latter.)
_CONDITIONAL = re.compile(
    rf"\b(se|if|quando|when|while|enquanto|unless|mesmo|even|embora|although|ainda que|"
    rf"though|caso|since|because|given that|ja que|visto que|dado que)\b(?:(?!{_ASKING})[^,?])*"
)
_SUBORDINATE = re.compile(
    rf"\b(se|if|quando|when|while|enquanto|but|mas|unless|que|that|which|mesmo|even|embora|"
    rf"although|ainda que|though|caso|since|because|given that|ja que|visto que|dado que)\b"
    rf"(?:(?!{_ASKING})[^,?])*"
)
# "só" folds to "so"; English "so a team can …" is no restriction.
_EXCLUSIVE = re.compile(
    r"\b(apenas|somente|only|exclusivamente|unicamente)\b"
    r"|\bso\b(?!\s+(?:a|an|the|it|they|that|you|we|he|she|i|its|their)\b)"
)
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
    # ordinals count too ("the third opponent turn"); "first"/"segundo" are too ambiguous
    "second": 2,
    "third": 3,
    "terceiro": 3,
    "terceira": 3,
    "fourth": 4,
    "quarto": 4,
    "quarta": 4,
    "fifth": 5,
    "quinto": 5,
    "quinta": 5,
}
# Thousands grouped with a dot (pt "16.000") or a comma (en "16,000").
_NUMBER_TOKEN = r"\d{1,3}(?:[.,]\d{3})+|\d+|" + "|".join(_NUMBER_WORDS)
_NUMBER = re.compile(rf"\b({_NUMBER_TOKEN})\b")


@lru_cache(maxsize=8192)
def last_sentence(text: str) -> str:
    """The asking sentence of a question that first sets up a situation ("X. Y não tem. Pode?")."""
    parts = [p for p in re.split(r"(?<=[.!;])\s+", text.strip()) if p]
    while len(parts) > 1 and len(parts[-1].split()) < 3:
        parts[-2:] = [" ".join(parts[-2:])]
    return parts[-1] if parts else ""


_ASIDE = re.compile(r"\([^()]*\)")


def main_clause(text: str, relatives: bool = False) -> str:
    """The asking sentence of a question, folded, without its conditions and asides in
    parentheses ("(it cannot be destroyed by battle)" describes, it does not ask) and, with
    `relatives`, its relative and contrast clauses."""
    clauses = _SUBORDINATE if relatives else _CONDITIONAL
    sentence = _ASIDE.sub(" ", fold(last_sentence(text)))
    return clauses.sub(" ", _NOT_NEGATION_ANY.sub(" ", sentence))


def question_negated(question: str) -> bool:
    """Negation of the question's main clause (not of the set-up sentences before it, nor of an
    'if …' or 'but …' clause). A denying predicate ("… que cria um loop é ilegal?") counts
    wherever it stands outside a condition: it is what the question asks."""
    if _QUESTION_NEG.search(main_clause(question, relatives=True)):
        return True
    return bool(DENYING.search(main_clause(question)))


def prevented_action(question: str) -> str | None:
    """The (folded) verb the question asks whether players are prevented from doing ("impede
    os dois oponentes de banir?" → "banir"): a statement of that action reads the question as
    "can they not …?"."""
    m = PREVENTING.search(main_clause(question, relatives=True))
    return m.group(0).split()[-1] if m else None


def states_action(verb: str, stems: frozenset[str]) -> bool:
    """Whether a statement's stems include the verb (its stem opens the verb: "ban", "banish")."""
    return any(len(stem) >= 3 and verb.startswith(stem) for stem in stems)


# A condition of a statement (pt/en): its negation is the condition's, not the statement's.
_CONDITION_ANY = re.compile(
    r"\b(se|quando|enquanto|caso|desde que|contanto que|a menos que|a nao ser que|if|when|while|"
    r"unless|as long as|so long as|provided)\b[^,.;]*"
)


def stated_negative(text: str) -> bool:
    """Whether a curated statement (pt or en) is negative outside its conditions."""
    main = _CONDITION_ANY.sub(" ", _NOT_NEGATION_ANY.sub(" ", fold(text)))
    return bool(_QUESTION_NEG.search(main))


_ONLY_IF = re.compile(
    r"\b(so|somente|apenas|only)\b[^.;]{0,60}?\b(se|if|quando|when)\b|\b(se|if) \(?e somente se\b"
)


def condition_unmet(question: str, statement: str) -> bool:
    """The statement allows something only under a condition ("only if they negate") and the
    question asks about the case where the condition is not met ("one that doesn't negate")."""
    if not _ONLY_IF.search(fold(statement)):
        return False
    q = _NOT_NEGATION_ANY.sub(" ", fold(last_sentence(question)))
    conditions = " ".join(m.group(0) for m in _SUBORDINATE.finditer(q))
    return bool(_QUESTION_NEG.search(conditions))


# A rule that holds only under a condition it states ("desde que …", "as long as …", "unless …").
_PROVISO = re.compile(
    r"\b(desde que|contanto que|as long as|so long as|provided|unless|a menos que)\b[^,.;]*"
)
_NEGATIVE_PROVISO = re.compile(r"\b(unless|a menos que)\b")


def condition_flipped(question: str, statement: str) -> bool:
    """The statement holds only under a condition and the question asks about that condition
    with the opposite polarity ("… when the Summon starts a Chain?" against "… as long as the
    Summon does not start a Chain"), so the statement answers the question inverted."""
    q = _NOT_NEGATION_ANY.sub(" ", fold(last_sentence(question)))
    s = _NOT_NEGATION_ANY.sub(" ", fold(statement))
    q_cond = " ".join(m.group(0) for m in _CONDITIONAL.finditer(q))
    s_cond = " ".join(m.group(0) for m in _PROVISO.finditer(s))
    if not q_cond or not s_cond or len(set(analyse(q_cond)) & set(analyse(s_cond))) < 2:
        return False
    q_neg = bool(_QUESTION_NEG.search(q_cond) or _NEGATIVE_PROVISO.search(q_cond))
    s_neg = bool(_QUESTION_NEG.search(s_cond) or _NEGATIVE_PROVISO.search(s_cond))
    return q_neg != s_neg


_WITHOUT = re.compile(r"\b(?:sem que|sem|without)\b([^,?.;)]*)")
_REQUIRES = re.compile(
    r"\b(deve|devem|devera|deverao|precisa|precisam|necessario|obrigatori\w*|must|has to|"
    r"have to|needs? to|required)\b"
)


def requirement_skipped(question: str, statement: str) -> bool:
    """The question asks whether something can be done without what the statement requires
    ("posso ativar Sogen sem que a Floresta vá pro cemitério antes?" against "ela precisa ser
    enviada ao Cemitério antes …"): the statement answers it inverted."""
    s = fold(statement)
    if not _REQUIRES.search(s):
        return False
    skipped = " ".join(m.group(1) for m in _WITHOUT.finditer(main_clause(question)))
    words = {w for w in analyse(skipped) if len(w) >= 4}
    return bool(words & set(analyse(s)))


# What a number counts, when a unit follows it ("3 turnos", "duas cópias", "best of 3").
_UNITS = {
    "copy": r"c[oó]pias?|copies|copy",
    "turn": r"turnos?|turns?",
    "lp": r"lp|pv|pontos de vida|life points?",
    "card": r"cards?|cartas?",
    "zone": r"zonas?|zones?",
    "monster": r"monstros?|monsters?",
    "deck": r"decks?",
    "minute": r"minutos?|minutes?|mins?",
}
_COUNTED = re.compile(
    rf"\b(?:melhor de|best of)\s+(?P<best>{_NUMBER_TOKEN})\b"
    rf"|\b(?P<n>{_NUMBER_TOKEN})\s*(?:\(\d+\)\s*)?(?:\w+\s+)?"
    rf"(?P<unit>{'|'.join(_UNITS.values())})\b"
)


# One, said without a number: "a single Deck", "um único Deck", "um deck só", "um só deck" — of
# things one counts (not Life Points), and not as a modifier ("a single card effect").
_COUNTABLE = "|".join(p for u, p in _UNITS.items() if u != "lp")
_MODIFIED = (
    r"(?!\s+(?:total|effects?|efeitos?|text|texto|names?|nomes?|types?|tipos?|zones?|zonas?))"
)
_SINGLE = re.compile(
    rf"\b(?:a|an|one|um|uma)\s+(?:single|sole|unic[oa]|so)\s+(?P<unit>{_COUNTABLE})\b{_MODIFIED}"
    rf"|\b(?:um|uma)\s+(?P<after>{_COUNTABLE})\s+(?:so|unic[oa])\b"
)


def _unit(word: str) -> str:
    return next(u for u, pat in _UNITS.items() if re.fullmatch(pat, word))


@lru_cache(maxsize=8192)
def _counts(text: str) -> Mapping[str, frozenset[int]]:
    """unit → the numbers the text gives for it (cached: read only)."""
    return {u: frozenset(ns) for u, ns in _count_sets(text).items()}


def _count_sets(text: str) -> dict[str, set[int]]:
    out: dict[str, set[int]] = {}
    for m in _SINGLE.finditer(text):
        out.setdefault(_unit(m.group("unit") or m.group("after")), set()).add(1)
    for m in _COUNTED.finditer(text):
        if m.group("best"):
            out.setdefault("best", set()).update(_numbers(m.group("best")))
            continue
        exact = re.search(
            r"\b(at most|only|exactly|apenas|so|somente|exatamente|maximo)\s*$", text[: m.start()]
        )
        if m.group("n") in ("um", "uma", "one") and "(" not in m.group(0) and not exact:
            continue  # an article ("um card"), unless "uma (1) cópia", "at most one copy"
        out.setdefault(_unit(m.group("unit")), set()).update(_numbers(m.group("n")))
    return out


_HOW_MANY = re.compile(
    rf"\b(?:quant[oa]s?|how many|how much|qual (?:o|a) (?:numero|quantidade) de)\s+(?:de\s+)?"
    rf"(?P<unit>{'|'.join(_UNITS.values())})\b"
)


def asked_unit(folded: str) -> str | None:
    """The unit a "how many …" question asks for ("quantos pontos de vida" → "lp")."""
    m = _HOW_MANY.search(folded)
    if m is None:
        return None
    return _unit(m.group("unit"))


def stated_amount(folded: str, unit: str) -> int | None:
    """The one number a statement gives for `unit`, if it gives exactly one."""
    found = _counts(folded).get(unit, frozenset())
    return next(iter(found)) if len(found) == 1 else None


def states_amount(folded: str, unit: str) -> bool:
    """A statement gives some number of `unit` ("two copies each, four per team")."""
    return bool(_counts(folded).get(unit))


def quantities(folded: str) -> list[tuple[int, str | None]]:
    """Every number of a folded text, with the unit it counts when one follows."""
    counted = {(n, unit) for unit, ns in _counts(folded).items() for n in ns}
    bare = _numbers(folded) - {n for n, _ in counted}
    return sorted(counted, key=lambda t: (t[0], t[1] or "")) + [(n, None) for n in sorted(bare)]


def _numbers(text: str) -> set[int]:
    out = set()
    for token in _NUMBER.findall(text):
        if token in _NUMBER_WORDS:
            out.add(_NUMBER_WORDS[token])
        else:
            digits = token.replace(".", "").replace(",", "")
            if digits.isdigit():
                out.add(int(digits))
    return out


# Complementary terms: a statement using one answers a question using the other, inverted.
_OPPOSITES: tuple[tuple[re.Pattern[str], re.Pattern[str]], ...] = tuple(
    (re.compile(a), re.compile(b))
    for a, b in (
        (
            r"\b(?<!non-)(?<!nao-)(?<!nao )(inherent|inerentes?)\b",
            r"\b(non-?|nao-?\s?)(inherent|inerentes?)\b",
        ),
        (r"\b(mandatory|obrigatori[oa]s?)\b", r"\b(optional|opciona(l|is))\b"),
        (r"\b(face-?up|face para cima)\b", r"\b(face-?down|face para baixo)\b"),
        (
            r"\b(attack position|posicao de ataque)\b",
            r"\b(defen[sc]e position|posicao de defesa)\b",
        ),
        # counting or treating each one on its own, or all of them as one
        (
            r"\b(separately|individually|separadamente|individualmente|em separado)\b",
            r"\b(as a whole|as one|collectively|como um todo|em conjunto|coletivamente)\b",
        ),
    )
)
# A named duelist of a Tag Duel: 1A, 2B, "Duelista A", "duelist B".
# Read on the original text: "Duelista A" names a duelist, "o duelista a jogar" does not.
_DUELIST = re.compile(r"\b(?i:duelista|duelist)s?\s+([12]?[AB])\b|\b([12][ABab])\b")


@lru_cache(maxsize=8192)
def _duelists(text: str) -> frozenset[str]:
    return frozenset((a or b).lower() for a, b in _DUELIST.findall(text))


# "Does it also …?" against "it only …": the restriction excludes the addition asked about.
_ADDITIVE = re.compile(r"\b(tambem|too|also|as well|alem de|besides)\b")


def _one_each(a: re.Pattern[str], b: re.Pattern[str], q: str, c: str) -> bool:
    """The question uses only one of two complementary terms and the clause only the other."""
    qa, qb, ca, cb = a.search(q), b.search(q), a.search(c), b.search(c)
    return bool((qa and not qb and cb and not ca) or (qb and not qa and ca and not cb))


def _other_duelists_or_numbers(question: str, clause: str) -> bool:
    """The clause names other duelists (1A, 2B) or other numbers of a unit than the question."""
    qd, cd = _duelists(last_sentence(question)), _duelists(clause)
    if qd and cd and not qd & cd:
        return True
    return counts_differ(question, clause)


def counts_differ(question: str, clause: str) -> bool:
    """The clause gives other numbers of a unit the asking sentence asks about ("four copies?"
    against "… limited to two copies")."""
    qc, cc = _counts(_folded(last_sentence(question))), _counts(_folded(clause))
    return any(qc[u] and cc.get(u) and not qc[u] & cc[u] for u in qc)


def counts_asked(question: str, clause: str) -> bool:
    """The clause gives a number (the same or another) of a unit the asking sentence counts
    ("a single Deck?" against "… so a team has 2 Decks"): it speaks to the number asked."""
    qc, cc = _counts(_folded(last_sentence(question))), _counts(_folded(clause))
    return any(qc[u] and cc.get(u) for u in qc)


# "Is there a maximum number of Chain Links …?", "Existe limite de …?": what is said to exist.
_EXISTS = re.compile(
    r"^(?:[^?]{0,40}?[:,]\s*)?(?:is there|are there|does there exist|existe|existem|ha|há|"
    r"tem algum|tem alguma)\s+(?:(?:an?|any|some|um|uma|algum|alguma)\s+)?(?P<what>[^?]+)"
)
# Where the thing named ends: a relative clause, a place, a time.
_WHAT_ENDS = re.compile(
    r"\b(?:that|which|who|where|when|for|in|on|at|during|per|que|para|no|na|nos|nas|em|"
    r"durante|por|pra|pro)\b"
)


@lru_cache(maxsize=256)
def existence_asked(question: str) -> str | None:
    """What an existential question says exists ("a maximum number of Chain Links" of "Is there
    a maximum number of Chain Links that a single Chain can have?"), folded; None otherwise."""
    m = _EXISTS.search(fold(last_sentence(question)).strip())
    if m is None:
        return None
    what = m.group("what")
    end = _WHAT_ENDS.search(what)
    return (what[: end.start()] if end else what).strip() or None


def same_counts(question: str, clause: str) -> bool:
    """The clause gives the very number of a unit the asking sentence asks about ("four copies?"
    against "… a team can have four copies"): it speaks of the case asked."""
    qc, cc = _counts(_folded(last_sentence(question))), _counts(_folded(clause))
    return any(qc[u] & cc.get(u, frozenset()) for u in qc)


def opposed(question: str, clause: str) -> bool:
    """The question uses one of two complementary terms and the clause only the other, or asks
    whether something also holds where the clause says it only holds otherwise."""
    q, c = fold(question), fold(clause)
    if _ADDITIVE.search(q) and _EXCLUSIVE.search(c) and not _EXCLUSIVE.search(q):
        return True
    return any(
        (qa and not qb and cb and not ca) or (qb and not qa and ca and not cb)
        for (qa, qb), (ca, cb) in zip(_opposite_terms(q), _opposite_terms(c), strict=True)
    )


@lru_cache(maxsize=8192)
def _opposite_terms(text: str) -> tuple[tuple[bool, bool], ...]:
    """Which of each pair of complementary terms the (folded) text uses, read once per text."""
    return tuple((bool(a.search(text)), bool(b.search(text))) for a, b in _OPPOSITES)


_ORDER_WORD = re.compile(r"\b(before|antes|after|depois|apos)\b")


def _order_sides(text: str, linker: Linker) -> tuple[set[str], set[str]] | None:
    """Cards named only before and only after "before"/"after" in a text, normalised so that the
    first set happens first ("B after A" gives ({A}, {B}))."""
    m = _ORDER_WORD.search(fold(text))
    if m is None:
        return None
    cards = [x for x in linker.link(text) if x.entity.startswith("card/")]
    left = {x.entity for x in cards if x.end <= m.start()}
    right = {x.entity for x in cards if x.start >= m.end()}
    left, right = left - right, right - left
    return (right, left) if m.group(1) in ("after", "depois", "apos") else (left, right)


def reversed_order(question: str, statement: str, linker: Linker) -> bool:
    """The statement puts first a card the question asks to come second ("can I use A before
    they use B?" against "B can be used before A")."""
    q, s = _order_sides(question, linker), _order_sides(statement, linker)
    if q is None or s is None:
        return False
    return bool(q[1] & s[0]) and not q[1] & s[1]


# A Chain Link's number ("Chain Link 1", "Elo 2", "CL3"), read on the original text.
_LINK_NUMBER = re.compile(r"\b(?:chain link|elo|cl)\s*(\d+)\b", re.IGNORECASE)


def link_numbers(text: str, linker: Linker) -> dict[str, set[int]]:
    """The Chain Link numbers a text gives each card: the card named last before the number
    ("Sangan's effect is Chain Link 1 and Caius's is Chain Link 2", "o Sangan fica como elo 1")."""
    numbers = list(_LINK_NUMBER.finditer(text))
    if not numbers:
        return {}
    cards = sorted(
        (x for x in linker.link(text) if x.entity.startswith("card/")), key=lambda x: x.start
    )
    out: dict[str, set[int]] = {}
    for m in numbers:
        before = [x for x in cards if x.end <= m.start()]
        if before:
            out.setdefault(before[-1].entity, set()).add(int(m.group(1)))
    return out


def other_links(question: str, statement: str, linker: Linker) -> bool:
    """The statement puts a card the question places on a Chain Link on another link ("is
    Sangan Chain Link 1?" against "… Caius as Chain Link 1 and Sangan as Chain Link 2")."""
    if not _LINK_NUMBER.search(statement):
        return False
    asked = link_numbers(last_sentence(question), linker)
    if not asked:
        return False
    stated = link_numbers(statement, linker)
    return any(card in stated and not n & stated[card] for card, n in asked.items())


def contradicts(question: str, clause: str, counts: bool = True) -> bool:
    """The clause answers a different case than the question asks about: it is restricted
    ("apenas", "only") to parties the question goes beyond, names other duelists, states other
    numbers (unless `counts` is false: the typed reading compared them), or uses the complement
    of the question's term (inherent / non-inherent …)."""
    q, c = fold(last_sentence(question)), fold(clause)
    if opposed(q, c):
        return True
    return differs(question, clause, counts)


def differs(question: str, clause: str, counts: bool = True) -> bool:
    """The clause is about other parties, duelists or numbers than the question (meaningful for
    a statement that holds: "exactly 2" answers "4?" with no); numbers only with `counts`."""
    q, c = fold(last_sentence(question)), fold(clause)
    qd, cd = _duelists(last_sentence(question)), _duelists(clause)
    if qd and cd and not qd & cd:
        return True
    if counts and counts_differ(question, clause):
        return True
    if _EXCLUSIVE.search(c):
        for pattern in _PARTIES.values():
            if pattern.search(q) and not pattern.search(c):
                return True
    # "only one of them" answers "can both …?" with no.
    only_one = re.search(r"\b(only|apenas|so|somente)\s+(um|uma|one)\b", c)
    return bool(only_one and re.search(r"\b(both|ambos|ambas|os dois|as duas)\b", q))


# Actions that are different cases of one thing: activating a card is not Setting it.
# (verbs only: "ativa"/"active" also describe a card that is on the field, face-up).
_ACTIONS = (
    (
        re.compile(r"\b(ativar|ativou|ativad[oa]s?|ativam|ativando|activat\w*|activate[sd]?)\b"),
        re.compile(r"\b(baixar|baixou|baixad[oa]s?|baixam|baixando|set|sets|setting)\b"),
    ),
)


def other_case(question: str, clause: str, holds_positive: bool) -> bool:
    """The clause is about another case than the question, so it cannot decide it: other
    parties (the teammate, not the opponent asked about), another action (Setting, not
    activating), or, unless the clause states a rule that holds (whose other number answers
    "no"), other duelists or numbers."""
    c = _folded(clause)
    whole = _folded(question)  # the parties and actions of the set-up sentences count too
    if any(_one_each(a, b, whole, c) for a, b in _ACTIONS):
        return True
    q_parties, c_parties = _parties(whole), _parties(c)
    if q_parties and c_parties and not q_parties & c_parties:
        return True
    return not holds_positive and _other_duelists_or_numbers(question, clause)


@lru_cache(maxsize=8192)
def _folded(text: str) -> str:
    return fold(text)


@lru_cache(maxsize=8192)
def _parties(folded: str) -> frozenset[str]:
    """The parties a folded text names (the teammate, the opponent)."""
    return frozenset(name for name, pattern in _PARTIES.items() if pattern.search(folded))


# A condition inside a statement ("… perde se … não puder comprar"): its negation is the
# condition's, not the statement's.
_CONDITION = re.compile(r"\b(se|quando|enquanto|caso|desde que|contanto que|a menos que)\b[^,.;]*")


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
