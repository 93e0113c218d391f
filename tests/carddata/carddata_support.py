"""Builders of small card-data inputs in the real formats, with invented cards and texts.

Every card here is made up for the tests (names, passwords, texts); only the file formats are
the real ones (the card database's SQLite schema, yaml-yugi JSON, YGOPRODeck card-info JSON,
EDOPro lflist.conf).
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
CARDDATA = REPO.parent / "shared" / "carddata"

# Invented cards: (password, konami id, en, pt, card_type, property, monster_types, type line,
# attribute, level, atk, def, text_en, text_pt)
CARDS: list[tuple[Any, ...]] = [
    (
        10000001,
        90001,
        "Lantern Wisp",
        "Fogo-Fátuo da Lanterna",
        "Monster",
        None,
        ["Effect"],
        "Pyro / Effect",
        "FIRE",
        4,
        1800,
        1200,
        "If your opponent controls 2 or more monsters and you control none, you can Special "
        "Summon this card (from your hand). If this card is sent to the GY: You can draw 1 card.",
        "Se seu oponente controlar 2 ou mais monstros e você não controlar nenhum, você pode "
        "Invocar este card por Invocação-Especial (da sua mão).",
    ),
    (
        10000002,
        90002,
        "Verdict of the Silent Court",
        "Veredito da Corte Silenciosa",
        "Trap",
        "Counter",
        [],
        None,
        None,
        None,
        None,
        None,
        "When a monster(s) would be Summoned, OR a Spell/Trap Card is activated: Pay 1500 LP; "
        "negate the Summon or activation, and if you do, banish that card.",
        None,
    ),
    (
        10000003,
        90003,
        "Moss Golem",
        "Golem de Musgo",
        "Monster",
        None,
        ["Normal"],
        "Rock / Normal",
        "EARTH",
        3,
        1300,
        1500,
        "A slow giant of stone and moss that guards the old forest road.",
        "Um gigante lento de pedra e musgo.",
    ),
    (
        10000004,
        90004,
        "Clockwork Herald",
        "Arauto Mecânico",
        "Monster",
        None,
        ["Synchro", "Effect"],
        "Machine / Synchro / Effect",
        "LIGHT",
        7,
        2500,
        2000,
        "1 Tuner + 1+ non-Tuner monsters\nWhen your opponent activates a monster effect (Quick "
        "Effect): You can banish 1 card from your GY; negate the activation, and if you do, "
        "destroy it.",
        None,
    ),
]


def write_sqlite(
    path: Path,
    cards: list[tuple[Any, ...]] = CARDS,
    pool: dict[int, int] | None = None,
    statuses: dict[int, int] | None = None,
) -> Path:
    """A card database with the real schema's columns the importer reads."""
    con = sqlite3.connect(path)
    con.execute(
        "CREATE TABLE cards(password INTEGER, konami_id INTEGER, name_en TEXT, name_pt TEXT, "
        "card_type TEXT, property TEXT, race TEXT, monster_types TEXT, monster_type_line TEXT, "
        "attribute TEXT, level INTEGER, rank INTEGER, link_arrows TEXT, pendulum_scale INTEGER, "
        "atk INTEGER, def INTEGER, materials TEXT, text_en TEXT, text_pt TEXT, "
        "pendulum_effect_en TEXT, pendulum_effect_pt TEXT, first_tcg_en_date TEXT)"
    )
    con.execute(
        "CREATE TABLE edison_pool(password INTEGER PRIMARY KEY, konami_id INTEGER, edison_limit INTEGER)"
    )
    con.execute(
        "CREATE TABLE tcg_banlist_2010_03_01(konami_id INTEGER PRIMARY KEY, status INTEGER, "
        "status_text TEXT, name_en TEXT, prev TEXT)"
    )
    for pw, kid, en, pt, kind, prop, mtypes, line, attr, level, atk, df, ten, tpt in cards:
        race = line.split(" / ")[0] if line else None
        con.execute(
            "INSERT INTO cards(password, konami_id, name_en, name_pt, card_type, property, race, "
            "monster_types, monster_type_line, attribute, level, atk, def, text_en, text_pt, "
            "first_tcg_en_date) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (
                pw,
                kid,
                en,
                pt,
                kind,
                prop,
                race,
                json.dumps(mtypes),
                line,
                attr,
                level,
                atk,
                df,
                ten,
                tpt,
                "2008-01-01",
            ),
        )
    for pw, limit in (pool if pool is not None else {10000001: 3, 10000002: 1}).items():
        con.execute("INSERT INTO edison_pool VALUES (?, NULL, ?)", (pw, limit))
    for kid, st in (statuses if statuses is not None else {90002: 1}).items():
        con.execute("INSERT INTO tcg_banlist_2010_03_01 VALUES (?, ?, '', '', '')", (kid, st))
    con.commit()
    con.close()
    return path


def yaml_yugi_card(password: int = 10000001, **overrides: Any) -> dict[str, Any]:
    """A yaml-yugi card object (the real key layout) for an invented card."""
    card: dict[str, Any] = {
        "konami_id": 90001,
        "password": password,
        "name": {
            "en": "Lantern Wisp",
            "pt": "Fogo-Fátuo da Lanterna",
            "de": "Laternenirrlicht",
            "fr": "Feu Follet à Lanterne",
            "ja": "<ruby>灯<rt>とう</rt></ruby>の<ruby>鬼火<rt>おにび</rt></ruby>",
            "ja_romaji": "Tō no Onibi",
            "ko": None,
        },
        "text": {"en": CARDS[0][12], "pt": CARDS[0][13]},
        "card_type": "Monster",
        "monster_type_line": "Pyro / Effect",
        "attribute": "FIRE",
        "level": 4,
        "atk": 1800,
        "def": 1200,
        "sets": {},
        "limit_regulation": {"tcg": "Unlimited"},
    }
    card.update(overrides)
    return card


def ygoprodeck_card(password: int, name: str, **fields: Any) -> dict[str, Any]:
    """A card of a YGOPRODeck card-info response (the real key layout)."""
    card: dict[str, Any] = {
        "id": password,
        "name": name,
        "type": "Effect Monster",
        "frameType": "effect",
        "desc": "",
        "race": "Warrior",
        "attribute": "DARK",
        "atk": 1000,
        "def": 1000,
        "level": 4,
        "card_sets": [
            {"set_name": "Invented Pack", "set_code": "INV-EN001", "set_rarity": "Common"}
        ],
        "card_images": [{"id": password, "image_url": f"https://example.invalid/{password}.jpg"}],
        "misc_info": [
            {"konami_id": password % 100000, "tcg_date": "2009-05-05", "formats": ["TCG"]}
        ],
    }
    card.update(fields)
    return card


CURATED_YAML = (
    "# Curated card facts (test). authority: curated\n"
    "version: 1\n"
    "cards:\n"
    "  - id: lantern-wisp\n"
    "    en: Lantern Wisp\n"
    "    pt: Fogo-Fátuo da Lanterna\n"
    "    aliases: []\n"
    "    card_type: monster\n"
    "    monster_types: [effect]\n"
    "    attribute: FIRE\n"
    "    race: Pyro\n"
    "    level: 4\n"
    "    special_summon: inherent\n"
    "  - id: verdict-of-the-silent-court\n"
    "    en: Verdict of the Silent Court\n"
    "    pt: Veredito da Corte Silenciosa\n"
    "    aliases: []\n"
    "    card_type: trap\n"
    "    property: counter\n"
    "    negates: [summon, spell-activation, trap-activation]\n"
)


def write_json(path: Path, data: Any) -> Path:
    path.write_text(json.dumps(data, ensure_ascii=False), "utf-8")
    return path
