"""Reading a question: its language, the format it is about, whether it asks yes or no."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from kb.formats import Formats
from kb.ids import fold
from kb.link import Linker, Mention
from kb.reading.language import language
from kb.reading.senses import Senses, read_senses
from kb.search.analysis import analyse

# Open (non yes/no) questions: a question word at the start (after an optional "No Edison," /
# "Tag Duel:" prefix), or an interrogative phrase anywhere.
_OPEN = re.compile(
    r"^(?:[^?]{0,30}?[:,]\s*)?\W*(quem|qual|quais|como|onde|quant[oa]s?|o que|oque|por ?que|"
    r"porque|em que|que tipo|what|who|whose|which|how|where|why|list|liste|explique|explain|"
    r"descreva|describe)\b"
)
# An interrogative phrase near the start, or a copula asking for a value ("… is which link?").
_OPEN_NEAR = re.compile(
    r"\b(quant[oa]s|qual|quais|o que acontece|what happens|que acontece|em que (ordem|momento|etapa)|"
    r"que tipo|what kind|which kind|in what order|em que ano|what year|which|how many|how much|"
    r"what|when (?:did|was|were|is|does)|quando (?:foi|e|é|mudou))\b"
)
_OPEN_VALUE = re.compile(
    r"\b(is|are|was|e|é|sao|são|fica|ficam|com|with|tem|has|have) "
    r"(which|what|qual|quais|quantos|quantas|how many)\b"
    r"|\b(quem|who) (e|é|sera|será|foi|is|was|will be)\b|\b(?:de|a|para|por) quem\s*\?"
    # "… aplica em qual sub-etapa?", "… happens in which step?" (not after a modal: "tenho que
    # escolher de qual oponente?" asks whether one must choose)
    r"|^(?!.*\b(?:precis\w*|tenho que|tem que|temos que|devo|deve|devem|posso|pode|podem|"
    r"have to|has to|must|need to|needs to)\b.*\b(?:em|de|na|no|durante|during|in|at|on) "
    r"(?:qual|quais|which)\b).*\b(em|de|na|no|nas|nos|durante|during|in|at|on) (qual|quais|which)\b"
)
# A statement put up for confirmation: "quem ativa sou eu, né?", "it's me who activates it, right?"
_CONFIRM = re.compile(
    r"(?:,\s*|\s)(?:ne|nao e|certo|correto|verdade|right|correct|isn'?t it|is that right|yes)"
    r"\s*\?\s*$"
)
# A choice between alternatives after a colon/comma/dash: "Dark Simorgh: inherent or non-inherent?"
_EITHER_OR = re.compile(
    r"(?:[:,]|\s[\-–—])\s*(?:is it |e |é )?(?![\w\s'’-]*\b(?:pode|posso|podem|can|could|does|do|is|are|"
    r"consigo|da pra|dá pra)\b)[\w\s'’-]{1,40}\b(or|ou)\b(?! not\b| nao\b)[\w\s'’-]{1,40}\?\s*$"
    r"|\b([\w-]+) (?:or|ou) (?:non|nao|não)[ -]?\2\b"
)
# "Quem <verb> … <verb> …?": a relative "quem" (whoever), the question is yes/no.
_GAME_VERBS = (
    r"(compra|joga|comeca|começa|pode|ativa|perde|ganha|tem|fica|recebe|precisa|deve|paga|"
    r"invoca|ataca|entra|passa|decide|escolhe|usa|descarta)"
)
_WHOEVER = re.compile(
    rf"(?:^|[:,]\s*)(?:no \w+ |na \w+ |em \w+ )?quem\s+(?!e\b|é\b|sera|será|foi)"
    rf"{_GAME_VERBS}\b[^?]*?\b{_GAME_VERBS}\b"
)
# A request, not a question: "Give me …", "Liste …" without a question mark.
_REQUEST = re.compile(
    r"^\W*(give|tell|show|list|explain|describe|recommend|suggest|write|help|"
    r"de|dê|diga|mostre|liste|explique|descreva|recomende|sugira|escreva|ajude|me de|me dê)\b"
)
_PT = re.compile(
    r"\b(nao|não|pode|posso|é|uma|um|com|que|do|da|no|na|em|se|carta|jogador|duelista|corrente|quando|qual|quem|como|isso|eu|meu|minha|ser|sao|são"
    r"|os|as|dos|das|para|pra|ao|tem|mas|ou|seu|sua|ele|ela|depois|antes|durante|ainda|tambem|também|sim)\b"
)
_EN = re.compile(
    r"\b(the|can|does|is|my|i|of|to|in|when|what|who|which|how|chain|player|card|if|it|an|and|do|be"
    r"|are|both|was|were|has|have|this|that|for|on|with|from|or|after|before|during|your|you|their|still|also|yes)\b"
)
_PT_LETTERS = re.compile(r"[ãõçáéíóúâêô]")


_BREAKS = frozenset(",.;:?!")


@dataclass(frozen=True)
class Amount:
    """A number written in the question, where it stands: in digits ("8000", "1.000") or in
    words of the language data ("duas", "three"; not "um"/"one", which are also articles)."""

    value: int
    start: int
    end: int
    digits: bool = True


_WORD = re.compile(r"[^\W\d_]+")
_AMOUNT = re.compile(r"(?<![\w.,])\d{1,3}(?:[.,]\d{3})+(?![\w.,]?\d)|(?<![\w.,])\d+(?!\w)")


def asides(text: str) -> tuple[tuple[int, int], ...]:
    """The spans of `text` between parentheses, outermost (an unclosed one runs to the end)."""
    out: list[tuple[int, int]] = []
    depth, start = 0, 0
    for i, c in enumerate(text):
        if c == "(":
            if depth == 0:
                start = i
            depth += 1
        elif c == ")" and depth:
            depth -= 1
            if depth == 0:
                out.append((start, i + 1))
    if depth:
        out.append((start, len(text)))
    return tuple(out)


def amounts(text: str, lang: str) -> tuple[Amount, ...]:
    """The numbers of `text`: in digits, thousands separators read ("1.000" is 1000), and in
    number words of the language `lang`, in order."""
    numbers = language(lang).numbers
    digits = [
        Amount(int(m.group().replace(".", "").replace(",", "")), m.start(), m.end())
        for m in _AMOUNT.finditer(text)
    ]
    words = [
        Amount(numbers[w], m.start(), m.end(), digits=False)
        for m in _WORD.finditer(text)
        if numbers.get(w := fold(m.group()), 1) > 1
    ]
    return tuple(sorted(digits + words, key=lambda a: a.start))


@dataclass(frozen=True)
class Quantity:
    """A number the question gives, with what it counts when a unit follows ("3 turnos")."""

    value: int
    unit: str | None


@dataclass(frozen=True)
class Question:
    """A question read once: everything reasoners look at, so none re-reads the raw text.

    `folded` is the lowercase accent-free text; `asking` the asking sentence without its
    conditions ("if …", "quando …"); `negated` whether that clause is negative (pt/en lexicon of
    `kb.reading.negation`); `numbers` the numbers with their units; `mentions` the linked cards,
    concepts and formats; `format` the one given, named or implied (`kb.formats`)."""

    text: str
    lang: str
    format: str | None
    yes_no: bool
    mentions: list[Mention]
    folded: str = ""
    tokens: tuple[str, ...] = ()
    stems: tuple[str, ...] = ()
    numbers: tuple[Quantity, ...] = ()
    negated: bool = False
    asking: str = ""
    format_given: bool = False
    senses: Senses = field(default_factory=Senses)
    asking_senses: Senses = field(default_factory=Senses)
    last_at: int = 0
    breaks: tuple[int, ...] = ()
    amounts: tuple[Amount, ...] = ()
    unit_asked: str | None = None
    asides: tuple[tuple[int, int], ...] = ()
    possessives: frozenset[int] = frozenset()

    def clause_start(self, at: int) -> int:
        """Where the clause holding character `at` starts: after the last punctuation before it."""
        return max((b + 1 for b in self.breaks if b < at), default=0)

    def in_condition(self, at: int) -> bool:
        """Whether character `at` lies in a condition ("… when both respond to …"): a word
        opening one stands earlier in its clause."""
        return self.senses.has("condition", start=self.clause_start(at), end=at)

    def asked_senses(self, named: Callable[[Mention], bool]) -> Senses:
        """The senses of the asking clause (the last sentence without its conditions and
        asides), the words of the mentions `named` accepts blanked: "Chain" in "Chain
        Destruction" is a name, not a word of the question."""
        from kb.reading.clauses import main_clause

        chars = list(self.text)
        for m in self.mentions:
            if named(m):  # a blank word in its place: the sentences keep their words
                chars[m.start : m.end] = "_" * (m.end - m.start)
        return read_senses(main_clause("".join(chars)))

    def in_aside(self, at: int) -> bool:
        """Whether character `at` lies between parentheses ("(sem chain)")."""
        return any(a <= at < b for a, b in self.asides)

    @property
    def length(self) -> int:
        """The question's length in characters."""
        return len(self.text)

    @property
    def asked_mentions(self) -> list[Mention]:
        """The mentions whose words stand in the asking clause (`asking`)."""
        return [m for m in self.mentions if self.folded[m.start : m.end] in self.asking]

    @property
    def entities(self) -> list[str]:
        """The linked entities that are not formats, in order of mention."""
        return [m.entity for m in self.mentions if not m.entity.startswith("format/")]

    @property
    def cards(self) -> list[str]:
        return list(dict.fromkeys(e for e in self.entities if e.startswith("card/")))


def read_question(
    text: str, given_format: str | None, linker: Linker, formats: Formats
) -> Question:
    """Read a question once: language, format, yes/no, mentions, tokens, numbers, negation."""
    from kb.reading.clauses import (
        asked_unit,
        last_sentence,
        main_clause,
        quantities,
        question_negated,
    )

    mentions = linker.link(text, fuzzy=True)
    folded = fold(text)
    asking = main_clause(text)
    lang = detect_lang(text)
    return Question(
        text=text,
        lang=lang,
        format=given_format or formats.detect(text, mentions),
        yes_no=is_yes_no(text),
        mentions=mentions,
        folded=folded,
        tokens=tuple(re.findall(r"[\w'-]+", folded)),
        stems=tuple(analyse(text)),
        numbers=tuple(Quantity(n, u) for n, u in quantities(folded)),
        negated=question_negated(text),
        asking=asking,
        format_given=given_format is not None,
        senses=read_senses(text),
        asking_senses=read_senses(asking or text),
        last_at=len(text) - len(last_sentence(text)),
        breaks=tuple(i for i, c in enumerate(text) if c in _BREAKS),
        amounts=amounts(text, lang),
        unit_asked=asked_unit(fold(last_sentence(text))),
        asides=asides(text),
        possessives=frozenset(
            i
            for i, c in enumerate(text)
            if c in "'’" and text[i + 1 : i + 2] in ("s", "S", " ", "")
        ),
    )


def detect_lang(text: str) -> str:
    """pt or en by function words; with as many of each, by Portuguese letters (ã, ç, é …)."""
    q = fold(text)
    pt, en = len(_PT.findall(q)), len(_EN.findall(q))
    if pt == en:
        return "pt" if _PT_LETTERS.search(text.lower()) or not pt else "en"
    return "pt" if pt > en else "en"


_AUX = re.compile(
    r"(?:^|[,;:]\s*)(does|do|did|can|could|is|are|was|were|will|would|should|may|must|has|have)\b"
)


def _asks_value(sentence: str) -> bool:
    """A (folded) question sentence asking for a value: a question word at its start."""
    head = " ".join(sentence.split()[:7])
    return bool(
        not _AUX.match(sentence)
        and (_OPEN.search(head) or _OPEN_VALUE.search(sentence))
        and not _WHOEVER.search(sentence)
    )


def is_yes_no(text: str) -> bool:
    """A yes/no question: no question word near the start, or an English auxiliary-led clause."""
    sentences: list[str] = []
    for part in re.split(r"(?<=[.;?])\s+", fold(text).strip()):
        if sentences and len(part.split()) < 3 and not _OPEN.search(part):
            sentences[-1] += " " + part  # "Yu-Gi-Oh! GX?" is not a sentence of its own
        elif part:
            sentences.append(part)
    q = sentences[-1] if sentences else ""
    if _EITHER_OR.search(q) and not re.search(r"\b(sim ou nao|yes or no)\b", q):
        return False  # "… : inherent or non-inherent?" asks which, not whether
    if (
        len(sentences) > 1
        and re.search(r"\b(?:or|ou)\b", q)
        and any(_asks_value(s) for s in sentences[:-1] if s.endswith("?"))
    ):
        # "How many turns does it last? Do my partner's turns count, or only …?": alternatives
        # after a question asking the value
        return False
    if _AUX.search(q) or _CONFIRM.search(q):
        return True
    if "?" not in text and _REQUEST.search(q):
        return False
    head = " ".join(q.split()[:7])
    if _WHOEVER.search(q):
        return True  # "quem começa compra carta?": whoever starts, does he draw?
    return not (_OPEN.search(head) or _OPEN_NEAR.search(head) or _OPEN_VALUE.search(q))


# "Why can't I X?" presupposes "I cannot X": the KB answers the yes/no question under it ("Can I
# X?"), its reasoning being the why. (pt: "Por que não posso X?" → "Posso X?")
_WHY_NOT_EN = re.compile(
    r"^\s*why\s+(can'?t|cannot|couldn'?t|won'?t|doesn'?t|don'?t|isn'?t|aren'?t)\b", re.IGNORECASE
)
_WHY_NOT_PT = re.compile(r"^\s*(?:por\s*qu[eê]|pq)\s+((?:\w+\s+){0,2}?)n[aã]o\s+", re.IGNORECASE)
_POSITIVE_EN = {
    "can't": "can",
    "cant": "can",
    "cannot": "can",
    "couldn't": "could",
    "couldnt": "could",
    "won't": "will",
    "wont": "will",
    "doesn't": "does",
    "doesnt": "does",
    "don't": "do",
    "dont": "do",
    "isn't": "is",
    "isnt": "is",
    "aren't": "are",
    "arent": "are",
}


def why_not_as_yes_no(text: str) -> str | None:
    """The yes/no question a "why not" question presupposes, or None when it is none."""
    m = _WHY_NOT_EN.match(text)
    if m:
        verb = _POSITIVE_EN.get(m.group(1).lower().replace("’", "'"))
        if verb is None:
            return None
        rest = text[m.end() :]
        return verb[0].upper() + verb[1:] + rest
    m = _WHY_NOT_PT.match(text)
    if m:
        rest = (m.group(1) or "") + text[m.end() :]
        return rest[0].upper() + rest[1:] if rest else None
    return None
