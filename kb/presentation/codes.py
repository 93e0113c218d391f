"""The pt/en labels of the closed vocabularies of codes (card types, attributes, monster types,
card fields, list statuses …): one table, `codes.json` beside this module, that the wiki pages
read here and the web page's node view reads as `/static/codes.json` (api/static/labels.js).

`codes` maps a vocabulary to its codes, each `[pt, en]`; `fieldCodes` names the vocabulary that
translates a card field's values. An unknown code reads as itself with its dashes as spaces, as
on the web page.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

CODES_FILE = Path(__file__).with_name("codes.json")
LANGS = ("pt", "en")


@lru_cache(maxsize=1)
def _table() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(CODES_FILE.read_text("utf-8"))
    return data


def codes_json() -> bytes:
    """The table's file as it is served to the web page."""
    return CODES_FILE.read_bytes()


def label(vocabulary: str, code: object, lang: str = "pt") -> str:
    """A code's label in `lang` (pt or en)."""
    row = _table()["codes"].get(vocabulary, {}).get(str(code))
    if row is None:
        return str(code).replace("-", " ").replace("_", " ")
    return str(row[LANGS.index(lang)])


def card_fields() -> tuple[str, ...]:
    """The card fields a card's data is shown by, in the order shown."""
    return tuple(_table()["codes"]["cardField"])


def field_value(field: str, value: object, lang: str = "pt") -> str:
    """A card field's value in words: codes translated, lists joined, booleans as yes/no."""
    vocabulary = _table()["fieldCodes"].get(field)

    digits = _table().get("fieldDigits", {}).get(field)

    def one(v: object) -> str:
        if isinstance(v, bool):
            return label("infobox", "yes" if v else "no", lang)
        if digits and isinstance(v, int):
            return str(v).zfill(digits)  # a password keeps its leading zeros: 00423705
        return label(vocabulary, v, lang) if vocabulary else str(v)

    return ", ".join(one(v) for v in value) if isinstance(value, list) else one(value)


def card_rows(
    props: Mapping[str, Any], lang: str = "pt", skip: frozenset[str] = frozenset()
) -> Iterator[tuple[str, str]]:
    """(field label, value text) of every card field `props` sets, but `skip`, in the table's
    order: what the web page's node view shows (labels.js `cardRows`)."""
    for field in card_fields():
        value = props.get(field)
        if field in skip or value is None or value == [] or value == "":
            continue
        yield label("cardField", field, lang), field_value(field, value, lang)
