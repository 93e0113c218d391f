"""Regenerating the committed card-facts table from a card-data folder (`../shared/carddata`).

The folder holds `cards_en_pt.sqlite` and `yaml-yugi-edison/` (and a MANIFEST.md naming their
sources and commits). The table is built afresh from those two inputs, in that order, with header
lines recording the source, the date, the command and the counts; the agreement report with the
curated table is written beside it.
"""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path

from ingest.carddata.agreement import report_markdown
from ingest.carddata.importer import ImportResult, run_import, write_atomic
from kb.errors import IngestError

INPUTS = ("cards_en_pt.sqlite", "yaml-yugi-edison")
_ROW = re.compile(r"^\|\s*`([^`]+)`\s*\|[^|]*\|\s*(.+?)\s*\|\s*$")


def sources(folder: Path) -> str:
    """The `source` header: each input with its provenance from the folder's MANIFEST.md."""
    manifest = folder / "MANIFEST.md"
    described: dict[str, str] = {}
    if manifest.is_file():
        for line in manifest.read_text("utf-8").splitlines():
            m = _ROW.match(line.strip())
            if m:
                prov = re.sub(r"\s*\((?:above|below)\)", "", m.group(2).replace("`", ""))
                described[m.group(1).rstrip("/").split("/")[0]] = prov
    parts = []
    for name in INPUTS:
        found = described.get(name)
        parts.append(f"{name} ({found})" if found else name)
    return "; ".join(parts).replace("|", "/").replace("\t", " ")


def regenerate(
    folder: Path,
    out: Path,
    corpus_dir: Path,
    *,
    command: str,
    today: str | None = None,
    report: Path | None = None,
) -> ImportResult:
    """Build the table at `out` from `folder` and write the agreement report."""
    paths = [folder / name for name in INPUTS]
    for p in paths:
        if not p.exists():
            raise IngestError(str(p), "missing from the card-data folder")
    meta = {
        "source": sources(folder),
        "generated": today or date.today().isoformat(),
        "command": command,
    }
    result = run_import(paths, corpus_dir, table=out, fresh=True, meta=meta)
    text = report_markdown(result.agreement, result.conflicts, result.meta)
    write_atomic(report or out.with_name("agreement.md"), text)
    return result
