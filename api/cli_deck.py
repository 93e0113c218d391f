"""Card commands of `ygo-rulings`: `cards search`, `cards legality`, `cards report`, `banlist`,
`deck check`.

Each prints what its HTTP route returns with `--json` (GET /cards, GET /cards/{id}/legality,
GET /cards/{id}/report, GET /banlist, POST /deck/validate) and a short text otherwise. `register(app)` adds them to the
main app; `cards search` and `cards legality` join the `cards` group of `api.cli_cards`.
The shared helpers of `api.cli` are imported inside the commands (that module imports this one).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer

DataOpt = Annotated[Path | None, typer.Option("--data", help="Data directory (YGO_DATA_DIR).")]
CorpusOpt = Annotated[
    Path | None, typer.Option("--corpus", help="Corpus directory (YGO_CORPUS_DIR).")
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of text.")]
ServerOpt = Annotated[
    str | None,
    typer.Option(
        "--server",
        help="Ask the running server at this URL instead of loading the KB (YGO_SERVER).",
    ),
]
FormatOpt = Annotated[
    str | None,
    typer.Option(
        "--format",
        help="A format id declared in the manifest (see `stats`); default: the first format "
        "declaring what the command needs.",
    ),
]

deck_app = typer.Typer(no_args_is_help=True, help="Check decks against a format's card rules.")


def cards_search(
    q: Annotated[str, typer.Argument(help="A card name or its beginning, pt or en")],
    type_: Annotated[
        str | None, typer.Option("--type", help="monster, spell, trap or a monster class")
    ] = None,
    attribute: Annotated[str | None, typer.Option(help="DARK, LIGHT, EARTH …")] = None,
    fmt: Annotated[
        str | None, typer.Option("--format", help="Only cards in this format's card pool")
    ] = None,
    k: Annotated[int, typer.Option("--k", help="Number of hits (1..100).")] = 10,
    data: DataOpt = None,
    corpus: CorpusOpt = None,
    server: ServerOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Find cards by name (accents and typos forgiven; prefixes for search-as-you-type)."""
    from api import cli as base

    s = base.settings(data, corpus, server=server)
    result = base.guarded(
        lambda: base.service(s, remote=True).cards(
            q, type=type_, attribute=attribute, format=fmt, k=k
        )
    )
    if as_json:
        base.emit(result)
        return
    for i, h in enumerate(result["hits"], 1):
        stats = " ".join(
            f"{key} {h[key]}" for key in ("level", "rank", "atk", "def") if h.get(key) is not None
        )
        kind = " ".join(x for x in (h["attribute"], h["property"], h["card_type"]) if x)
        base.out.print(
            f"[bold]{i}. {h['name_en']}[/bold] / {h['name_pt'] or '—'} [dim]{h['id']}[/dim] "
            f"({kind}{', ' + stats if stats else ''}) score {h['score']:.3f}",
            soft_wrap=True,
            highlight=False,
        )


def cards_legality(
    card_id: Annotated[str, typer.Argument(help="card/<slug>, the slug or the password")],
    fmt: FormatOpt = None,
    data: DataOpt = None,
    corpus: CorpusOpt = None,
    server: ServerOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Whether a card may be used in a format, how many copies, and the rule that says so."""
    from api import cli as base

    s = base.settings(data, corpus, server=server)
    result = base.guarded(lambda: base.service(s, remote=True).card_legality(card_id, format=fmt))
    if as_json:
        base.emit(result)
        return
    verdict = "[green]legal[/green]" if result["legal"] else "[red]not legal[/red]"
    base.out.print(
        f"{verdict} in {result['format']} (limit {result['limit']}): {result['reason']}",
        soft_wrap=True,
    )
    _print_source(result.get("source"))


def cards_report(
    card_id: Annotated[str, typer.Argument(help="card/<slug>, the slug, password or exact name")],
    fmt: Annotated[
        str | None,
        typer.Option("--format", help="Only this format's legality (default: every format)"),
    ] = None,
    data: DataOpt = None,
    corpus: CorpusOpt = None,
    server: ServerOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Everything about one card: facts, legality per format, rules of its classes, mentions."""
    from api import cli as base

    s = base.settings(data, corpus, server=server)
    result = base.guarded(lambda: base.service(s, remote=True).card(card_id, format=fmt))
    if as_json:
        base.emit(result)
        return
    card = result["card"]
    base.out.print(f"[bold]{card['label_en']}[/bold] / {card['label_pt'] or '—'} ({card['id']})")
    for f in card["out"]:
        base.out.print(f"  → {f['predicate']} {f['object']} ({f['authority']})", highlight=False)
    for item in result["legality"]:
        base.out.print(f"  {item['format']}: {item['status']}, limit {item['limit']}")
    for found in result["class_rules"]:
        base.out.print(f"[bold]{found['label_en'] or found['concept']}[/bold]")
        for p in found["passages"]:
            _print_span(p)
    if result["named_in"]:
        base.out.print("[bold]Named in[/bold]")
    for p in result["named_in"]:
        _print_span(p)


def banlist(
    fmt: FormatOpt = None,
    as_: Annotated[
        str, typer.Option("--as", help="json or lflist (an EDOPro lflist.conf)")
    ] = "json",
    data: DataOpt = None,
    corpus: CorpusOpt = None,
    server: ServerOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """A format's Forbidden & Limited list (GET /banlist); `--as lflist` for EDOPro."""
    from api import cli as base

    if as_ not in ("json", "lflist"):
        base.fail(f"--as: unknown list format {as_!r}; use json or lflist", 2)
    s = base.settings(data, corpus, server=server)
    if as_ == "lflist":
        sys.stdout.write(base.guarded(lambda: base.service(s, remote=True).lflist(format=fmt)))
        return
    result = base.guarded(lambda: base.service(s, remote=True).banlist(format=fmt))
    if as_json:
        base.emit(result)
        return
    base.out.print(
        f"[bold]{result['label']}[/bold] — list effective {result['effective']}\n"
        f"[dim]{result['provenance']}[/dim]",
        soft_wrap=True,
    )
    for key, title in (
        ("forbidden", "Forbidden"),
        ("limited", "Limited"),
        ("semi_limited", "Semi-Limited"),
    ):
        base.out.print(f"\n[bold]{title}[/bold] ({len(result[key])})")
        for c in result[key]:
            outside = "  [dim](not in the card pool)[/dim]" if c.get("in_pool") is False else ""
            base.out.print(f"  {c['name_en']} / {c['name_pt'] or '—'}{outside}", highlight=False)


@deck_app.command("check")
def deck_check(
    files: Annotated[
        list[Path],
        typer.Argument(
            help="A .ydk file or a card list (- for stdin); two files: each duelist's own deck"
        ),
    ],
    fmt: FormatOpt = None,
    data: DataOpt = None,
    corpus: CorpusOpt = None,
    server: ServerOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Check a deck (POST /deck/validate): sizes, card pool, Forbidden & Limited list.
    Exits 1 when the deck breaks a rule."""
    from api import cli as base

    texts = [_read(f) for f in files]
    s = base.settings(data, corpus, server=server)
    svc = base.guarded(lambda: base.service(s, remote=True))
    if len(texts) == 1:
        result = base.guarded(lambda: svc.deck_validate(fmt, deck=texts[0]))
    else:
        result = base.guarded(lambda: svc.deck_validate(fmt, decks=texts))
    if as_json:
        base.emit(result)
    else:
        _print_report(base, result)
    if not result["ok"]:
        raise typer.Exit(1)


def _read(path: Path) -> str:
    from api.cli import fail

    if str(path) == "-":
        return sys.stdin.read()
    try:
        return path.read_bytes().decode("utf-8-sig")
    except FileNotFoundError:
        fail(f"{path}: no such file", 2)
    except UnicodeDecodeError:
        fail(f"{path}: not UTF-8 text (expected a .ydk file or a card list)", 2)
    except OSError as exc:
        fail(f"{path}: {exc.strerror}", 2)


def _print_source(source: dict[str, Any] | None) -> None:
    from api import cli as base

    if source:
        base.out.print(
            f"  [dim]{source['authority']} · {source['id']}: {source['text']}[/dim]",
            soft_wrap=True,
            highlight=False,
        )


def _print_span(span: dict[str, Any]) -> None:
    """A quoted passage: its id, its offsets in its document, its exact text."""
    from api import cli as base

    base.out.print(
        f"  [dim]{span['id']} [{span['start']}:{span['end']}][/dim] {span['text']}",
        soft_wrap=True,
        highlight=False,
    )


def _print_report(base: Any, result: dict[str, Any]) -> None:
    c = result["counts"]
    head = "[green]legal[/green]" if result["ok"] else "[red]not legal[/red]"
    base.out.print(
        f"{head} in {result['format']}: Main {c['main']}, Extra {c['extra']}, Side {c['side']}"
    )
    for v in result["violations"]:
        who = f"[duelist {v['duelist']}] " if v.get("duelist") else ""
        base.out.print(f"  [red]✗[/red] {who}{v['kind']}: {v['message']}", soft_wrap=True)
        _print_source(v.get("source"))
    for r in result["resolved"]:
        base.out.print(
            f"  [yellow]~[/yellow] line {r['line']}: {r['entry']!r} read as {r['card']}",
            soft_wrap=True,
            highlight=False,
        )


def register(app: typer.Typer) -> None:
    """Add `cards search`, `cards legality`, `cards report`, `banlist` and `deck check` to the
    main app.

    The `cards` group is `api.cli_cards.cards_app` when that module exists (added to the app here
    unless the app already has it), else a group of its own."""
    try:
        from api.cli_cards import cards_app
    except ImportError:  # pragma: no cover - the import commands are optional here
        cards_app = typer.Typer(no_args_is_help=True, help="Find cards and their legality.")
    cards_app.command("search")(cards_search)
    cards_app.command("legality")(cards_legality)
    cards_app.command("report")(cards_report)
    if not any(g.typer_instance is cards_app for g in app.registered_groups):
        app.add_typer(cards_app, name="cards")
    app.command("banlist")(banlist)
    app.add_typer(deck_app, name="deck")
