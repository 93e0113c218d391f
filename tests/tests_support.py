"""Helpers shared by test modules (importable because pytest puts tests/ on sys.path)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

REPO = Path(__file__).resolve().parents[1]


def free_port() -> int:
    """A free TCP port on loopback."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def running_server(
    data: Path,
    extra_env: dict[str, str] | None = None,
    start_timeout: float = 90,
    workers: int = 1,
    corpus: Path | None = None,
) -> Iterator[str]:
    """The real `ygo-rulings serve` (hash embedder, the repo's corpus unless `corpus`) on a free
    loopback port, with `workers` server processes (one by default: tests stay cheap).

    Yields its base URL once /health answers; the process is stopped on exit.
    """
    port = free_port()
    exe = shutil.which("ygo-rulings", path=str(Path(sys.executable).parent)) or "ygo-rulings"
    env = {
        **os.environ,
        "YGO_EMBEDDER": "hash",
        "YGO_CORPUS_DIR": str(corpus or REPO / "corpus"),
        "NO_PROXY": "127.0.0.1,localhost",
        "no_proxy": "127.0.0.1,localhost",
        **(extra_env or {}),
    }
    args = ["serve", "--data", str(data), "--host", "127.0.0.1", "--port", str(port)]
    # The server's output goes to a file beside `data`: a pipe nobody reads fills up (64 KiB of
    # access-log lines) and then blocks the server on its next log line.
    output = data.with_name(data.name + "-server.log").open("w+b")
    proc = subprocess.Popen(
        [exe, *args, "--workers", str(workers)],
        env=env,
        stdout=output,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + start_timeout
        while True:
            if proc.poll() is not None:
                output.seek(0)
                raise RuntimeError(output.read().decode(errors="replace") or "server exited")
            if _answers(base + "/health", timeout=1):
                break
            if time.monotonic() > deadline:
                raise RuntimeError(f"server did not start in {start_timeout:g} s")
            time.sleep(0.2)
        yield base
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        output.close()


def wait_for_sparql(base: str, timeout: float = 90) -> None:
    """Wait until the server's SPARQL workers answer: a query sent while they start is refused
    with a 503 once it outwaits its bound (tests/test_oxigraph_store.py), which a slow or busy
    machine reaches; the tests of the queries themselves start once they are up."""
    deadline = time.monotonic() + timeout
    while not _answers(base + "/sparql", timeout=5, params={"query": "ASK {}"}):
        if time.monotonic() > deadline:
            raise RuntimeError(f"the SPARQL workers did not start in {timeout:g} s")
        time.sleep(0.2)


def _answers(url: str, timeout: float, params: dict[str, str] | None = None) -> bool:
    """Whether a GET of `url` answers 200 now (a refused or failed request: not yet)."""
    try:
        return httpx.get(url, params=params, timeout=timeout).status_code == 200
    except httpx.HTTPError:
        return False


def chain_pair_ids(svc: Any, text: str) -> tuple[str, str] | None:
    """(responder, responded-to) entity ids `kb.reason.chain.chain_pair` reads from a question."""
    from kb.reason.chain import chain_pair

    q = svc.answerer.read(text, None)
    pair = chain_pair(svc.kg, q)
    return (pair[0].entity, pair[1].entity) if pair else None


def jsonld_graph(text: str, base_iri: str | None = None) -> Any:
    """An rdflib Graph of a compacted JSON-LD document whose `@context` is the served context's
    URL: the context is put in place first (rdflib would fetch the URL)."""
    import json

    from rdflib import Graph

    from kb.config import Settings
    from kb.linked_data.jsonld import expand_with

    document = expand_with(json.loads(text), base_iri or Settings().base_iri)
    return Graph().parse(data=json.dumps(document), format="json-ld")


def hand_mentions(text: str, names: dict[str, str]) -> list[Any]:
    """Mentions made by hand for a reader test: each name of `names` (words → entity id) found in
    `text`, longest first, none overlapping another."""
    from kb.reading import Span

    out: list[Span] = []
    for words, entity in sorted(names.items(), key=lambda kv: -len(kv[0])):
        at = text.find(words)
        if at >= 0 and not any(m.start <= at < m.end for m in out):
            out.append(Span(entity, at, at + len(words)))
    return out
