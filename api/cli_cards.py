"""`ygo-rulings cards …`: import card data into the card-facts table, or fetch it from the API.

Registered by api/cli.py as the `cards` group. The helpers of the main CLI (settings, fail,
guarded, emit) are imported when a command runs, so this module and api/cli.py can import each
other in any order.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

cards_app = typer.Typer(no_args_is_help=True, help="The card database: import, fetch")

PathsArg = Annotated[
    list[Path],
    typer.Argument(
        help="Card data: cards_en_pt.sqlite, yaml-yugi JSON files or folders, YGOPRODeck "
        "card-info JSON, EDOPro lflist.conf.",
    ),
]
CorpusOpt = Annotated[
    Path | None, typer.Option("--corpus", help="Corpus directory (YGO_CORPUS_DIR).")
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print the import report as JSON.")]
UrlOpt = Annotated[str | None, typer.Option("--url", help="The YGOPRODeck card-info endpoint.")]


def _summary(report: Any) -> str:
    limits = report.tcg_2010_03
    lines = [
        f"wrote {report.table}: {report.cards} cards ({report.added} added, {report.updated} "
        f"updated), {report.with_pt_and_en} with pt and en names",
        f"card pool: {report.edison_pool}; 2010-03-01 list: {limits['forbidden']} forbidden, "
        f"{limits['limited']} limited, {limits['semi_limited']} semi-limited",
    ]
    agreement = report.agreement
    if agreement.get("compared"):
        rates = ", ".join(f"{k} {v:.1%}" for k, v in agreement["agreement"].items())
        lines.append(
            f"agreement with the curated table ({agreement['compared']} cards): {rates}; "
            f"{agreement['disagreements']} disagreements"
        )
    lines.append(f"conflicts with the curated table: {len(report.conflicts)}")
    lines += [
        f"  card/{c.card} {c.field}: curated {c.curated}, data {c.imported}"
        for c in report.conflicts
    ]
    return "\n".join(lines)


def _show(report: Any, as_json: bool) -> None:
    from api.cli import emit, out

    if as_json:
        emit(report.as_dict())
    else:
        out.print(_summary(report), highlight=False, soft_wrap=True)


@cards_app.command("import")
def import_(paths: PathsArg, corpus: CorpusOpt = None, as_json: JsonOpt = False) -> None:
    """Merge card data into corpus/carddb/cards.tsv (atomic: on an error nothing changes)."""
    from api.cli import guarded, settings
    from ingest.carddata import import_cards

    s = settings(corpus=corpus)
    report = guarded(lambda: import_cards(paths, s.corpus_dir))
    _show(report, as_json)


@cards_app.command()
def fetch(url: UrlOpt = None, corpus: CorpusOpt = None, as_json: JsonOpt = False) -> None:
    """Download the YGOPRODeck card info (English and Portuguese) and import it."""
    from api.cli import guarded, settings
    from ingest.carddata import fetch_cards
    from ingest.carddata.importer import API_URL

    s = settings(corpus=corpus)
    report = guarded(lambda: fetch_cards(s.corpus_dir, url or API_URL))
    _show(report, as_json)
