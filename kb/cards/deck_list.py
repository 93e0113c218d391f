"""Reading a deck: a `.ydk` file (passwords under #main, #extra, !side) or a plain card list.

Forgiving and exact about what it could not read: every entry keeps its line number (1-based, as
an editor counts them), and a line that is no card entry is kept apart with the reason, so a check
can name the line at fault. Pure functions of the text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from kb.cards.search import normalize

Part = Literal["main", "extra", "side"]
PARTS: tuple[Part, ...] = ("main", "extra", "side")
PART_LABELS: dict[Part, str] = {"main": "Main", "extra": "Extra", "side": "Side"}
_YDK_HEADERS: dict[str, Part] = {"#main": "main", "#extra": "extra", "!side": "side"}
_LIST_HEADERS: dict[str, Part] = {
    **dict.fromkeys(
        ["main", "main deck", "maindeck", "deck", "deck principal", "principal"], "main"
    ),
    **dict.fromkeys(["extra", "extra deck", "deck adicional", "adicional", "deck extra"], "extra"),
    **dict.fromkeys(["side", "side deck", "deck auxiliar", "auxiliar", "deck lateral"], "side"),
}
# Headers inside a part ("Monsters:", "Magias:") that do not change it.
# fmt: off
_GROUP_HEADERS = frozenset({
    "monster", "monsters", "spell", "spells", "trap", "traps", "monster cards", "spell cards",
    "trap cards", "monstro", "monstros", "magia", "magias", "armadilha", "armadilhas", "cards",
})
# fmt: on
_HEADER_COUNT = re.compile(r"\s*(?:\(\s*\d+\s*\)|[:\-]?\s*\d+)\s*:?\s*$")
_COUNT_FIRST = re.compile(r"^(\d{1,3})(?:\s*[x×]\s+|[x×](?=\S)|\s+)(.+)$", re.I)
_COUNT_LAST = re.compile(r"^(.+?)\s*[x×]\s*(\d{1,3})$", re.I)
_PASSWORD = re.compile(r"^(\d{1,10})\s*(?:#.*)?$")


@dataclass(frozen=True)
class Entry:
    """One card line: where it is, what it says, and how many copies."""

    line: int
    text: str
    part: Part
    count: int
    name: str | None = None
    password: int | None = None


@dataclass(frozen=True)
class ParsedDeck:
    kind: Literal["ydk", "list"]
    entries: tuple[Entry, ...]
    malformed: tuple[tuple[int, str, str], ...] = ()  # (line, text, why)


def is_ydk(text: str) -> bool:
    for raw in text.splitlines():
        line = raw.strip().lower()
        if line in _YDK_HEADERS or line.startswith("#created by"):
            return True
    return False


def parse_deck(text: str) -> ParsedDeck:
    """A `.ydk` file (passwords under #main, #extra, !side) or a plain list of names."""
    return _parse_ydk(text) if is_ydk(text) else _parse_list(text)


def _parse_ydk(text: str) -> ParsedDeck:
    part: Part = "main"
    entries: list[Entry] = []
    bad: list[tuple[int, str, str]] = []
    for n, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line:
            continue
        if line[0] in "#!":
            part = _YDK_HEADERS.get(line.lower().split()[0], part)
            continue
        m = _PASSWORD.match(line)
        if m is None:
            bad.append((n, line, "expected a card password (digits) in a .ydk file"))
            continue
        entries.append(Entry(n, line, part, 1, password=int(m.group(1))))
    return ParsedDeck("ydk", tuple(entries), tuple(bad))


def _header(line: str) -> Part | Literal["group"] | None:
    key = normalize(_HEADER_COUNT.sub("", line).rstrip(":"))
    if key in _LIST_HEADERS:
        return _LIST_HEADERS[key]
    if key in _GROUP_HEADERS:
        return "group"
    return None


def _parse_list(text: str) -> ParsedDeck:
    part: Part = "main"
    entries: list[Entry] = []
    bad: list[tuple[int, str, str]] = []
    for n, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith(("#", "//")) or not re.search(r"\w", line):
            continue
        header = _header(line)
        if header == "group":
            continue
        if header is not None:
            part = header
            continue
        entry = _list_entry(n, line, part)
        if isinstance(entry, str):
            bad.append((n, line, entry))
        else:
            entries.append(entry)
    return ParsedDeck("list", tuple(entries), tuple(bad))


def _list_entry(n: int, line: str, part: Part) -> Entry | str:
    """The entry of one list line, or why it is not one."""
    if re.fullmatch(r"\d{4,10}", line):
        return Entry(n, line, part, 1, password=int(line))
    count, name = 1, line
    m = _COUNT_FIRST.match(line)
    if m:
        count, name = int(m.group(1)), m.group(2)
    else:
        m = _COUNT_LAST.match(line)
        if m:
            name, count = m.group(1), int(m.group(2))
    name = name.strip().strip("\"'“”").strip()
    if count < 1:
        return f"a count of {count}: list 1 or more copies"
    if not normalize(name):
        return "no card name"
    return Entry(n, line, part, count, name=name)
