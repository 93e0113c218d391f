"""`ygo-rulings rules-about`: the rule statements the documents make about a subject.

Prints what GET /rules-about returns with `--json` (the MCP tool `rules_about` too) and a short
text otherwise. The helpers of the main CLI are imported when the command runs, so this module
and api/cli.py can import each other in any order.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

DataOpt = Annotated[Path | None, typer.Option("--data", help="Data directory (YGO_DATA_DIR).")]
CorpusOpt = Annotated[
    Path | None, typer.Option("--corpus", help="Corpus directory (YGO_CORPUS_DIR).")
]


def rules_about(
    subject: Annotated[
        str, typer.Argument(help="A concept, card class, card or format: its id or name, pt or en")
    ],
    fmt: Annotated[
        str | None,
        typer.Option("--format", help="Only statements of this format's documents"),
    ] = None,
    k: Annotated[int, typer.Option("--k", help="Statements to show (1..100).")] = 20,
    data: DataOpt = None,
    corpus: CorpusOpt = None,
    server: Annotated[
        str | None,
        typer.Option(
            "--server",
            help="Ask the running server at this URL instead of loading the KB (YGO_SERVER).",
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of text.")] = False,
) -> None:
    """What the documents state about a subject, each statement with its exact citation."""
    from api import cli as base

    s = base.settings(data, corpus, server=server)
    result = base.guarded(
        lambda: base.service(s, remote=True).rules_about(subject, format=fmt, k=k)
    )
    if as_json:
        base.emit(result)
        return
    found = result["subject"]
    base.out.print(
        f"[bold]{found['label_en'] or found['label_pt'] or found['id']}[/bold] ({found['id']}): "
        f"{result['total']} statements{' in ' + result['format'] if result['format'] else ''}"
    )
    for st in result["statements"]:
        c = st["citation"]
        base.out.print(
            f"  [dim]{st['via']} · {c['document']} {c['start']}:{c['end']} · {st['format']}[/dim] "
            f"{c['text']}",
            soft_wrap=True,
            highlight=False,
        )


def register(app: typer.Typer) -> None:
    """Add `rules-about` to the main app."""
    app.command("rules-about")(rules_about)
