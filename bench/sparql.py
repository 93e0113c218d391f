"""SPARQL benchmark: rdflib's query engine against Oxigraph on queries over the shipped corpus
(`QUERIES`; the Trap Monster and Jinzo ones are shown in docs/linked-data.md).

For each query: the median and p95 of rdflib's engine over the in-memory graph (each run in a
forked child, stopped after --rdflib-timeout seconds), of Oxigraph in this process over the
build's read-only store, and of the endpoint as served (a worker process: check, run, write
JSON). Also: loading (rdflib builds its graph from the KB; Oxigraph opens the store and, at build
time, bulk-loads the N-Triples), and a real `ygo-rulings serve`: its start (spawn → /health) and
its first query after start.
Usage: python -m bench.sparql [--data DIR] [--runs 5] [--rdflib-runs 3] [--rdflib-timeout 60]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any, cast

import httpx
import pyoxigraph as ox
from rdflib import Graph, URIRef
from rdflib.plugins.sparql import prepareQuery

from ingest.build import ensure_kb
from kb.adapters.oxigraph_store import open_store, store_dir
from kb.adapters.sparql_workers import SparqlEndpoint
from kb.config import Settings
from kb.linked_data.rdf import to_rdf
from kb.linked_data.sparql import declared_prefixes

REPO = Path(__file__).resolve().parents[1]
ID = "https://w3id.org/ygo-rulings/id/"
PROLOGUE = """PREFIX ygo: <https://w3id.org/ygo-rulings/vocab#>
PREFIX skos: <http://www.w3.org/2004/02/skos/core#>
PREFIX dcterms: <http://purl.org/dc/terms/>
"""


def _rule_format() -> str:
    """The first declared format (not the base one) with a document: the Trap Monster query's format."""
    import yaml

    manifest = yaml.safe_load((REPO / "corpus" / "manifest.yaml").read_text("utf-8"))
    with_docs = {d["format"] for d in manifest["documents"]}
    return next(f["id"] for f in manifest["formats"] if not f.get("base") and f["id"] in with_docs)


FORMAT = _rule_format()
QUERIES = {
    f"{FORMAT}-rules-about-trap-monsters": PROLOGUE
    + f"""SELECT ?rule ?title (COUNT(DISTINCT ?text) AS ?mentions) WHERE {{
  ?rule a ygo:Rule ; ygo:appliesIn <{ID}format/{FORMAT}> ; skos:prefLabel ?title .
  {{ ?rule ygo:about <{ID}concept/trap-monster> }}
  UNION
  {{ ?text dcterms:isPartOf+ ?rule ; ygo:mentions <{ID}concept/trap-monster> }}
}} GROUP BY ?rule ?title ORDER BY ?rule""",
    "inherent-special-summon-cards": PROLOGUE
    + f"""SELECT ?card ?pt ?en WHERE {{
  ?card a ygo:Card ; ygo:summonedBy <{ID}concept/inherent-special-summon> .
  OPTIONAL {{ ?card skos:prefLabel ?pt FILTER(lang(?pt) = "pt") }}
  OPTIONAL {{ ?card skos:prefLabel ?en FILTER(lang(?en) = "en") }}
}} ORDER BY ?en""",
    "examples-mentioning-jinzo": PROLOGUE
    + f"""SELECT ?example ?of ?text WHERE {{
  ?example a ygo:Example ; ygo:mentions <{ID}card/jinzo> ; ygo:text ?text .
  OPTIONAL {{ ?example ygo:exampleOf ?of }}
}} ORDER BY ?example""",
    "facts-per-card": PROLOGUE
    + """SELECT ?card (COUNT(?f) AS ?n) WHERE { ?f a ygo:Fact ; ygo:subject ?card . ?card a ygo:Card }
GROUP BY ?card ORDER BY DESC(?n) LIMIT 10""",
    "describe-jinzo": f"DESCRIBE <{ID}card/jinzo>",
}


def _pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p * (len(ordered) - 1)))]


def _summary(times: list[float]) -> dict[str, float]:
    return {
        "median_ms": round(statistics.median(times) * 1000, 2),
        "p95_ms": round(_pct(times, 0.95) * 1000, 2),
    }


def _timed(fn: Callable[[], object], runs: int, cpu: list[float] | None = None) -> list[float]:
    """Wall-clock seconds of each run (and this process's CPU seconds into `cpu`)."""
    out = []
    for _ in range(runs):
        t0, c0 = time.perf_counter(), time.process_time()
        fn()
        out.append(time.perf_counter() - t0)
        if cpu is not None:
            cpu.append(time.process_time() - c0)
    return out


# --- rdflib (each run in a forked child that can be stopped) ---------------------------------


def _rdflib_run(conn: Connection, graph: Graph, text: str) -> None:
    query = prepareQuery(text)
    t0 = time.perf_counter()
    rows = len(list(graph.query(query)))
    conn.send((time.perf_counter() - t0, rows))


def rdflib_times(graph: Graph, text: str, runs: int, timeout: float) -> dict[str, Any]:
    """Median / p95 of rdflib's engine, or how long it ran before it was stopped."""
    context = multiprocessing.get_context("fork")  # the child inherits the built graph
    times: list[float] = []
    for _ in range(runs):
        mine, theirs = context.Pipe()
        child = context.Process(target=_rdflib_run, args=(theirs, graph, text), daemon=True)
        child.start()
        if not mine.poll(timeout):
            child.kill()
            child.join()
            return {"stopped_after_s": timeout}
        times.append(mine.recv()[0])
        child.join()
    return _summary(times)


# --- a real server ---------------------------------------------------------------------------


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def served(data: Path, query: str) -> dict[str, float]:
    """Start `ygo-rulings serve` (hash embedder): its start time and its first query's time."""
    exe = shutil.which("ygo-rulings", path=str(Path(sys.executable).parent)) or "ygo-rulings"
    port = _port()
    base = f"http://127.0.0.1:{port}"
    env = {**os.environ, "YGO_EMBEDDER": "hash", "NO_PROXY": "127.0.0.1", "no_proxy": "127.0.0.1"}
    t0 = time.perf_counter()
    serve = [exe, "serve", "--data", str(data), "--port", str(port)]
    proc = subprocess.Popen(serve, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while True:
            if proc.poll() is not None:
                raise RuntimeError("the server exited")
            try:
                if httpx.get(base + "/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.05)
        started = time.perf_counter() - t0
        t1 = time.perf_counter()
        r = httpx.get(base + "/sparql", params={"query": query}, timeout=60)
        first = time.perf_counter() - t1
        r.raise_for_status()
        again = _timed(lambda: httpx.get(base + "/sparql", params={"query": query}), 5)
        return {
            "start_s": round(started, 2),
            "first_query_s": round(first, 3),
            "next_queries_median_s": round(statistics.median(again), 3),
        }
    finally:
        proc.terminate()
        proc.wait(timeout=10)


# --- the run ---------------------------------------------------------------------------------


def run(data: Path, runs: int, rdflib_runs: int, rdflib_timeout: float) -> dict[str, Any]:
    settings = Settings(data_dir=data)
    artifact = ensure_kb(settings.corpus_dir, data).artifact
    base = settings.base_iri
    prefixes = declared_prefixes(base)
    store_path = store_dir(artifact.path, base) / "store"

    t0 = time.perf_counter()
    graph = to_rdf(artifact.graph, base)
    rdflib_load = time.perf_counter() - t0
    t0 = time.perf_counter()
    store = open_store(store_path)
    ox_open = time.perf_counter() - t0
    with tempfile.TemporaryDirectory() as scratch:
        triples = Path(scratch) / "triples.nt"
        graph.serialize(destination=str(triples), format="nt", encoding="utf-8")
        t0 = time.perf_counter()
        ox.Store(str(Path(scratch) / "store")).bulk_load(
            path=str(triples), format=ox.RdfFormat.N_TRIPLES
        )
        ox_load = time.perf_counter() - t0
    for prefix, ns in prefixes.items():
        graph.bind(prefix, URIRef(ns), override=True)

    endpoint = SparqlEndpoint(store_path, 60.0, settings.sparql_max_results, prefixes)
    endpoint.warm()
    results: dict[str, Any] = {}
    try:
        for name, text in QUERIES.items():
            cpu: list[float] = []

            def run_here(t: str = text) -> list[Any]:
                return list(cast(Iterable[Any], store.query(t, prefixes=prefixes)))

            oxigraph = _timed(run_here, runs, cpu)
            served_by_worker = _timed(lambda t=text: endpoint.query(t), runs)  # type: ignore[misc]
            results[name] = {
                "rdflib": rdflib_times(graph, text, rdflib_runs, rdflib_timeout),
                "oxigraph": _summary(oxigraph) | {"cpu_median_ms": _summary(cpu)["median_ms"]},
                "endpoint": _summary(served_by_worker),
            }
            print(name, json.dumps(results[name]), flush=True)
    finally:
        endpoint.close()
    return {
        "triples": len(graph),
        "load_average": os.getloadavg()[0],
        "cores": os.cpu_count(),
        "load": {
            "rdflib_graph_from_kb_s": round(rdflib_load, 2),
            "oxigraph_open_store_s": round(ox_open, 3),
            "oxigraph_bulk_load_s": round(ox_load, 2),
        },
        "queries": results,
        "server": served(data, QUERIES["facts-per-card"]),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=Path("data"))
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--rdflib-runs", type=int, default=3)
    parser.add_argument("--rdflib-timeout", type=float, default=60.0)
    args = parser.parse_args()
    report = run(args.data, args.runs, args.rdflib_runs, args.rdflib_timeout)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
