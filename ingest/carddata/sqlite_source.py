"""Reader of the compiled card database `cards_en_pt.sqlite` (schema in carddata/MANIFEST.md).

Tables: `cards` (one row per card printing identity: password, Konami id, en/pt names, types,
stats, texts, first TCG date), `edison_pool` (password → March 2010 limit of the Edison pool) and
`tcg_banlist_2010_03_01` (Konami id → status on Konami's list effective 2010-03-01). The database
is opened read-only; nothing is written back.
"""

from __future__ import annotations

import json
import sqlite3
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
from kb.errors import IngestError

DATASET = "cards_en_pt.sqlite"
_NEEDED = {"password", "konami_id", "name_en", "name_pt", "card_type", "text_en"}
# The list's statuses the table keeps: 0 forbidden, 1 limited, 2 semi-limited (3 = removed).
_LIST_STATUSES = {0, 1, 2}


# The current TCG list status as the database words it (Unlimited and unreleased: no status).
_CURRENT = {"Forbidden": 0, "Limited": 1, "Semi-Limited": 2}


def read_sqlite(path: Path) -> list[CardDraft]:
    """One draft per row of `cards`, with pool, limit and 2010-03-01 status joined in."""
    try:
        con = sqlite3.connect(f"file:{path.resolve().as_posix()}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        raise IngestError(str(path), f"cannot open as SQLite: {exc}") from exc
    try:
        con.row_factory = sqlite3.Row
        tables = _tables(con, path)
        if "cards" not in tables:
            raise IngestError(str(path), "no table 'cards' (not a card database)")
        columns = {r[1] for r in con.execute("PRAGMA table_info(cards)")}
        missing = _NEEDED - columns
        if missing:
            raise IngestError(str(path), f"table 'cards' lacks columns {sorted(missing)}")
        pool = _pool(con) if "edison_pool" in tables else None
        status = _statuses(con) if "tcg_banlist_2010_03_01" in tables else {}
        rows = con.execute("SELECT rowid AS rowid_, * FROM cards ORDER BY rowid").fetchall()
        return [_draft(dict(r), path, pool, status) for r in rows]
    except sqlite3.Error as exc:
        raise IngestError(str(path), f"cannot read the card database: {exc}") from exc
    finally:
        con.close()


def _tables(con: sqlite3.Connection, path: Path) -> set[str]:
    try:
        return {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    except sqlite3.DatabaseError as exc:
        raise IngestError(str(path), f"not a SQLite database: {exc}") from exc


def _pool(con: sqlite3.Connection) -> dict[int, int | None]:
    return {
        int(r["password"]): int_or_none(r["edison_limit"])
        for r in con.execute("SELECT password, edison_limit FROM edison_pool")
        if r["password"] is not None
    }


def _statuses(con: sqlite3.Connection) -> dict[int, int]:
    out: dict[int, int] = {}
    for r in con.execute("SELECT konami_id, status FROM tcg_banlist_2010_03_01"):
        kid, st = int_or_none(r["konami_id"]), int_or_none(r["status"])
        if kid is not None and st is not None and st in _LIST_STATUSES:
            out[kid] = st
    return out


def _json_list(raw: Any) -> list[str]:
    if not raw:
        return []
    try:
        value = json.loads(raw)
    except (TypeError, ValueError):
        return []
    return [str(v) for v in value] if isinstance(value, list) else []


def _draft(
    row: dict[str, Any], path: Path, pool: dict[int, int | None] | None, status: dict[int, int]
) -> CardDraft:
    password = int_or_none(row.get("password"))
    konami_id = int_or_none(row.get("konami_id"))
    name_en = clean_name(row.get("name_en"))
    origin = f"{path.name} row {row['rowid_']} ({name_en or password})"
    kind = card_type_of(row.get("card_type"))
    if kind is None:
        raise IngestError(str(path), f"{origin}: unknown card_type {row.get('card_type')!r}")
    in_pool: bool | None = None
    limit: int | None = None
    if pool is not None:
        in_pool = password is not None and password in pool
        limit = pool.get(password) if in_pool and password is not None else None
    texts = {
        key: str(row[col]).strip()
        for key, col in (
            ("en", "text_en"),
            ("pt", "text_pt"),
            ("pendulum_en", "pendulum_effect_en"),
            ("pendulum_pt", "pendulum_effect_pt"),
        )
        if row.get(col) and str(row[col]).strip()
    }
    monster = kind == "monster"
    words = _json_list(row.get("monster_types"))
    link = _json_list(row.get("link_arrows"))
    return CardDraft(
        dataset=DATASET,
        origin=origin,
        name_en=name_en,
        password=password,
        konami_id=konami_id,
        name_pt=clean_name(row.get("name_pt")),
        card_type=kind,
        property=None if monster else property_of(row.get("property")),
        attribute=clean_name(row.get("attribute")) if monster else None,
        race=clean_name(row.get("race")) if monster else None,
        monster_classes=classes_of(words) if monster else (),
        type_line=clean_name(row.get("monster_type_line")) if monster else None,
        level=int_or_none(row.get("level")) if monster else None,
        rank=int_or_none(row.get("rank")) if monster else None,
        link_rating=len(link) if monster and link else None,
        atk=int_or_none(row.get("atk")) if monster else None,
        defense=int_or_none(row.get("def")) if monster else None,
        first_tcg_date=clean_name(row.get("first_tcg_en_date")),
        edison_pool=in_pool,
        edison_limit=limit,
        tcg_2010_03=status.get(konami_id) if konami_id is not None else None,
        tcg_current=_CURRENT.get(str(row.get("tcg_status_current") or "")),
        texts=texts,
    )
