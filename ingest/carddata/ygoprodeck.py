"""Reader of YGOPRODeck card-info JSON, as its public API v7 returns it (`/api/v7/cardinfo.php`).

The response is `{"data": [card, …]}`; a card has `id` (the password), `name`, `type` ("Effect
Monster", "Synchro Tuner Monster", "Spell Card"…), `frameType`, `desc`, `race` (the monster Type,
or the Spell/Trap property), `attribute`, `atk`, `def`, `level` (the Rank for Xyz Monsters),
`linkval`, `typeline`, `card_sets`, `card_images` and, with `misc=yes`, `misc_info: [{konami_id,
tcg_date, ocg_date, …}]`. With `language=pt` (or fr/de/it) `name` and `desc` are translated and
`name_en` holds the English name. Skill Cards are not game cards and are skipped.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ingest.carddata.draft import (
    CardDraft,
    card_type_of,
    classes_of,
    clean_name,
    int_or_none,
    property_of,
)
from ingest.carddata.yaml_yugi import load_json
from kb.errors import IngestError

DATASET = "ygoprodeck"
LANGUAGES = ("en", "pt", "fr", "de", "it")
_LANG_IN_NAME = re.compile(r"(?:^|[._\-])(pt|fr|de|it|en)(?:[._\-]|$)", re.IGNORECASE)
_NOT_CLASS_WORDS = {"monster", "card"}
_SPLIT_PENDULUM = re.compile(r"\n-{5,}\n")


def is_ygoprodeck(data: Any) -> bool:
    """A card-info response: a mapping whose `data` is a list of cards with `id` and `type`."""
    if not isinstance(data, dict) or not isinstance(data.get("data"), list):
        return False
    first = data["data"][0] if data["data"] else {}
    return isinstance(first, dict) and "id" in first and "type" in first


def language_of(path: Path, data: Any, language: str | None = None) -> str:
    """The response's language: given, else named in the file name, else pt if cards carry
    `name_en` (a translated response), else en."""
    if language:
        if language not in LANGUAGES:
            raise IngestError(str(path), f"unknown language {language!r} (known: {LANGUAGES})")
        return language
    m = _LANG_IN_NAME.search(path.stem)
    if m:
        return m.group(1).lower()
    cards = data.get("data") if isinstance(data, dict) else None
    if isinstance(cards, list) and any(isinstance(c, dict) and "name_en" in c for c in cards):
        return "pt"
    return "en"


def read_ygoprodeck(path: Path, language: str | None = None) -> list[CardDraft]:
    """The drafts of a card-info JSON file (English or translated)."""
    data = load_json(path)
    if not is_ygoprodeck(data):
        raise IngestError(
            str(path), "not a YGOPRODeck card-info response (expected {'data': [...]})"
        )
    return drafts_of(data, path, language_of(path, data, language))


def drafts_of(data: dict[str, Any], path: Path, language: str) -> list[CardDraft]:
    """One draft per game card of a parsed response; duplicate ids are an error."""
    seen: dict[int, int] = {}
    out: list[CardDraft] = []
    for index, card in enumerate(data["data"]):
        where = f"data[{index}]"
        if not isinstance(card, dict):
            raise IngestError(str(path), f"{where} is not an object")
        password = int_or_none(card.get("id"))
        if password is None:
            raise IngestError(str(path), f"{where} has no integer 'id' (password)")
        if password in seen:
            raise IngestError(
                str(path),
                f"{where}: duplicate card id {password} (first at data[{seen[password]}])",
            )
        seen[password] = index
        draft = _draft(card, path, where, password, language)
        if draft is not None:
            out.append(draft)
    return out


def _draft(
    card: dict[str, Any], path: Path, where: str, password: int, language: str
) -> CardDraft | None:
    raw_type = str(card.get("type") or "")
    if "skill" in raw_type.lower():
        return None
    kind = card_type_of(raw_type)
    if kind is None:
        raise IngestError(str(path), f"{where} (id {password}): unknown type {raw_type!r}")
    name = clean_name(card.get("name"))
    name_en = clean_name(card.get("name_en")) if language != "en" else name
    misc = card.get("misc_info")
    info: dict[str, Any] = (
        misc[0] if isinstance(misc, list) and misc and isinstance(misc[0], dict) else {}
    )
    monster = kind == "monster"
    words = _class_words(card, raw_type)
    classes = classes_of(words) if monster else ()
    if monster and raw_type.strip().lower() == "token":
        classes = ("token",)
    level = int_or_none(card.get("level"))
    rank = level if "xyz" in classes else None
    texts = _texts(card, language)
    race = clean_name(card.get("race"))
    return CardDraft(
        dataset=DATASET if language == "en" else f"{DATASET}-{language}",
        origin=f"{path.name} {where} (id {password})",
        name_en=name_en,
        password=password,
        konami_id=int_or_none(info.get("konami_id")),
        name_pt=name if language == "pt" else None,
        aliases=(name,) if name and language not in ("en", "pt") else (),
        card_type=kind,
        property=None if monster else property_of(race),
        attribute=clean_name(card.get("attribute")) if monster else None,
        race=race if monster else None,
        monster_classes=classes,
        type_line=(" / ".join([race, *words]) if race else None) if monster else None,
        level=None if rank is not None or "link" in classes else level,
        rank=rank,
        link_rating=int_or_none(card.get("linkval")) if monster else None,
        atk=int_or_none(card.get("atk")) if monster else None,
        defense=int_or_none(card.get("def")) if monster and "link" not in classes else None,
        first_tcg_date=clean_name(info.get("tcg_date")),
        texts=texts,
    )


def _class_words(card: dict[str, Any], raw_type: str) -> list[str]:
    """Monster class words: the `typeline` after the Type, else the words of `type`."""
    typeline = card.get("typeline")
    if isinstance(typeline, list) and len(typeline) > 1:
        return [str(w) for w in typeline[1:]]
    return [w for w in raw_type.split() if w.lower() not in _NOT_CLASS_WORDS]


def _texts(card: dict[str, Any], language: str) -> dict[str, str]:
    """The card's texts keyed like CardDraft.texts; en texts only from an English response."""
    if language not in ("en", "pt"):
        return {}
    desc = str(card.get("desc") or "").strip()
    monster = str(card.get("monster_desc") or "").strip()
    pendulum = str(card.get("pend_desc") or "").strip()
    if not monster and _SPLIT_PENDULUM.search(desc):
        first, second = _SPLIT_PENDULUM.split(desc, maxsplit=1)
        pendulum, monster = _drop_heading(first), _drop_heading(second)
    out: dict[str, str] = {}
    if monster or desc:
        out[language] = monster or desc
    if pendulum:
        out[f"pendulum_{language}"] = pendulum
    return out


def _drop_heading(part: str) -> str:
    """'[ Pendulum Effect ]\\ntext' → 'text'."""
    return re.sub(r"^\s*\[[^\]]*\]\s*", "", part).strip()
