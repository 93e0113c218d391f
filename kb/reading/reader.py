"""Reading a sentence (a rule of a document or a question) into typed propositions.

The reader is pure: text and the entity mentions the linker found in it in, typed values out.
It works on tokens, not on the sentence's wording: language data (kb/reading/lang) says which
words negate, which are modal, which open a condition or an exception, who acts; the Snowball
stemmer gives the content stems. Steps:

1. tokens: folded words with offsets; a mention becomes one entity token; "can't" is "can not";
2. clauses: a subordinator (se/if, quando/when, exceto/unless, porque/because, mas/but …) opens a
   clause that runs to the next comma or resumer ("então"); the rest is the main clause;
3. per main clause: polarity (an odd number of negators or deniers), modality (the first modal),
   "only", the anchor (modal, negator or auxiliary) splitting subject from predicate, a passive
   after a modal ("pode ser encadeado", "can be chained") turning the subject into the object,
   entities after a target preposition ("a", "to", "em resposta a") as the target;
4. a question's kind from its question words (at the start of the asking sentence, or a choice
   "A ou B?"), and its asking proposition from the last sentence with a question mark.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Protocol, get_args

from kb.ids import fold
from kb.reading.language import Language, Phrase, guess_language, language
from kb.reading.proposition import (
    Bound,
    ClauseKind,
    Condition,
    Modality,
    Proposition,
    Quantity,
    QuestionKind,
    QuestionReading,
    Reading,
    Role,
    Token,
)

# A word: letters/digits with inner hyphens or apostrophes; punctuation that cuts clauses.
_WORD = re.compile(r"[^\W_]+(?:[-'’][^\W_]+)*|[,;:()\[\]?!.—–]")
_CUTS = frozenset(",;:()[]—–")
_CLOSES = {"(": ")", "[": "]"}  # an aside's brackets
TIMES = "×"  # the unit of "how many times" in every language ("uma vez", "twice")
_ENDS = frozenset("?!.")
_INNER: frozenset[ClauseKind] = frozenset({"relative", "aside"})  # folded into their main clause
_DEPENDENT: frozenset[ClauseKind] = frozenset(get_args(ClauseKind)) - {"main", "contrast"}
_MODAL_KINDS: tuple[Modality, ...] = tuple(k for k in get_args(Modality) if k != "fact")


class Mentioned(Protocol):
    """An entity mention: the entity id and its character range in the text read."""

    @property
    def entity(self) -> str: ...
    @property
    def start(self) -> int: ...
    @property
    def end(self) -> int: ...


@dataclass(frozen=True)
class Span:
    """A mention made by hand (tests, callers without a linker)."""

    entity: str
    start: int
    end: int


def tokens(text: str, mentions: Iterable[Mentioned], lang: Language) -> list[Token]:
    """Folded tokens of `text`; each mention one entity token; English "n't" split off."""
    spans = sorted(mentions, key=lambda m: (m.start, -(m.end - m.start)))
    out: list[Token] = []
    cursor = 0
    span_i = 0
    for match in _WORD.finditer(_without_abbreviation_dots(text, lang)):
        start, end = match.start(), match.end()
        if start < cursor:
            continue
        while span_i < len(spans) and spans[span_i].end <= start:
            span_i += 1
        if span_i < len(spans) and spans[span_i].start <= start < spans[span_i].end:
            m = spans[span_i]
            out.append(Token(fold(text[m.start : m.end]), m.start, m.end, "", m.entity))
            cursor = m.end
            span_i += 1
            continue
        word = fold(match.group()).replace("’", "'")
        for w in _contractions(word, lang):
            out.append(Token(w, start, end, _stem(w, lang), raw=match.group().lower()))
    return out


def _without_abbreviation_dots(text: str, lang: Language) -> str:
    """`text` with the dots of its abbreviations ("e.g.", "etc.") made spaces, so they end no
    sentence (same length: offsets hold)."""
    if not lang.abbreviations or "." not in text:
        return text
    lower = text.lower()
    out = list(text)
    for abbr in lang.abbreviations:
        at = lower.find(abbr)
        while at >= 0:
            if at == 0 or not lower[at - 1].isalnum():
                for k in range(at, at + len(abbr)):
                    if out[k] == ".":
                        out[k] = " "
            at = lower.find(abbr, at + len(abbr))
    return "".join(out)


def _contractions(word: str, lang: Language) -> list[str]:
    if lang.code != "en":
        return [word]
    if word == "cannot":
        return ["can", "not"]
    if word.endswith("n't"):
        return [lang.contractions.get(word[:-3], word[:-3]), "not"]
    if word.endswith("'s"):
        return [word[:-2]]
    return [word]


def _stem(word: str, lang: Language) -> str:
    if len(word) <= 2 or word in _CUTS or word in _ENDS:
        return word
    return lang.shared_stem(word)


def _match(words: Sequence[str], i: int, phrases: frozenset[Phrase]) -> int:
    """The length of the longest phrase of `phrases` starting at words[i] (0: none)."""
    if i >= len(words):
        return 0
    for p in _by_first_word(phrases).get(words[i], ()):
        if tuple(words[i : i + len(p)]) == p:
            return len(p)
    return 0


@lru_cache(maxsize=256)
def _by_first_word(phrases: frozenset[Phrase]) -> dict[str, tuple[Phrase, ...]]:
    """A phrase table by first word, each word's phrases longest first."""
    out: dict[str, list[Phrase]] = {}
    for p in sorted((p for p in phrases if p), key=len, reverse=True):
        out.setdefault(p[0], []).append(p)
    return {w: tuple(ps) for w, ps in out.items()}


@dataclass
class _Clause:
    kind: ClauseKind
    toks: list[Token]
    resumes: bool = False  # the main clause goes on after an embedded time phrase
    shares_subject: bool = False  # ", e retornam …": a second predicate of the subject before
    opener: tuple[str, ...] = ()  # the words that opened a dependent clause ("antes", "after")


def _after_entity(toks: Sequence[Token], words: Sequence[str], i: int, lang: Language) -> bool:
    """Whether `i` follows an entity, or a head noun right after one ("a Spell Speed 3 card")."""
    if i > 0 and toks[i - 1].entity is not None:
        return True
    return i > 1 and words[i - 1] in lang.heads and toks[i - 2].entity is not None


def _names_concept(t: Token) -> bool:
    """The token names a concept (or a format), not a card."""
    return t.entity is not None and not t.entity.startswith("card/")


def _name_words(name: str) -> list[str]:
    """The words of a name as written, without its punctuation."""
    return "".join(c if c.isalnum() else " " for c in name).split()


def _words(toks: Sequence[Token]) -> list[str]:
    return [t.word if t.entity is None else "\0" for t in toks]


def clauses(toks: list[Token], lang: Language) -> list[_Clause]:
    """Cut a sentence's tokens into its main clause(s) and dependent clauses."""
    words = _words(toks)
    out: list[_Clause] = [_Clause("main", [])]
    i = 0
    while i < len(toks):
        w = words[i]
        if w in _CLOSES and _CLOSES[w] in words[i + 1 :]:
            # "(mas não a ativação)", "[REF1]": an aside; the clause it interrupts goes on after it
            close = words.index(_CLOSES[w], i + 1)
            out += _bracketed(toks, words, i, close, out[-1].kind, lang)
            i = close + 1
            continue
        if out[-1].kind == "relative" and _relative_ends(words, i, lang, out[-1]):
            # "Efeitos que negam efeitos | não podem …": the relative clause had its verb, the
            # main clause's predicate starts
            out.append(_Clause("main", [], resumes=True))
        n = _match(words, i, lang.subordinators.get("relative", frozenset()))
        if n and _after_entity(toks, words, i, lang) and out[-1].kind == "main":
            # "Efeitos de Monstro que somente negam efeitos": what the entity before is
            out.append(_Clause("relative", []))
            i += n
            continue
        if w in _CUTS:
            n = _second_verb(words, i, lang) if out[-1].kind == "main" and out[-1].toks else 0
            if n:
                # "X não podem ser Y, e retornam à mão": the subject's second predicate, a
                # statement of its own (the first one's negation is not its)
                out.append(_Clause("main", [], shares_subject=True))
                i += n
                continue
            # a comma closes a dependent clause; the main clause goes on
            if out[-1].kind != "main":
                out.append(_Clause("main", []))
            i += 1
            continue
        if w in _ENDS:
            i += 1
            continue
        if out[-1].kind == "time" and out[-1].toks and _predicate_starts(words, i, lang):
            out.append(_Clause("main", [], resumes=True))  # "… durante a Damage Step | é ilegal"
        elif (
            out[-1].kind == "condition"
            and "," not in words[i:]  # a condition closed by a comma ends there
            and _second_predicate(out[-1].toks, words, i, lang)
        ):
            # "if a cost would take me to 0 | I can't pay it?": the condition had its verb, a
            # subject and a modal start the main clause
            dep = out[-1]
            moved: list[Token] = []
            # the subject and a negator before the modal are the main clause's ("caso ele tenha
            # atacado | ele não pode mudar …")
            while (
                dep.toks
                and len(moved) < 3
                and (_subject_word(dep.toks[-1], lang) or _negator_word(dep.toks[-1], lang))
            ):
                moved.insert(0, dep.toks.pop())
            out.append(_Clause("main", moved))
        opened = _opens(words, i, lang)
        if (
            opened is not None
            and i > 0
            and words[i - 1] in _CUTS
            and out[-1].kind == "main"
            and out[-1].toks
            and _match(words, i, lang.contrast_after_cut)
        ):
            # "X, enquanto Y" / "X, while Y": a second statement set against the first
            opened = ("contrast", _match(words, i, lang.contrast_after_cut))
        if opened is None and i > 0 and words[i - 1] in _CUTS and out[-1].toks:
            n = _match(words, i, lang.comparison_after_cut)
            if n:
                opened = ("comparison", n)  # "…, like Gemini or Union?"
        if opened is not None:
            kind, n = opened
            if kind in _DEPENDENT:  # (a relative clause opens only after an entity, above)
                out.append(_Clause(kind, [], opener=tuple(words[i : i + n])))
                i += n
                continue
            if kind == "contrast":
                out.append(_Clause("main", []))
                i += n
                continue
        n = _match(words, i, lang.resumers)
        after_aside = out[-1].resumes and not out[-1].toks  # "X (Y), então Z"
        if n and (
            out[-1].kind != "main"
            or (i > 0 and words[i - 1] in _CUTS and (out[-1].toks or after_aside))
        ):
            # "se X, então Y"; "X, so Y?": what follows is a main clause of its own
            if after_aside:
                out.pop()
            out.append(_Clause("main", []))
            i += n
            continue
        out[-1].toks.append(toks[i])
        i += 1
    return [c for c in out if c.toks]


def _subject_word(t: Token, lang: Language) -> bool:
    """A pronoun or adverb that may open a main clause before its modal ("I just can't")."""
    if t.entity is not None:
        return False
    actor = any(_match([t.word], 0, phrases) for phrases in lang.actors.values())
    return actor or t.word in lang.stopwords


def _negator_word(t: Token, lang: Language) -> bool:
    return t.entity is None and (t.word,) in lang.negators


def _second_predicate(
    clause: Sequence[Token], words: Sequence[str], i: int, lang: Language
) -> bool:
    """Where a main clause starts inside what opened as a condition: a modal or negator after a
    condition that had its own predicate ("if it would …, I can't …"), a modal asking with its
    subject after it ("if my opponent activates Raigeki can I respond?"), or a subject and a
    modal after three words or more ("se o oponente ativar Raigeki eu posso responder?")."""
    modal = any(_match(words, i, m) for m in lang.modals.values())
    # a concord word agrees with the condition's own negator ("se não controlar nenhum monstro")
    negator = _match(words, i, lang.negators) and not _match(words, i, lang.concord)
    if not modal and not negator:
        return False
    own = _words(clause)
    if len(clause) >= 3 and any(_predicate_starts(own, j, lang) for j in range(len(own))):
        return True
    if not modal or len(clause) < 2:
        return False
    nxt = i + 1 < len(words) and words[i + 1] != "\0"
    if nxt and any(_match(words, i + 1, a) for a in lang.actors.values()):
        return True
    subject_before = _subject_word(clause[-1], lang)
    return subject_before and len(clause) >= 4


def _second_verb(words: Sequence[str], i: int, lang: Language) -> int:
    """How many words (the comma and the conjunction) open a second predicate of the subject
    at `i`: a comma, a coordinating conjunction, then a predicate (a modal, negator or
    auxiliary, perhaps after one adverb, or a verb by its finite ending); 0 when none does."""
    n = _match(words, i + 1, lang.coordinators) if words[i] == "," else 0
    if not n:
        return 0
    j = i + 1 + n
    if j < len(words) and words[j] in lang.stopwords and not _predicate_starts(words, j, lang):
        j += 1  # "e ainda devem"
    if j >= len(words) or words[j] == "\0":
        return 0
    w = words[j]
    finite = len(w) >= 5 and w.endswith(lang.finite_endings) and w not in lang.function_words
    return 1 + n if _predicate_starts(words, j, lang) or finite else 0


def _bracketed(
    toks: Sequence[Token],
    words: Sequence[str],
    i: int,
    close: int,
    kind: ClauseKind,
    lang: Language,
) -> list[_Clause]:
    """The clauses of brackets from `i` to `close` inside a clause of `kind`: the dependent clause
    they open ("(a não ser que …)"), else an aside; then the clause they interrupted, going on
    (after a relative clause, which has named what it is, the main clause)."""
    going_on: ClauseKind = "main" if kind == "relative" else kind
    opened = _opens(words, i + 1, lang)
    dependent = opened is not None and opened[0] in _DEPENDENT
    skip = opened[1] if opened is not None and dependent else 0
    inside = [t for t in toks[i + 1 + skip : close] if t.word not in _CUTS]
    if not inside:
        return []
    own: ClauseKind = opened[0] if opened is not None and dependent else "aside"
    return [_Clause(own, inside), _Clause(going_on, [], resumes=going_on == "main")]


def _copular(main: _Clause, relative: _Clause, lang: Language) -> bool:
    """The main clause, up to the relative clause, is a copula and what it names ("São monstros
    que …", "They are monsters that …"): no content word of its own."""
    if not relative.toks:
        return False
    before = [t for t in main.toks if t.start < relative.toks[0].start]
    words = _words(before)
    return any(_match(words, i, lang.auxiliaries) for i in range(len(words))) and not _content(
        before, lang
    )


def _relative_ends(words: Sequence[str], i: int, lang: Language, relative: _Clause) -> bool:
    """Whether the main clause's predicate starts at `i`, after a relative clause that had its
    verb: a modal, auxiliary or denier, or a negator before one ("que negam efeitos | não
    podem"; not "que não negam nada | podem", whose "nada" is the relative clause's)."""
    if not _content(relative.toks, lang) and not any(t.entity for t in relative.toks):
        return False
    tables = [lang.deniers, lang.auxiliaries, *lang.modals.values()]
    if any(_match(words, i, t) for t in tables):
        return True
    n = _match(words, i, lang.negators)
    if not n or _match(words, i, lang.concord):
        return False  # ("nada", "nothing": what the relative clause's verb does)
    return any(_match(words, i + n, t) for t in tables)


def _predicate_starts(words: Sequence[str], i: int, lang: Language) -> bool:
    """A modal, negator, denier or auxiliary: where a predicate starts."""
    tables = [lang.negators, lang.deniers, lang.auxiliaries, *lang.modals.values()]
    return any(_match(words, i, t) for t in tables)


def _opens(words: Sequence[str], i: int, lang: Language) -> tuple[ClauseKind, int] | None:
    best: tuple[ClauseKind, int] | None = None
    for kind, phrases in lang.subordinators.items():
        if kind == "relative":
            continue
        n = _match(words, i, phrases)
        if n and (best is None or n > best[1]):
            best = (kind, n)  # type: ignore[assignment]
    if best is None:
        return None
    # "tem que", "o que": a subordinator inside a modal or question phrase opens nothing
    for table in (lang.modals, lang.question_words):
        for phrases in table.values():
            for back in range(1, 3):
                if i - back >= 0 and _match(words, i - back, phrases) > back:
                    return None
    return best


def _negative(words: Sequence[str], lang: Language) -> tuple[bool, int | None]:
    """Polarity of a clause's words and where its first negator stands. Negators agree rather
    than cancel ("não pode … nenhum", "can't … nothing"); a denier ("ilegal", "skips") negates,
    and a negated denier ("não é ilegal") affirms."""
    negators = deniers = 0
    first = None
    without = False  # inside "sem …": a concord word there agrees with it ("sem nenhum monstro")
    i = 0
    while i < len(words):
        n = _match(words, i, lang.not_negating)
        if n:
            i += n
            continue
        if _match(words, i, lang.privatives):
            without = True
        elif any(_match(words, i, m) for m in lang.modals.values()) or _match(
            words, i, lang.auxiliaries
        ):
            without = False
        n = _match(words, i, lang.negators)
        if n and without and _match(words, i, lang.concord):
            i += n
            continue
        d = 0 if n else _match(words, i, lang.deniers)
        if n or d:
            negators += bool(n)
            deniers += bool(d)
            first = i if first is None else first
            i += n or d
            continue
        i += 1
    return (negators > 0) != (deniers % 2 == 1), first


def _modality(words: Sequence[str], lang: Language) -> tuple[Modality, bool, int | None]:
    """The clause's modality, whether it restricts ("only"), and where the modal stands."""
    found: Modality = "fact"
    at: int | None = None
    restrictive = False
    for i in range(len(words)):
        if _match(words, i, lang.modals.get("only", frozenset())):
            restrictive = True
        if at is None:
            for kind in _MODAL_KINDS:
                if _match(words, i, lang.modals.get(kind, frozenset())):
                    found, at = kind, i
                    break
    return found, restrictive, at


def _actor(toks: Sequence[Token], lang: Language) -> str | None:
    """Who the clause is about: the first party named (opponent, teammate, team, turn player),
    else a player. An entity named by an actor word ("parceiro" linked as a concept) counts by
    its words."""
    found: str | None = None
    for k, t in enumerate(toks):
        words = t.word.split() if t.entity is not None else [t.word]
        for role, phrases in lang.actors.items():
            if any(_match(words, j, phrases) for j in range(len(words))):
                if role != "player":
                    if _owner(toks, k, lang):
                        continue  # "a Mirror Force do meu parceiro": whose, not who acts
                    if role == "teammate" and _with_player(toks, k, lang):
                        return "team"  # "eu e meu parceiro", "my partner and I": the team
                    return role
                found = found or role
    # multi-word actor phrases across plain tokens ("jogador do turno")
    plain = _words(toks)
    for i in range(len(plain)):
        for role, phrases in lang.actors.items():
            if role != "player" and _match(plain, i, phrases) > 1:
                return role
    return found


def _with_player(toks: Sequence[Token], k: int, lang: Language) -> bool:
    """The party at `k` is joined by a conjunction to a player word ("eu e meu parceiro", "my
    partner and I"), a possessive between them or not."""
    players = lang.actors.get("player", frozenset())

    def player_at(j: int) -> bool:
        return (
            0 <= j < len(toks) and toks[j].entity is None and _match([toks[j].word], 0, players) > 0
        )

    def joins(j: int) -> bool:
        return 0 <= j < len(toks) and _match([toks[j].word], 0, lang.conjunctions) > 0

    back = k - 1
    if back >= 0 and toks[back].word in lang.possessives:
        back -= 1
    return (joins(back) and player_at(back - 1)) or (joins(k + 1) and player_at(k + 2))


def _owner(toks: Sequence[Token], k: int, lang: Language) -> bool:
    """The party named at `k` owns something named before it ("a carta do meu parceiro", "the
    monsters of my opponent"): a partitive right before it, past at most two function words."""
    fw = lang.function_words
    j = k - 1
    while j >= k - 3 and j >= 0 and toks[j].entity is None and toks[j].word in fw:
        if _match([toks[j].word], 0, lang.partitives):
            return j > 0 and toks[j - 1].word not in _CUTS
        j -= 1
    # "a trap my partner Set": a thing named, then the party, a possessive between (a relative
    # clause without its "that")
    return k >= 2 and toks[k - 2].entity is not None and toks[k - 1].word in lang.possessives


def _content(toks: Iterable[Token], lang: Language) -> list[str]:
    fw = lang.function_words
    actor_words = {p[0] for ps in lang.actors.values() for p in ps if len(p) == 1}
    return [
        t.stem
        for t in toks
        if t.entity is None
        and t.word not in fw
        and t.word not in actor_words
        and t.word not in _CUTS
        and t.word not in _ENDS
        and not t.word.isdigit()
        and len(t.word) > 1
    ]


def _quantities(toks: Sequence[Token], lang: Language) -> tuple[Quantity, ...]:
    """Numbers (digits or number words) with what they count and their bound. A number word
    that is also an article ("um", "uma") counts only after a bound ("mais de uma chain") or
    "only" ("só com uma chain"), or where no word follows it ("melhor de um."); "vários X" is
    two or more X."""
    out: list[Quantity] = []
    named_at: dict[int, str] = {}  # token → the unit of a number there that names one
    fw = lang.function_words
    words = _words(toks)
    labelled = _labelled(toks, words, lang) | _not_counts(words, lang)
    for i, t in enumerate(toks):
        if t.entity is not None or i in labelled:
            continue
        n_any = _match(words, i, lang.any_number)
        if n_any:
            # "qualquer número de monstros": as many as one likes of what follows
            unit, _ = _unit(toks, words, i + n_any - 1, lang)
            out.append(Quantity(0, unit, "any"))
            continue
        if t.word in lang.multiplicative:  # "twice": how many times
            out.append(Quantity(lang.multiplicative[t.word], TIMES))
            continue
        value: int | None = None
        bound: Bound = "exact"
        last = i  # the last token of the number's words
        before = [j for j in range(max(0, i - 3), i) if _match(words, j, lang.more_than) == i - j]
        below = [j for j in range(max(0, i - 3), i) if _match(words, j, lang.at_most) == i - j]
        digits = t.word.replace(".", "")
        nxt = toks[i + 1] if i + 1 < len(toks) else None
        ordinal = _ordinal(t, lang)
        if ordinal is not None:
            # "a second copy" counts (two copies, at least); "the third duelist" names one
            unit, _ = _unit(toks, words, i, lang)
            counts = i > 0 and any(
                _match(words, j, lang.indefinite) == i - j for j in range(max(0, i - 2), i)
            )
            out.append(Quantity(ordinal, unit, "min" if counts else "exact", not counts))
            continue
        if digits.isdigit():
            value = int(digits)
        elif t.word in lang.numbers:
            article = t.word in fw
            only = any(_match(words, j, lang.modals["only"]) for j in range(max(0, i - 2), i))
            if (
                not article
                or only
                or before
                or below
                or nxt is None
                or nxt.word in _CUTS
                or nxt.word in _ENDS
                or _match(words, i + 1, lang.times)
                or _per_instance(words, i, lang)
            ):
                value = lang.numbers[t.word]
        elif _match(words, i, lang.several):
            value, bound = 2, "min"
        elif _match(words, i, lang.another):
            # "keep another copy": one more of what there is, so at least two
            value, bound, last = 2, "min", i + _match(words, i, lang.another) - 1
        elif _match(words, i, lang.own) and any(
            _match(words, j, lang.distributive) for j in range(i)
        ):
            # "each player … their own Field Spell": one for each, so at least two at once
            value, bound = 2, "min"
        if value is None:
            continue
        if before:
            value, bound = value + 1, "min"
        elif below:
            bound = "max"
        if _match(words, last + 1, lang.times):  # "uma vez por turno", "3 times"
            out.append(Quantity(value, TIMES, bound))
            continue
        unit, named = _unit(toks, words, last, lang)
        if i >= 2 and _match(words, i - 1, lang.conjunctions):
            # "Chain Links 1 and 2", "fase principal 1 ou 2" (the name holding its number): the
            # name goes on
            name = toks[i - 2]
            if i - 2 in named_at:
                unit, named = named_at[i - 2], True
            elif name.entity is not None and name.word.rsplit(" ", 1)[-1].isdigit():
                unit, named = f"@{name.entity}", True
        if named:
            named_at[i] = unit
        out.append(Quantity(value, unit, bound, named))
    return tuple(out)


def _not_counts(words: Sequence[str], lang: Language) -> set[int]:
    """Number words inside a phrase that counts nothing: "de uma vez" (at once), "uma vez que"
    (since: a subordinator)."""
    phrases = [lang.at_once, *lang.subordinators.values()]
    out: set[int] = set()
    for i in range(len(words)):
        for table in phrases:
            n = _match(words, i, table)
            if n > 1:
                out.update(range(i, i + n))
    return out


def _per_instance(words: Sequence[str], i: int, lang: Language) -> bool:
    """A per-instance phrase closes the noun phrase after the number at `i` ("um monstro da mão
    por vez", "one monster at a time"): the article counts."""
    for j in range(i + 2, min(len(words), i + 6)):
        if words[j] in _CUTS or words[j] in _ENDS:
            return False
        if _match(words, j, lang.per_instance):
            return True
    return False


def _ordinal(t: Token, lang: Language) -> int | None:
    """The value of an ordinal number from two up ("terceira", "3rd", "3ª"), or None. The
    ending is read as written: "2ª" is an ordinal, "2A" a Tag Duel duelist."""
    if t.word in lang.ordinal_numbers:
        return lang.ordinal_numbers[t.word]
    digits = "".join(c for c in t.raw if c.isdigit())
    ending = t.raw[len(digits) :]
    if digits and t.raw.startswith(digits) and ending in lang.ordinal_suffixes:
        return int(digits) if int(digits) >= 2 else None
    return None


def _labelled(toks: Sequence[Token], words: Sequence[str], lang: Language) -> set[int]:
    """The numbers a label word names rather than counts: "Exemplo 4", "Rules 1, 2 and 3" (a
    list of numbers after the label, joined by commas and conjunctions)."""
    out: set[int] = set()
    after_label = False
    for i, t in enumerate(toks):
        if t.entity is None and (t.word.isdigit() or t.word in lang.numbers) and after_label:
            out.add(i)
            continue
        if t.entity is None and _match(words, i, lang.labels) and not _discourse(words, i, lang):
            after_label = True
        elif not (t.word == "," or t.word == "#" or _match(words, i, lang.conjunctions)):
            after_label = False
    return out


def _discourse(words: Sequence[str], i: int, lang: Language) -> bool:
    """The label word at `i` is part of a discourse phrase ("por exemplo", "for example")."""
    return any(_match(words, j, lang.discourse) > i - j for j in range(max(0, i - 2), i + 1))


def _number_at(toks: Sequence[Token], k: int, lang: Language) -> bool:
    return (
        k < len(toks)
        and toks[k].entity is None
        and (toks[k].word.isdigit() or toks[k].word in lang.numbers)
    )


def _unit(toks: Sequence[Token], words: Sequence[str], i: int, lang: Language) -> tuple[str, bool]:
    """What the number at toks[i] counts: the noun phrase after it, past a partitive ("one of my
    monsters"), commas and repeated numbers ("uma, e só uma, chain"): an entity in it, or else its
    first word that is no adjective ("two different copies", "duas cópias diferentes").
    With none before the clause ends ("são 2 no campo."), the entity before the number; and a
    number right after a name, counting nothing after it, names one ("o Elo 4", "Exemplo 2")."""
    fw = lang.function_words
    at = i + 1
    if at < len(toks) and _match(words, at, lang.partitives):
        at += _match(words, at, lang.partitives)
        while at < len(toks) and toks[at].entity is None and toks[at].word in fw:
            at += 1  # "of my", "dos meus"
    aside = False  # inside ", e só uma," before the counted word
    phrase: list[Token] = []
    before = toks[i - 1] if i else None
    if before is not None and before.entity is not None and toks[i].start - before.end <= 1:
        return f"@{before.entity}", True  # "o Elo 4 resolve", "Chain Link 2 is"
    skip = -1
    for k, u in enumerate(toks[at : at + 6], start=at):
        if k == skip:
            continue
        if u.entity is not None:
            nxt = toks[k + 1] if k + 1 < len(toks) else None
            if nxt is not None and _number_at(toks, k + 1, lang) and nxt.start - u.end <= 1:
                skip = k + 1  # a name with its value ("2 Level 4 monsters"): the count is after
                continue
            return f"@{u.entity}", False
        if u.word in _ENDS:
            break
        if u.word in _CUTS:
            if phrase:
                break
            aside = True
            continue
        if not phrase and aside and (u.word in fw or u.word in lang.numbers or u.word.isdigit()):
            continue
        if not phrase and _match(words, k, lang.conjunctions) and _number_at(toks, k + 1, lang):
            skip = k + 1  # "5 ou 6 estrelas", "one or two cards": both count what follows
            continue
        if u.word in fw:
            break
        phrase.append(u)
    if phrase:
        head = next((u for u in phrase if not u.word.endswith(lang.adjective_endings)), phrase[-1])
        return head.stem, False
    named = (
        before is not None
        and toks[i].start - before.end <= 1  # right after it: "Exemplo 2", not "cards, one"
        and before.word not in fw
        and before.word not in _CUTS
        and not before.word.isdigit()
    )
    for u in reversed(toks[:i]):
        if u.entity is not None:
            return f"@{u.entity}", named
        if u.word in _CUTS or u.word in _ENDS:
            break
    return "", named


def _in_setting(words: Sequence[str], i: int, lang: Language) -> bool:
    """Whether the word at ``i`` follows a preposition of setting ("No Edison", "In a Tag Duel"),
    an article or number between them."""
    for j in (i - 1, i - 2):
        if j < 0:
            return False
        if _match(words, j, lang.setting_prepositions):
            return True
        if words[j] not in lang.stopwords and words[j] not in lang.numbers:
            return False
    return False


def _condition(d: _Clause, lang: Language) -> Condition:
    words = _words(d.toks)
    return Condition(
        kind=d.kind,
        stems=frozenset(_content(d.toks, lang)),
        entities=frozenset(t.entity for t in d.toks if t.entity),
        negative=_negative(words, lang)[0],
        relation=_relation(d.opener, lang) if d.kind == "time" else None,
    )


def _relation(words: Sequence[str], lang: Language) -> str | None:
    """ "before" or "after" when a time clause opens on one of those words ("antes do cálculo
    de dano", "after damage calculation")."""
    for rel, phrases in lang.relative_time.items():
        if words and _match(words, 0, phrases):
            return rel
    return None


def _proposition(
    main: _Clause, deps: list[_Clause], lang: Language, muted: frozenset[int] = frozenset()
) -> Proposition:
    """`muted`: the starts of tokens of relative clauses and asides folded into `main`: they
    name what its entities are, and neither negate the clause, nor mark its verb."""
    toks = main.toks
    words = _words(toks)
    own = [w if t.start not in muted else "\1" for w, t in zip(words, toks, strict=True)]
    negative, neg_at = _negative(own, lang)
    modality, restrictive, modal_at = _modality(own, lang)
    anchor = modal_at
    if anchor is None:
        anchor = neg_at
    if anchor is None:
        anchor = next((i for i in range(len(own)) if _match(own, i, lang.auxiliaries)), None)
    if anchor is None:
        # no modal, negator or auxiliary: the first word after the first entity is the verb,
        # an entity of the clause's setting ("No Edison, o jogador compra") excepted
        entities = [i for i, t in enumerate(toks) if t.entity]
        subject = next((i for i in entities if not _in_setting(words, i, lang)), None)
        if subject is None and entities:
            subject = entities[0]
        anchor = subject + 1 if subject is not None else 0
    passive = False
    if modal_at is not None or neg_at is not None:
        a = anchor
        for j in range(a + 1, min(a + 4, len(own))):
            if _match(own, j, lang.passive):
                passive = True
                break
    roles: list[tuple[str, Role]] = []
    agent_next = False
    target_next = 0
    last: Role | None = None  # the role of the entity before, which "e X" / "or X" continues
    for i, t in enumerate(toks):
        if t.entity is None:
            if _match(words, i, lang.conjunctions) and last is not None:
                target_next = 3 if last == "target" else 0
                agent_next = last == "subject" and passive
            elif i > anchor and _match(words, i, lang.target_prepositions):
                target_next = 3
            elif i > anchor and _match(words, i, lang.agent_prepositions):
                agent_next = True
            elif target_next:
                target_next -= 1
            continue
        role: Role
        if (
            last == "target"
            and i > 0
            and toks[i - 1].entity is not None
            and (t.start > toks[i - 1].end + 1)
        ):
            role = "target"  # "a X, Y e Z": a list goes on after a comma the clause cut away
        elif i < anchor:
            role = "object" if passive else "subject"
        elif agent_next and passive:
            role = "subject"
        elif target_next:
            role = "target"
        else:
            role = "object"
        agent_next, target_next, last = False, 0, role
        if (t.entity, role) not in roles:
            roles.append((t.entity, role))
    content = _content(toks, lang)
    action = tuple(_content(toks[anchor:], lang))
    conditions = tuple(_condition(d, lang) for d in deps)
    all_toks = [*toks, *(t for d in deps for t in d.toks)]
    ordinals = _ordinals(all_toks, lang)
    denied = _denied(all_toks, lang)
    return Proposition(
        start=min(t.start for t in toks),
        end=max(t.end for t in toks),
        negative=negative,
        modality=modality,
        restrictive=restrictive,
        passive=passive,
        actor=_actor([t for t in toks if t.start not in muted], lang),
        roles=tuple(roles),
        action=action,
        stems=frozenset(content),
        conditions=conditions,
        quantities=_quantities(all_toks, lang),
        denied=denied,
        ordinals=frozenset(end for end, _ in ordinals),
        ordinal_scope=frozenset(item for _, scope in ordinals for item in scope),
        terms=_terms(toks, lang),
    )


def _terms(toks: Sequence[Token], lang: Language) -> frozenset[str]:
    """The terms of exclusive sets the clause uses, as "<set id>:<place>" ("same-different:1"
    for "diferença"); a one-word term in any of its inflections ("ignoram" for "ignorar")."""

    # the words naming a concept count too ("loops infinitos involuntários"), not a card's name
    # ("Blue-Eyes White Dragon" says no frame colour)
    words = [w for t in toks for w in (_name_words(t.word) if _names_concept(t) else [t.word])]
    stems = {t.stem for t in toks if t.stem} | {
        _stem(w, lang) for t in toks if _names_concept(t) for w in _name_words(t.word)
    }
    out: set[str] = set()
    for key, sides in lang.exclusive_terms.items():
        for k, phrases in enumerate(sides):
            if any(_match(words, i, phrases) for i in range(len(words))) or any(
                len(p) == 1 and _stem(p[0], lang) in stems for p in phrases
            ):
                out.add(f"{key}:{k}")
    return frozenset(out)


def _ordinals(toks: Sequence[Token], lang: Language) -> list[tuple[str, frozenset[str]]]:
    """Each end of an order named ("first", "last") with what stands within three words of it:
    "a primeira carta ativada" → first, {cart, @activation}."""
    words = _words(toks)
    out = []
    for i in range(len(toks)):
        for end, phrases in lang.ordinals.items():
            if _match(words, i, phrases):
                near = [*toks[max(0, i - 3) : i], *toks[i + 1 : i + 4]]
                scope = {f"@{t.entity}" for t in near if t.entity} | set(_content(near, lang))
                out.append((end, frozenset(scope)))
    return out


def _denied(toks: Sequence[Token], lang: Language) -> frozenset[str]:
    """Entities a privative introduces ("sem X", "without controlling X"): within the next few
    words, up to the first entity after the privative and those joined to it by "or/and"."""
    words = _words(toks)
    out: set[str] = set()
    for i in range(len(toks)):
        n = _match(words, i, lang.privatives)
        if not n:
            continue
        for t in toks[i + n : i + n + 5]:
            if t.entity is not None:
                out.add(t.entity)
            elif t.word in _CUTS or t.word in _ENDS:
                break
    return frozenset(out)


def _propositions(toks: list[Token], lang: Language) -> tuple[Proposition, ...]:
    """One proposition per main clause with content. A dependent clause belongs to the main
    clause after it ("Se X, Y pode …"), or, when none follows, to the one before ("Y pode …
    quando X")."""
    groups: list[tuple[_Clause, list[_Clause]]] = []
    pending: list[_Clause] = []
    unsaid: _Clause | None = None  # the last main clause of function words only
    for c in clauses(toks, lang):
        if c.kind == "main" and c.resumes and unsaid is not None:
            # "ninguém (nem eu) pode …": the clause an aside interrupted goes on
            c = _Clause("main", [*unsaid.toks, *c.toks], shares_subject=unsaid.shares_subject)
        if c.kind == "main":
            unsaid = None
        if c.kind in _INNER and groups and not pending:
            groups[-1][1].append(c)  # of what the clause before names
        elif c.kind != "main":
            pending.append(c)
        elif c.resumes and groups:
            groups[-1][0].toks.extend(c.toks)  # "Ativar X durante Y | é ilegal": one clause
            groups[-1][1].extend(pending)
            pending = []
        elif _content(c.toks, lang) or any(t.entity for t in c.toks):
            groups.append((c, pending))
            pending = []
        else:
            unsaid = c
        # a clause of function words only ("… but I don't") says nothing of its own
    if unsaid is not None and any(d.kind in _INNER for d in pending):
        groups.append((unsaid, pending))  # "Isto é ilegal (como descrito …)."
        pending = []
    if pending and groups:
        groups[-1][1].extend(pending)
    out: list[Proposition] = []
    for m, deps in groups:
        inner = [d for d in deps if d.kind in _INNER]
        muted: frozenset[int] = frozenset()
        if inner:
            # a relative clause or an aside is part of what the main clause names; after a
            # copula alone ("Rituais: São monstros que precisam de …") the relative clause says
            # what the main clause asserts
            said = [d for d in inner if d.kind == "aside" or not _copular(m, d, lang)]
            muted = frozenset(t.start for d in said for t in d.toks)
            merged = sorted([*m.toks, *(t for d in inner for t in d.toks)], key=lambda t: t.start)
            m = _Clause(m.kind, merged, m.resumes, m.shares_subject)
            deps = [d for d in deps if d.kind not in _INNER]
        p = _proposition(m, deps, lang, muted)
        relatives = [d for d in inner if d.kind == "relative" and d.toks[0].start in muted]
        if relatives:
            # what a relative clause says of what it names, with its own polarity ("um efeito
            # que não nega nada"): a case the clause holds of, as a condition is
            p = replace(p, conditions=(*p.conditions, *(_condition(d, lang) for d in relatives)))
        if m.shares_subject and out and p.subject is None:
            # the second predicate is of the subject before ("Estes monstros …, e retornam")
            shared = tuple(r for r in out[-1].roles if r[1] == "subject" and r not in p.roles)
            p = replace(p, roles=shared + p.roles, actor=p.actor or out[-1].actor)
        out.append(p)
    return tuple(out)


def read_sentence(
    text: str,
    mentions: Iterable[Mentioned] = (),
    lang: str | None = None,
    antecedent: str | None = None,
) -> Reading:
    """Read one sentence of a document into its propositions. `antecedent` is the entity the
    sentence before was about: a pronoun opening this one ("Eles", "They") stands for it, and so
    does a subject left out before an opening predicate ("Não possuem Nível")."""
    data = _language_of(text, lang)
    toks = tokens(text, mentions, data)
    if antecedent is not None:
        toks = _resolved(toks, antecedent, data)
    return Reading(text, data.code, _propositions(toks, data))


def _resolved(toks: list[Token], antecedent: str, lang: Language) -> list[Token]:
    """`toks` with an opening anaphoric pronoun read as the entity `antecedent` (its words are
    the id's, so the pronoun no longer names a player), or with `antecedent` put before an
    opening predicate whose subject was left out."""
    first = toks[0] if toks else None
    if first is None or first.entity is not None:
        return toks
    words = antecedent.rsplit("/", 1)[-1].replace("-", " ")
    if (first.word,) in lang.anaphors:
        return [Token(words, first.start, first.end, "", antecedent), *toks[1:]]
    if _predicate_starts(_words(toks), 0, lang):
        # "Não possuem Nível": the subject left out is the one before
        return [Token(words, first.start, first.start, "", antecedent), *toks]
    return toks


def _language_of(text: str, lang: str | None) -> Language:
    """The data of `lang`, or of the language the text's function words say."""
    return language(lang or guess_language(_WORD.findall(fold(text))))


def _sentences(toks: list[Token]) -> list[list[Token]]:
    out: list[list[Token]] = [[]]
    for t in toks:
        out[-1].append(t)
        if t.entity is None and t.word in _ENDS:
            out.append([])
    return [s for s in out if s]


def _segments(toks: list[Token]) -> list[list[Token]]:
    """The stretches of a sentence between clause-cutting punctuation."""
    out: list[list[Token]] = [[]]
    for t in toks:
        if t.entity is None and (t.word in _CUTS or t.word in _ENDS):
            out.append([])
        else:
            out[-1].append(t)
    return [s for s in out if s]


def _asks_at(head: Sequence[str], lang: Language) -> QuestionKind | None:
    """The kind a question word opening `head` asks (None: no question word there)."""
    for kind, phrases in lang.question_words.items():
        n = _match(head, 0, phrases)
        if not n:
            continue
        follows = head[n : n + 1]
        if kind in ("when", "how") and not (
            follows
            and (
                any(_match(follows, 0, p) for p in lang.modals.values())
                or _match(follows, 0, lang.auxiliaries)
            )
        ):
            continue  # "quando X, …" is a condition, "como X" a comparison
        return kind  # type: ignore[return-value]
    return None


def _kind(toks: list[Token], lang: Language) -> QuestionKind:
    """What the asking sentence asks: a value (which, who, how many …), a choice, or yes/no.
    A question word opens the sentence or one of its stretches between commas and colons ("In
    Edison, …: whose trigger goes first?"), not a dependent clause ("se …")."""
    for seg in reversed(_segments(toks)):
        words = _words(seg)
        if _opens(words, 0, lang) is not None and _asks_at(words, lang) is None:
            continue
        kind = _asks_at(words, lang)
        if kind is not None:
            return kind
    # "A ou B?" with no yes/no verb before the alternative: a choice (not in what the
    # question compares with: "…, like Gemini or Union?")
    words = _words([t for seg in _segments(toks) if not _compares(_words(seg), lang) for t in seg])
    for i in range(len(words)):
        if _match(words, i, lang.alternative) and not _match(words, i, lang.not_negating):
            before = words[:i]
            modal_before = any(
                _match(before, j, p) for j in range(len(before)) for p in lang.modals.values()
            )
            if not modal_before and i + 1 < len(words) and not _match(words, i + 1, lang.negators):
                return "choice"
    return "yes_no"


def _compares(words: Sequence[str], lang: Language) -> bool:
    """A stretch opening with what a question is compared with ("like X", "assim como X")."""
    opened = _opens(words, 0, lang)
    return bool(_match(words, 0, lang.comparison_after_cut)) or (
        opened is not None and opened[0] == "comparison"
    )


def _confirms_only(words: Sequence[str], lang: Language) -> bool:
    """A sentence asking only whether what was said holds ("Is he right?", "Ele tá certo?"):
    a confirmation word and nothing else but function and actor words."""
    confirms = False
    i = 0
    while i < len(words):
        n = _match(words, i, lang.confirmations)
        if n:
            confirms, i = True, i + n
            continue
        w = words[i]
        actor = any(_match(words, i, p) == 1 for p in lang.actors.values())
        if not (w in _CUTS or w in _ENDS or w in lang.function_words or actor):
            return False
        i += 1
    return confirms


def _reported(toks: list[Token], lang: Language) -> list[Token]:
    """What a sentence reports someone saying ("meu amigo jura que X" → X); the whole sentence
    when it reports nothing."""
    words = _words(toks)
    for i in range(len(words)):
        n = _match(words, i, lang.reporting)
        if n:
            j = i + n
            j += _match(words, j, lang.subordinators.get("relative", frozenset()))
            if j < len(toks):
                return toks[j:]
    return toks


def read_question(
    text: str, mentions: Iterable[Mentioned] = (), lang: str | None = None
) -> QuestionReading:
    """Read a question: its kind, its asking proposition and the set-up before it."""
    data = _language_of(text, lang)
    code = data.code
    sents = _sentences(tokens(text, mentions, data))
    asking_i = max((i for i, s in enumerate(sents) if s[-1].word == "?"), default=len(sents) - 1)
    if not sents:
        return QuestionReading(text, code, "yes_no", None, (), (text,))
    asking_toks = sents[asking_i]
    # "My friend says X. Is he right?": what is asked is what was reported
    if asking_i > 0 and _confirms_only(_words(asking_toks), data):
        asking_i -= 1
        asking_toks = _reported(sents[asking_i], data)
    # a confirmation tag ("…, né?", "…, right?") leaves the statement before it
    words = _words(asking_toks)
    confirming = False
    for i in range(len(words)):
        if words[i] in _CUTS:
            n = _match(words, i + 1, data.confirmations)
            if n and i + 1 + n >= len(words) - 1:
                asking_toks, confirming = asking_toks[:i], True
                break
    kind: QuestionKind = "yes_no" if confirming else _kind(asking_toks, data)
    props = _propositions(asking_toks, data)
    setup = tuple(p for s in sents[:asking_i] for p in _propositions(s, data))
    from kb.reading.order import read_order_question  # (it reads with this module's parts)

    order = read_order_question(asking_toks, data) if kind == "yes_no" else None
    if kind == "yes_no" and setup and all(not p.roles and not p.stems for p in props):
        # "I want a 4th copy in my Side Deck. Is that allowed?": what it asks of is the set-up
        asked = setup[-1]
        words = _words(asking_toks)
        modality, _, _ = _modality(words, data)
        if modality != "fact":
            negative, _ = _negative(words, data)
            asked = replace(asked, modality=modality, negative=asked.negative != negative)
        return QuestionReading(text, code, kind, asked, setup[:-1], (), order)
    if not props:
        unread = (fold(text[asking_toks[0].start :]),)
        return QuestionReading(text, code, kind, None, setup, unread, order)
    # of several main clauses, the one with a modal or a negation is what is asked
    asking = next((p for p in props if p.modality != "fact"), props[-1])
    before = [*setup, *props[: props.index(asking)]]
    asking = _with_antecedent(asking, before, text, data)
    return QuestionReading(text, code, kind, asking, setup, (), order)


def _with_antecedent(
    p: Proposition, before: Sequence[Proposition], text: str, lang: Language
) -> Proposition:
    """An object pronoun of the asking clause ("… so do I shuffle them into my Main Deck?")
    stands for what the last clause before it was about: its subject, else the first thing it
    names, added as what is acted on."""
    if not lang.object_pronouns:
        return p
    words = [fold(w) for w in _WORD.findall(text[p.start : p.end])]
    if not any(_match(words, i, lang.object_pronouns) for i in range(len(words))):
        return p
    prev = next((b for b in reversed(before) if b.roles), None)
    if prev is None:
        return p
    about = [e for e, r in prev.roles if r == "subject"] or [prev.roles[0][0]]
    added: tuple[tuple[str, Role], ...] = tuple(
        (e, "object") for e in dict.fromkeys(about) if e not in p.entities
    )
    return replace(p, roles=p.roles + added) if added else p
