"""Importing card data into the card-facts table `corpus/carddb/cards.tsv`, atomically.

`import_cards(paths, corpus_dir)` detects each path's format (the card database SQLite file,
yaml-yugi JSON files or a folder of them, a YGOPRODeck card-info JSON response, an EDOPro
lflist.conf), merges the cards into the existing table (by password, Konami id, then English
name), infers their mechanics from the texts it read, and writes the table through a temporary
file and `os.replace`: on any error the table is left as it was. `fetch_cards` downloads the
YGOPRODeck API (English and Portuguese) and imports the responses.
"""

from __future__ import annotations

import os
import tempfile
import urllib.error
import urllib.request
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from ingest.carddata.agreement import Agreement, Difference, compare, conflicts, load_curated
from ingest.carddata.draft import CardDraft, LimitList
from ingest.carddata.lflist import looks_like_lflist, read_lflist
from ingest.carddata.merge import CardMerger
from ingest.carddata.sqlite_source import read_sqlite
from ingest.carddata.yaml_yugi import is_yaml_yugi, load_json, read_yaml_yugi
from ingest.carddata.ygoprodeck import drafts_of, is_ygoprodeck, language_of
from kb.cards.table import CardRecord, format_table, parse_table
from kb.errors import IngestError

FORMATS = ("sqlite", "yaml-yugi", "ygoprodeck", "lflist")
TABLE = Path("carddb") / "cards.tsv"
API_URL = "https://db.ygoprodeck.com/api/v7/cardinfo.php"
_SQLITE_MAGIC = b"SQLite format 3\x00"


@dataclass(frozen=True)
class ImportReport:
    """What an import did: the table written, the inputs and their formats, the counts, the
    conflicts with the curated table and the agreement of the inferred mechanics with it."""

    table: str
    inputs: dict[str, str]
    cards: int
    added: int
    updated: int
    with_pt_and_en: int
    edison_pool: int
    tcg_2010_03: dict[str, int]
    alternate_passwords: dict[str, list[int]] = field(default_factory=dict)
    conflicts: list[Difference] = field(default_factory=list)
    agreement: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class ImportResult:
    """The report and what was written (records, metadata, agreement) for callers that need
    more than the summary (the regenerate command writes the agreement report from it)."""

    report: ImportReport
    records: list[CardRecord]
    meta: dict[str, str]
    agreement: Agreement
    conflicts: list[Difference]


def detect_format(path: Path) -> str:
    """sqlite / yaml-yugi / ygoprodeck / lflist, from the content (not the file name)."""
    if path.is_dir():
        files = sorted(path.glob("*.json"))
        if not files:
            raise IngestError(str(path), "a folder without .json files (expected yaml-yugi cards)")
        return "yaml-yugi"
    if not path.is_file():
        raise IngestError(str(path), "file not found")
    with path.open("rb") as fh:
        head = fh.read(4096)
    if head.startswith(_SQLITE_MAGIC):
        return "sqlite"
    text = head.decode("utf-8", errors="replace").lstrip("\ufeff \t\r\n")
    if text.startswith(("{", "[")):
        data = load_json(path)
        if is_yaml_yugi(data):
            return "yaml-yugi"
        if is_ygoprodeck(data):
            return "ygoprodeck"
        raise IngestError(str(path), "JSON that is neither yaml-yugi nor YGOPRODeck card info")
    try:
        full = path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise IngestError(str(path), f"not valid UTF-8 at byte {exc.start}") from exc
    if looks_like_lflist(full):
        return "lflist"
    raise IngestError(
        str(path),
        "unknown format (expected a card database, yaml-yugi or YGOPRODeck JSON, lflist.conf)",
    )


def read_source(path: Path, fmt: str) -> list[CardDraft] | list[LimitList]:
    """The drafts (or limit lists) of one input in a detected format."""
    if fmt == "sqlite":
        return read_sqlite(path)
    if fmt == "yaml-yugi":
        return read_yaml_yugi(path)
    if fmt == "ygoprodeck":
        data = load_json(path)
        return drafts_of(data, path, language_of(path, data))
    return read_lflist(path)


# The card-record field an lflist pool fills; the list whose name carries its prefix gives it.
POOL_FIELD = "edison_pool"


def edison_list(lists: list[LimitList], path: Path) -> LimitList:
    """The list of a file that gives the pool of `POOL_FIELD`: the last one whose name carries the
    field's prefix, or the only one."""
    hint = POOL_FIELD.removesuffix("_pool")
    named = [lst for lst in lists if hint in lst.name.lower()]
    if named:
        return named[-1]
    if len(lists) == 1:
        return lists[0]
    raise IngestError(
        str(path), f"{len(lists)} lists and none named {hint!r}: {[lst.name for lst in lists]}"
    )


def import_cards(
    paths: Sequence[Path | str],
    corpus_dir: Path | str,
    *,
    table: Path | str | None = None,
    fresh: bool = False,
    meta: dict[str, str] | None = None,
) -> ImportReport:
    """Merge card data into the table (atomically) and report; IngestError names bad input."""
    return run_import(paths, corpus_dir, table=table, fresh=fresh, meta=meta).report


def run_import(
    paths: Sequence[Path | str],
    corpus_dir: Path | str,
    *,
    table: Path | str | None = None,
    fresh: bool = False,
    meta: dict[str, str] | None = None,
) -> ImportResult:
    """`import_cards` returning the records and agreement too."""
    corpus = Path(corpus_dir)
    target = Path(table) if table is not None else corpus / TABLE
    if not paths:
        raise IngestError(str(target), "nothing to import (no paths)")
    base: list[CardRecord] = []
    old_meta: dict[str, str] = {}
    if target.is_file() and not fresh:
        old_meta, base = parse_table(target.read_text("utf-8"), str(target))
    inputs: dict[str, str] = {}
    merger = CardMerger(base)
    lists: list[tuple[LimitList, Path]] = []
    for raw in paths:
        path = Path(raw)
        fmt = detect_format(path)
        inputs[str(path)] = fmt
        if fmt == "lflist":
            lists.append((edison_list(read_lflist(path), path), path))
            continue
        for draft in read_source(path, fmt):
            merger.add(draft, str(path))  # type: ignore[arg-type]
    for lst, _ in lists:
        merger.apply_limits(lst)
    curated = load_curated(corpus)
    records = merger.records(curated.names)
    found = conflicts(records, curated)
    agreement = compare(records, curated)
    before = {r.slug: r for r in base}
    added = sum(1 for r in records if r.slug not in before)
    updated = sum(1 for r in records if r.slug in before and before[r.slug] != r)
    counts = _counts(records)
    header = dict(meta) if meta is not None else _default_meta(old_meta, inputs)
    header.update({k: str(v) for k, v in counts.items() if k not in header})
    write_atomic(target, format_table(header, records))
    report = ImportReport(
        table=str(target),
        inputs=inputs,
        cards=len(records),
        added=added,
        updated=updated,
        with_pt_and_en=counts["with_pt_and_en"],
        edison_pool=counts["edison_pool"],
        tcg_2010_03={
            "forbidden": counts["tcg_2010_03_forbidden"],
            "limited": counts["tcg_2010_03_limited"],
            "semi_limited": counts["tcg_2010_03_semi_limited"],
        },
        alternate_passwords=merger.alternates,
        conflicts=found,
        agreement=agreement.as_dict(),
    )
    return ImportResult(report, records, header, agreement, found)


def _counts(records: list[CardRecord]) -> dict[str, int]:
    status = Counter(r.tcg_2010_03 for r in records if r.tcg_2010_03 is not None)
    return {
        "cards": len(records),
        "with_pt_and_en": sum(1 for r in records if r.name_pt and r.name_en),
        "edison_pool": sum(1 for r in records if r.edison_pool),
        "tcg_2010_03_forbidden": status[0],
        "tcg_2010_03_limited": status[1],
        "tcg_2010_03_semi_limited": status[2],
    }


def _default_meta(old: dict[str, str], inputs: dict[str, str]) -> dict[str, str]:
    """Header lines of an incremental import: the earlier sources plus this import's files."""
    added = "; ".join(f"{Path(p).name} ({fmt})" for p, fmt in inputs.items())
    source = f"{old['source']}; then {added}" if old.get("source") else added
    return {
        "source": source,
        "generated": date.today().isoformat(),
        "command": "ygo-rulings cards import " + " ".join(Path(p).name for p in inputs),
    }


def write_atomic(target: Path, text: str) -> None:
    """Write `text` to `target` through a temporary file in the same folder and os.replace."""
    target.parent.mkdir(parents=True, exist_ok=True)
    mode = target.stat().st_mode & 0o777 if target.exists() else 0o644
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


Fetcher = Callable[[str], bytes]


def _download(url: str) -> bytes:
    request = urllib.request.Request(url, headers={"User-Agent": "ygo-rulings card importer"})
    with urllib.request.urlopen(request, timeout=60) as response:
        data: bytes = response.read()
        return data


def fetch_cards(
    corpus_dir: Path | str, url: str = API_URL, *, fetch: Fetcher | None = None
) -> ImportReport:
    """Download the card info (English, then Portuguese) and import it; offline: IngestError
    and nothing changed."""
    get = fetch or _download
    with tempfile.TemporaryDirectory(prefix="ygo-cards-") as tmp:
        files: list[Path] = []
        for language in ("en", "pt"):
            query = "misc=yes" if language == "en" else f"misc=yes&language={language}"
            full = f"{url}{'&' if '?' in url else '?'}{query}"
            try:
                body = get(full)
            except (urllib.error.URLError, OSError, TimeoutError) as exc:
                reason = getattr(exc, "reason", exc)
                raise IngestError(
                    full, f"cannot download the card data (offline?): {reason}"
                ) from exc
            path = Path(tmp) / f"cardinfo.{language}.json"
            path.write_bytes(body)
            files.append(path)
        return import_cards(files, corpus_dir)
