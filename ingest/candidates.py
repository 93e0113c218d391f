"""Card-name candidates: the places where a document names a card, found without the card table.

Used to measure linking coverage (`unlinked_card_mentions`): a candidate that no card mention
overlaps is a card the table is missing (or an alias it lacks). The rules follow how rule texts
write card names, in any document:
- quoted names: "…" or “…” of at most 8 words, starting with a capital, not a sentence;
- bilingual pairs: a Portuguese name and its English name side by side, `Nome pt/English Name` or
  `Nome pt (English Name)`, the English side a title-case run of two or more words;
- name lists: three or more comma / "e" separated capitalised names after the colon of a list item;
- table-row names: runs of capitalised words inside table rows that are not sentence starts.
A candidate fully covered by a concept or format mention is a term, not a card.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kb.model import Node

_QUOTED = re.compile(r"[\"“]\s*([^\"“”\n]{2,80}?)\s*[\"”]")
_CAP = r"[A-ZÀ-Ý][\wÀ-ÿ'’\-.:]*"
_LINK = r"(?:\s+(?:de|do|da|dos|das|e|o|a|em|que)\s+|\s+|,\s+(?=[A-Z][a-zà-ÿ]+\s+[a-z]))"
_CAP_RUN = re.compile(rf"(?<![\wÀ-ÿ])(?:{_CAP})(?:{_LINK}{_CAP})*")
# Capitalised words in Tag rows that are game words, not card names.
# An English card name: title-case words, with the small words English names use between them.
_EN_WORD = r"[A-Z][A-Za-z0-9'’\-.:!?]*"
_EN_NAME = rf"{_EN_WORD}(?:\s+(?:of|the|and|from|to|in|a|an|on|with|{_EN_WORD}))*\s+{_EN_WORD}"
_PT_NAME = rf"{_CAP}(?:{_LINK}{_CAP})*"
_PAIR = re.compile(
    rf"(?<![\wÀ-ÿ])(?P<pt>{_PT_NAME})\s*(?:/\s*(?P<en>{_EN_NAME})|\(\s*(?P<enp>{_EN_NAME})\s*\))(?![\w])"
)
_NOT_CARDS = {
    "o",
    "a",
    "os",
    "as",
    "um",
    "uma",
    "se",
    "ele",
    "ela",
    "eles",
    "seu",
    "sua",
    "ambos",
    "cada",
    "qualquer",
    "durante",
    "como",
    "isso",
    "mesmo",
    "antes",
    "depois",
    "quando",
    "todas",
    "nenhum",
    "duelista",
    "duelistas",
    "equipe",
    "luz",
    "trevas",
    "nível",
    "monstro",
    "monstros",
    "card",
    "cards",
    "cemitério",
    "campo",
    "deck",
    "decks",
    "invocação",
    "zona",
    "zonas",
    "magia",
    "armadilha",
    "fases",
    "fase",
    "compra",
    "pontos",
    "vida",
    "turno",
    "efeito",
    "efeitos",
    "limitado",
    "semi-limitado",
    "corrente",
    "elo",
    "jogador",
    "oponente",
    "principais",
    "adicionais",
    "pêndulo",
    "invocação-especial",
    "invocação-normal",
    "invocação-link",
    "invocação-tributo",
    "invocação-xyz",
    "invocação-pêndulo",
    "tipo",
    "mago",
    "manutenção",
    "todos",
    "no",
    "na",
    "ao",
    "de",
    "do",
    "da",
    "e",
    "em",
    "não",
    "apenas",
    "rápido",
    "rápidos",
    "mil",
    "olhos",
    "lançamento",
    "dos",
    "das",
    "que",
    "invocar",
    "invocá-lo",
    "invocado",
    "invocados",
    "baixado",
    "baixados",
    "cemitérios",
    "nenhuma",
    "nem",
}


@dataclass(frozen=True)
class Candidate:
    """A place in a document that names a card: absolute offsets and the text."""

    node: str
    start: int
    end: int
    text: str


def candidates(node: Node) -> list[Candidate]:
    """Card-name candidates in one text node, by the rules in the module docstring."""
    if node.span is None or not node.text:
        return []
    text, base = node.text, node.span.start
    out: list[Candidate] = []
    for m in _QUOTED.finditer(text):
        name = m.group(1)
        if name[0].isupper() and len(name.split()) <= 8 and not name.rstrip().endswith("."):
            out.append(Candidate(node.id, base + m.start(1), base + m.end(1), name))
    for m in _PAIR.finditer(text):
        if not _all_game_words(m.group("pt").split()):
            out.append(Candidate(node.id, base + m.start(), base + m.end(), m.group(0)))
    kind = node.props.get("kind")
    if kind in ("list-item", "bullet"):
        out += _list_names(node, text, base)
    if kind == "table-row":
        for m in _CAP_RUN.finditer(text):
            if _all_game_words(m.group(0).split()):
                continue
            if m.start() == 0 or text[m.start() - 2 : m.start()].strip() in (".", ""):
                continue  # sentence-initial words are not names
            out.append(Candidate(node.id, base + m.start(), base + m.end(), m.group(0)))
    unique = {(c.start, c.end): c for c in out}
    return [unique[k] for k in sorted(unique)]


def _all_game_words(words: list[str]) -> bool:
    return all(
        (w := word.strip(",.:()")).casefold() in _NOT_CARDS
        or w.isdigit()
        or re.fullmatch(r"\d[AB]?", w)
        for word in words
    )


def _list_names(node: Node, text: str, base: int) -> list[Candidate]:
    """Names listed after a list item's colon: "…: Cyber Dragon, Gorz e Jinzo"."""
    colon = text.find(":")
    if colon < 0:
        return []
    body_start = colon + 1
    names: list[tuple[int, str]] = []
    for m in re.finditer(r"[^,.;]+", text[body_start:]):
        for part in re.split(r"\s+e\s+", m.group(0)):
            name = part.strip(" -–")
            if not name:
                continue
            if not name[0].isupper() or len(name.split()) > 6 or _all_game_words(name.split()):
                return []  # prose, not a list of names
            names.append((text.find(name, body_start + m.start()), name))
    if len(names) < 3:
        return []
    return [Candidate(node.id, base + at, base + at + len(name), name) for at, name in names]
