"""Reader of yaml-yugi per-card JSON (DawnbrandBots/yaml-yugi `data/cards/*.json`).

Each file is one JSON object: `konami_id`, `password`, `name` and `text` keyed by language
(en, pt, de, es, fr, it, ja, ko, zh-TW, zh-CN, plus romanisations), `card_type` (Monster/Spell/
Trap), `property`, `monster_type_line` ("Warrior / Union / Effect"), `attribute`, `level`,
`rank`, `link_arrows`, `atk`, `def`, `pendulum_effect`, `materials`, `sets`, `limit_regulation`.
The names in languages other than en/pt become aliases. A path may be one file or a folder of
them (read in file-name order).
"""

from __future__ import annotations

import json
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
    type_line_words,
)
from kb.errors import IngestError

DATASET = "yaml-yugi"
# Languages whose names become aliases (romanisations are spellings, not names, and are left out).
ALIAS_LANGUAGES = ("de", "es", "fr", "it", "ja", "ko", "zh-TW", "zh-CN")
_RUBY_READING = re.compile(r"<rt>.*?</rt>", re.DOTALL)
_TAG = re.compile(r"<[^>]+>")


def is_yaml_yugi(data: Any) -> bool:
    """A yaml-yugi card object: a `name` mapping by language and a `card_type`."""
    return (
        isinstance(data, dict)
        and isinstance(data.get("name"), dict)
        and "card_type" in data
        and ("password" in data or "konami_id" in data)
    )


def read_yaml_yugi(path: Path) -> list[CardDraft]:
    """The drafts of one yaml-yugi JSON file, or of every `*.json` file in a folder."""
    files = sorted(path.glob("*.json")) if path.is_dir() else [path]
    if path.is_dir() and not files:
        raise IngestError(str(path), "no .json files in the folder")
    return [draft_of(load_json(f), f) for f in files]


def load_json(path: Path) -> Any:
    """The JSON value of a file; IngestError names the file and line of a syntax error."""
    try:
        text = path.read_bytes().decode("utf-8")
    except FileNotFoundError as exc:
        raise IngestError(str(path), "file not found") from exc
    except UnicodeDecodeError as exc:
        raise IngestError(str(path), f"not valid UTF-8 at byte {exc.start}") from exc
    except OSError as exc:
        raise IngestError(str(path), f"cannot read: {exc.strerror}") from exc
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise IngestError(str(path), f"malformed JSON: {exc.msg}", exc.lineno) from exc


def plain_name(raw: Any) -> str | None:
    """A name without ruby readings (`<ruby>氷<rt>ひょう</rt></ruby>` → 氷) or other markup."""
    if not isinstance(raw, str):
        return None
    return clean_name(_TAG.sub("", _RUBY_READING.sub("", raw)))


def draft_of(data: Any, path: Path) -> CardDraft:
    """The draft of one yaml-yugi card object read from `path`."""
    if not is_yaml_yugi(data):
        raise IngestError(str(path), "not a yaml-yugi card (expected 'name' by language)")
    names: dict[str, Any] = data["name"]
    password = int_or_none(data.get("password"))
    konami_id = int_or_none(data.get("konami_id"))
    name_en = plain_name(names.get("en"))
    origin = f"{path.name} ({name_en or password})"
    if not name_en and password is None:
        raise IngestError(str(path), "card has neither an English name nor a password")
    kind = card_type_of(str(data.get("card_type") or ""))
    if kind is None:
        raise IngestError(str(path), f"{origin}: unknown card_type {data.get('card_type')!r}")
    monster = kind == "monster"
    type_line = clean_name(data.get("monster_type_line")) if monster else None
    words = type_line_words(type_line)
    aliases: list[str] = []
    for lang in ALIAS_LANGUAGES:
        alias = plain_name(names.get(lang))
        if alias and alias not in aliases and alias not in (name_en, names.get("pt")):
            aliases.append(alias)
    texts: dict[str, str] = {}
    for lang in ("en", "pt"):
        body = _lang(data.get("text"), lang)
        if body:
            texts[lang] = body
        pendulum = _lang(data.get("pendulum_effect"), lang)
        if pendulum:
            texts[f"pendulum_{lang}"] = pendulum
    arrows = data.get("link_arrows")
    return CardDraft(
        dataset=DATASET,
        origin=origin,
        name_en=name_en,
        password=password,
        konami_id=konami_id,
        name_pt=plain_name(names.get("pt")),
        aliases=tuple(aliases),
        card_type=kind,
        property=None if monster else property_of(data.get("property")),
        attribute=clean_name(data.get("attribute")) if monster else None,
        race=words[0] if monster and words else None,
        monster_classes=classes_of(words[1:]) if monster else (),
        type_line=type_line,
        level=int_or_none(data.get("level")) if monster else None,
        rank=int_or_none(data.get("rank")) if monster else None,
        link_rating=len(arrows) if monster and isinstance(arrows, list) and arrows else None,
        atk=int_or_none(data.get("atk")) if monster else None,
        defense=int_or_none(data.get("def")) if monster else None,
        texts=texts,
    )


def _lang(value: Any, lang: str) -> str | None:
    if isinstance(value, dict) and isinstance(value.get(lang), str) and value[lang].strip():
        return str(value[lang]).strip()
    return None
