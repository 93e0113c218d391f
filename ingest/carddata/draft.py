"""What every card-data reader produces: one `CardDraft` per card entry of a source file.

A draft holds what its source says about a card (names, types, stats, pool, limits) and the card's
texts, which are read at import time only: mechanics are inferred from them and the texts are then
dropped (the committed table holds no card text). Fields a source does not give stay None, so a
merge can tell "unknown" from "empty".

The vocabulary helpers here map the sources' spellings ("Quick-Play", "Effect Monster",
"Warrior / Union / Effect") onto the table's (`kb.cards.table`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from kb.cards.table import CARD_TYPES, MONSTER_CLASSES, PROPERTIES


@dataclass(frozen=True)
class CardDraft:
    """One source entry for one card. `origin` names the file and entry for error messages."""

    dataset: str
    origin: str
    name_en: str | None
    password: int | None = None
    konami_id: int | None = None
    name_pt: str | None = None
    aliases: tuple[str, ...] = ()
    card_type: str | None = None
    property: str | None = None
    attribute: str | None = None
    race: str | None = None
    monster_classes: tuple[str, ...] | None = None
    type_line: str | None = None
    level: int | None = None
    rank: int | None = None
    link_rating: int | None = None
    atk: int | None = None
    defense: int | None = None
    first_tcg_date: str | None = None
    edison_pool: bool | None = None
    edison_limit: int | None = None
    tcg_2010_03: int | None = None
    tcg_current: int | None = None
    texts: dict[str, str] = field(default_factory=dict, compare=False)


@dataclass(frozen=True)
class LimitEntry:
    """One `password count --comment` line of a limit list."""

    password: int
    count: int
    comment: str
    line: int


@dataclass(frozen=True)
class LimitList:
    """One list of an EDOPro lflist.conf: its name, whether it is a whitelist (a card pool)."""

    name: str
    path: str
    whitelist: bool
    entries: tuple[LimitEntry, ...]


# Text keys of CardDraft.texts: the card's own text and its Pendulum Effect, per language.
TEXT_KEYS = ("en", "pt", "pendulum_en", "pendulum_pt")

_PROPERTY = {p.replace("-", "").replace(" ", ""): p for p in PROPERTIES}
_CLASS_WORDS = {c: c for c in MONSTER_CLASSES if c != "trap-monster"}
# Classes whose monsters are Effect Monsters even where an old type line omits "Effect".
EFFECT_CLASSES = frozenset({"union", "spirit", "toon", "gemini", "flip"})
EXTRA_DECK = frozenset({"fusion", "synchro", "xyz", "link"})


def card_type_of(raw: str | None) -> str | None:
    """'Monster'/'Spell Card'/'Trap' → monster/spell/trap; None when not one of them."""
    if not raw:
        return None
    word = raw.strip().lower().split()[0] if raw.strip() else ""
    for kind in CARD_TYPES:
        if word == kind or raw.strip().lower().endswith(f"{kind} card"):
            return kind
    if "monster" in raw.lower() or raw.strip().lower() == "token":
        return "monster"
    return None


def property_of(raw: str | None) -> str | None:
    """'Quick-Play' → quick-play, 'Counter' → counter; None for a word outside the vocabulary."""
    if not raw:
        return None
    return _PROPERTY.get(raw.strip().lower().replace("-", "").replace(" ", ""))


def classes_of(words: list[str] | tuple[str, ...]) -> tuple[str, ...]:
    """Monster classes from type-line words ('Synchro', 'Tuner', 'XYZ', …), in table vocabulary.

    Old type lines omit "Effect" for Union/Spirit/Toon/Gemini/Flip and Tuner monsters with
    effects; a line with no Normal/Effect word gets one from `settle_normal_effect` later.
    """
    out: list[str] = []
    for word in words:
        key = word.strip().lower()
        cls = _CLASS_WORDS.get(key)
        if cls and cls not in out:
            out.append(cls)
    if EFFECT_CLASSES & set(out) and "effect" not in out:
        out.append("effect")
    return tuple(out)


_SLASH = re.compile(r"\s*/\s*")


def type_line_words(type_line: str | None) -> list[str]:
    """'Warrior / Union / Effect' → ['Warrior', 'Union', 'Effect']."""
    return [w for w in _SLASH.split(type_line or "") if w]


# Rules wording that flavour text (a Normal Monster's) does not have.
_RULES_WORDS = re.compile(
    r"[:;●]|\b(?:you can|this card|cannot|once per|special summon|negate|inflict|draw|banish|"
    r"your opponent|you control|gains?|loses?|destroy)\b",
    re.IGNORECASE,
)


def is_flavour(text: str) -> bool:
    """Whether a monster text reads as flavour text (no rules wording at all)."""
    return not _RULES_WORDS.search(text)


def settle_normal_effect(classes: tuple[str, ...], has_effects: bool) -> tuple[str, ...]:
    """Add the missing Normal/Effect class of a monster whose type line omits both.

    A type line with the Type alone ("Dragon") is a Normal Monster's; otherwise a monster with
    effects is an Effect Monster and a non-Ritual Main Deck monster without is a Normal Monster.
    Extra Deck and Ritual monsters without effects get neither (they are not Normal Monsters).
    """
    if not classes:
        return ("normal",)
    if {"normal", "effect"} & set(classes):
        return classes
    if has_effects:
        return (*classes, "effect")
    if (EXTRA_DECK | {"ritual"}) & set(classes):
        return classes
    return (*classes, "normal")


def int_or_none(value: object) -> int | None:
    """An integer field of a source: ints and digit strings; '?', '', None and bools → None."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and re.fullmatch(r"-?\d+", value.strip()):
        return int(value.strip())
    return None


def clean_name(value: object) -> str | None:
    """A name cell: stripped, None when empty; tabs, newlines and '|' become spaces."""
    if not isinstance(value, str):
        return None
    text = re.sub(r"[\t\r\n|]+", " ", value).strip()
    return text or None
