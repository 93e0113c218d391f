"""What the knowledge base does not cover, said up front.

The corpus is three rule documents: Edison Format rules (with its March 2010 F&L list), general
rulings on summons, chains and spell speeds, and Tag Duel rules. Questions about prices, events,
deck advice, other games built on the cards, or today's Forbidden & Limited list are outside it,
whatever cards they name: no passage can decide them, so no verdict is given.
"""

from __future__ import annotations

import re

from kb.ids import fold

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
            r"\b(deck ?building|montar (um |o )?deck|(melhor|best)\b[^?]{0,20}\b(deck|carta|card)|"
            r"tier list|meta deck|dicas|tips|decklist|deck list)\b"
        ),
    ),
    (
        "other Yu-Gi-Oh! games and media",
        "outros jogos e mídias de Yu-Gi-Oh!",
        re.compile(
            r"\b(master duel|duel links|rush duel|speed duels?|anime|manga|episodio|episode|"
            r"video ?game|tag force|gems?|secret pack|ranking|ranked)\b"
        ),
    ),
    (
        "the current Forbidden & Limited list",
        "a Lista de Proibidos e Limitados atual",
        re.compile(
            r"\b(current|atual|atualmente|hoje|today|nowadays|now|agora|latest|mais recente)\b"
            r"[^?]*\b(banned|banida|banido|forbidden|proibid\w*|limited|limitad\w*|banlist|"
            r"ban list|f&l|lista)\b"
            r"|\b(banned|banida|banido|forbidden|proibid\w*|limited|limitad\w*|banlist|ban list|"
            r"f&l)\b[^?]*\b(current|atual|atualmente|hoje|today|nowadays|now|agora|latest)\b"
        ),
    ),
)


# The Edison Format's own (March 2010) list is covered: comparing it with today's is a question
# about Edison.
_EDISON = re.compile(r"\bedison\b")


def uncovered_topic(question: str) -> tuple[str, str] | None:
    """(en, pt) name of a topic the knowledge base does not cover, if the question is about one."""
    q = fold(question)
    for en, pt, pattern in _TOPICS:
        if pattern.search(q) and not (en.endswith("Limited list") and _EDISON.search(q)):
            return en, pt
    return None
