"""What the knowledge base does not cover, said up front.

The corpus is rule documents, each defining a format the manifest declares. Questions about
prices, events, deck advice, other games built on the cards, or today's Forbidden & Limited list
are outside it, whatever cards they name: no passage can decide them, so no verdict is given; so
are questions about a declared format no document defines (answered in `kb.answering.answer`). Nor can the KB
rule on a card, word or format it has never seen ("Nibiru", "goat format"): `Vocabulary` knows
every word of the documents, claims, cards and concepts, and says what a question names outside
it, or that it names nothing at all.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from kb.cards.names import GAME_WORDS
from kb.formats import Formats
from kb.graph import KnowledgeGraph
from kb.ids import fold
from kb.link import Mention
from kb.reading.relevance import CHAT_WORDS, FUNCTION_WORDS
from kb.search.analysis import STOP_WORDS

# (topic, pattern over the folded question)
_TOPICS: tuple[tuple[str, str, re.Pattern[str]], ...] = (
    (
        "card prices",
        "preços de cards",
        re.compile(
            r"\b(quanto (custa|ta custando|esta custando|vale)|preco|precos|price[sd]?|worth|"
            r"how much (is|does|are) (a|an|the)\b[^?]*\b(cost|worth|sell)|dolar(es)?|dollars?|"
            r"reais|r\$|mercado|market value|cotacao)\b"
        ),
    ),
    (
        "tournaments and events",
        "torneios e eventos",
        re.compile(
            r"\b(ycs|regional|regionais|nacional|worlds|world championship|campeonato|"
            r"championship|wcq|evento|event)\b"
        ),
    ),
    (
        "tournament policy (sleeves, penalties, deck checks)",
        "regras de torneio (sleeves, penalidades, deck check)",
        re.compile(
            r"\b(sleeves?|penalt\w*|penalidade\w*|game loss|deck check|"
            r"dress code|judge call|chamar (o )?juiz|infraction|infracao)\b"
        ),
    ),
    (
        "deck building advice",
        "dicas de montagem de deck",
        re.compile(
            r"\b((melhor|best)\b[^?]{0,20}\b(deck|carta|card)|"
            r"tier list|meta deck|dicas|tips|"
            # whether a card is worth playing: advice, not a ruling
            r"should i (?:side|main|run)|"
            r"vale a pena|compensa (?:usar|jogar|colocar)|worth (?:it|running|playing|siding))\b"
            # building a deck, siding against a matchup: advice, unless the question asks what
            # is allowed ("deckbuilding q: can I side a 3rd copy? Is that legal?")
            r"|^(?!.*\b(?:legal|ilegal|allowed|permitid\w*|can i|could i|may i|am i allowed|"
            r"posso|pode|da pra|consigo)\b)"
            r".*\b(deck ?building|montar (um |o )?deck|montando (um |o )?deck|decklist|deck list|"
            r"(?:side|siding|sidear|colocar)\b[^?]{0,40}\b(?:against|contra))\b"
        ),
    ),
    (
        "other games and media",
        "outros jogos e mídias",
        re.compile(
            r"\b(master duel|duel links|anime|manga|episodio|episode|"
            r"video ?game|tag force|gems?|secret pack|ranking|ranked|"
            # other card games
            r"mtg|magic the gathering|magic: the gathering|mana|planeswalker|pokemon|hearthstone|"
            r"digimon|lorcana|flesh and blood)\b"
        ),
    ),
    (
        "the current Forbidden & Limited list",
        "a Lista de Proibidos e Limitados atual",
        re.compile(
            # A format's own list (e.g. a historical format's) is covered: comparing it with
            # today's is a question about that format (see `uncovered_topic`).
            r"^.*?(?:"
            r"\b(current|atual|atualmente|hoje|today|nowadays|now|agora|latest|mais recente)\b"
            r"[^?]*\b(banned|banida|banido|forbidden|proibid\w*|limited|limitad\w*|banlist|"
            r"ban list|f&l|lista)\b"
            r"|\b(banned|banida|banido|forbidden|proibid\w*|limited|limitad\w*|banlist|ban list|"
            r"f&l)\b[^?]*\b(current|atual|atualmente|hoje|today|nowadays|now|agora|latest)\b)"
        ),
    ),
)


def uncovered_topic(question: str, own_format: bool = False) -> tuple[str, str] | None:
    """(en, pt) name of a topic the knowledge base does not cover, if the question is about one.
    `own_format`: the question is about a format other than today's rules, whose own list the
    KB may state (today's list is then no topic of the question)."""
    q = fold(question)
    for en, pt, pattern in _TOPICS:
        if own_format and en == _CURRENT_LIST:
            continue
        if pattern.search(q):
            return en, pt
    return None


_CURRENT_LIST = "the current Forbidden & Limited list"


# A run of capitalised words (a card name) that links to nothing: the KB does not know that card.
_NAME_RUN = re.compile(
    r"(?<![\w])[A-Z][\w'\-\"]*(?:(?:\s+|,\s+)(?:(?:of|the|by|de|do|da|dos|das|o|a)\s+)*[A-Z\"][\w'\-\"]*)+"
)
_STARTERS = frozenset(
    [
        "i",
        "i'm",
        "in",
        "no",
        "na",
        "since",
        "because",
        "after",
        "before",
        "while",
        "so",
        "or",
        "now",
        "depois",
        "antes",
        "entao",
        "agora",
        "ja",
    ]
)  # besides the question words below: sentence openers that are no part of a name
# A capitalised word (a name) and a "<name> format" / "formato <name>" phrase.
_CAPITALISED = re.compile(r"(?<![\w'-])[A-ZÀ-Ý][\w'-]{3,}")
_FORMAT_NAME = re.compile(r"\b([a-z0-9]+)[ -]format\b|\bformato (?:de |do )?([a-z0-9]+)\b")
# Words before "format" / after "formato" that name no format (the declared formats' own names
# are added from the manifest).
_KNOWN_FORMAT_WORDS = frozenset(
    [
        "atual",
        "current",
        "tcg",
        "ocg",
        "avancado",
        "advanced",
        "this",
        "that",
        "the",
        "esse",
        "este",
        "nesse",
        "neste",
        "duelo",
        "duel",
        "match",
        "partida",
        "oficial",
        "official",
        "tradicional",
        "traditional",
        "same",
        "mesmo",
        "o",
        "a",
        "um",
        "an",
        "2010",
        "whole",
        "which",
        "what",
        "qual",
        "que",
    ]
)
_QUESTION_WORDS = frozenset(
    [
        "posso",
        "pode",
        "podem",
        "podemos",
        "consigo",
        "consegue",
        "da",
        "dá",
        "tem",
        "temos",
        "quem",
        "qual",
        "quais",
        "quando",
        "como",
        "onde",
        "quanto",
        "quantos",
        "quantas",
        "porque",
        "existe",
        "existem",
        "voce",
        "você",
        "vocês",
        "eu",
        "meu",
        "minha",
        "nos",
        "nós",
        "does",
        "do",
        "did",
        "can",
        "could",
        "is",
        "are",
        "was",
        "were",
        "will",
        "would",
        "should",
        "may",
        "must",
        "has",
        "have",
        "what",
        "which",
        "who",
        "whose",
        "when",
        "where",
        "why",
        "how",
        "yes",
        "sim",
        "isso",
        "esse",
        "essa",
        "este",
        "esta",
        "then",
        "also",
        "and",
        "but",
        "mas",
        "se",
        "if",
        "okay",
        "ok",
        "hey",
        "alguem",
        "someone",
        "anyone",
        "galera",
        "pessoal",
        "help",
        "ajuda",
        "duvida",
        "dúvida",
        "question",
        "pergunta",
    ]
)


def vocabulary(kg: KnowledgeGraph) -> frozenset[str]:
    """Every word the KB uses: document text, claims, card and concept names and definitions."""
    words: set[str] = set()
    for n in kg.nodes:
        if n.props.get("origin") == "carddb":
            continue  # a database card is known by its linked name, not by loose words of it
        parts = [n.text, n.label_en, n.label_pt, *n.props.get("aliases", [])]
        parts += [n.props.get("definition_en"), n.props.get("definition_pt")]
        for part in parts:
            if part:
                words.update(re.findall(r"[\w'-]+", fold(part)))
    return frozenset(words)


@dataclass(frozen=True)
class Vocabulary:
    """What the KB knows by name: every word of its documents, claims, cards and concepts."""

    words: frozenset[str] = field(default_factory=frozenset)
    format_words: frozenset[str] = field(default_factory=frozenset)

    @classmethod
    def of(cls, kg: KnowledgeGraph, formats: Formats) -> Vocabulary:
        return cls(vocabulary(kg), formats.known_words())

    def unknown_names(self, text: str, mentions: list[Mention]) -> list[str]:
        """Capitalised multi-word names in the question that link to no entity."""
        spans = [(m.start, m.end) for m in mentions]
        out = []
        for m in _NAME_RUN.finditer(text):
            words = [w for w in re.split(r"[\s,]+", m.group(0)) if w]
            while words and _opener(words[0]):
                words.pop(0)
            capitals = [w for w in words if w[:1].isupper() or w.startswith('"')]
            if len(capitals) >= 2 and not any(a < m.end() and m.start() < b for a, b in spans):
                out.append(" ".join(words))
        return out

    def unknown_words(self, text: str, mentions: list[Mention]) -> list[str]:
        """Capitalised words no document, claim, card or concept of the KB uses ("Nibiru"), and
        formats it does not know ("goat format", "formato Rush")."""
        spans = [(m.start, m.end) for m in mentions]
        out = []
        for m in _CAPITALISED.finditer(text):
            word = re.sub(r"['’]s$", "", fold(m.group(0)))
            inside = any(a <= m.start() and m.end() <= b for a, b in spans)
            ordinary = word in _QUESTION_WORDS or word in CHAT_WORDS or word in FUNCTION_WORDS
            ordinary = ordinary or word in GAME_WORDS
            if not inside and word not in self.words and not ordinary:
                out.append(m.group(0))
        for m in _FORMAT_NAME.finditer(fold(text)):
            name = m.group(1) or m.group(2)
            if name not in _KNOWN_FORMAT_WORDS and name not in self.format_words:
                out.append(m.group(0))
        return out

    def unknown(self, text: str, mentions: list[Mention]) -> bool:
        """The question names something (a card, a game) the KB does not know: it cannot rule
        on it, even when the question also names cards it knows."""
        return bool(self.unknown_names(text, mentions) or self.unknown_words(text, mentions))

    def not_understood(self, text: str, mentions: list[Mention]) -> tuple[str, str] | None:
        """(en, pt) of what was not understood in a question naming no card, concept or format
        and using no content word the KB knows; None when there is something to look up."""
        if mentions:
            return None
        words = re.findall(r"[^\W\d_]{2,}", fold(text))
        content = [w for w in words if w not in STOP_WORDS and w not in _QUESTION_WORDS]
        if any(w in self.words for w in content):
            return None
        if content:
            quoted = ", ".join(f"“{w}”" for w in dict.fromkeys(content[:5]))
            return (
                f"Not understood: {quoted} — no card, rule term or word of the rule documents.",
                f"Não entendi: {quoted} — não é card, termo de regra nem palavra dos documentos.",
            )
        return (
            "Not understood: the question names no card, rule or game action to look up.",
            "Não entendi: a pergunta não cita card, regra ou ação de jogo para procurar.",
        )


def _opener(word: str) -> bool:
    """A sentence opener, not part of a name ("Since", "Quando", "Can")."""
    w = fold(word)
    return w in STOP_WORDS or w in _STARTERS or w in _QUESTION_WORDS or w in FUNCTION_WORDS
