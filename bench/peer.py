"""Search quality and latency against txtai, with the same model over the same units.

Both sides run in this one process over the search units of one loaded service:
- ours: the fused ranking (dense + BM25 + graph, as ``kb.evaluation.evaluate_search`` ranks
  it) for Recall@1, Recall@5 and MRR, and the wall time of ``RulingsService.search(q, k=10)``
  per query (what ``/search`` runs), after a few warm-up queries;
- txtai: an ``Embeddings`` index over the same unit ids and texts (``SearchIndex.texts``, what
  our dense index embeds), loading the same prepared model folder with the e5 prefixes
  (``query: `` / ``passage: ``) given as its ``instructions``, faiss backend, no content stored:
  the same metrics over ``embeddings.search(q, 10)``, its wall time per query, the time to
  build the index and the process memory (RSS) it added.

A check beside the numbers: the cosine between txtai's vectors and ours for the first units and
queries (near 1.0 when both embed the same prefixed text with the same model; our runner may be
int8, txtai's is float32).

txtai is not a dependency of the project (``pip install txtai``); without it the run is
skipped (``{"skipped": ...}`` with ``--json``), exit status 0.
Usage: python -m bench.peer --data DIR [--set PATH] [--json]
"""

from __future__ import annotations

import argparse
import importlib
import importlib.metadata
import importlib.util
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
DEPTH = 10  # results per query, and how deep MRR looks
WARM_UP = ("aquecimento da busca", "warm-up search query", "corrente e Spell Speed")
AGREEMENT_SAMPLE = 32
SKIPPED = "txtai is not installed"


class PeerUnavailable(Exception):
    """txtai is installed but cannot be imported."""


def available() -> bool:
    """Whether txtai (and faiss, its default backend) can be imported.

    Looks the packages up without importing them: importing txtai loads torch and transformers
    (several seconds), which a caller that only decides whether to run the comparison in a
    subprocess should not pay. An install that is found but fails to import is reported by
    ``main`` as skipped, with the error.
    """
    try:
        return all(importlib.util.find_spec(name) is not None for name in ("txtai", "faiss"))
    except (ImportError, ValueError):
        return False


def ranking_metrics(rankings: list[list[str]], relevant: list[set[str]]) -> dict[str, float]:
    """Recall@1, Recall@5 and MRR (first relevant id within the first 10) of `rankings`.

    The definitions of ``kb.evaluation.evaluate_search``: a query counts for Recall@k when a
    relevant id is among its first k; its reciprocal rank is 1 / position of the first relevant
    id, 0 when none is in the first 10; each is averaged over the queries.
    """
    from kb.evaluation import ranking_metrics as ranked

    got = ranked([r[:DEPTH] for r in rankings], relevant)
    return {name: float(got[name]) for name in ("recall@1", "recall@5", "mrr")}


def _percentile(values: list[float], p: float) -> float:
    """The value at rank round(p·(n−1)) of the sorted values (0.0 for none)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p * (len(ordered) - 1)))]


def _latency(ms: list[float]) -> dict[str, float]:
    return {
        "p50_ms": round(statistics.median(ms), 2) if ms else 0.0,
        "p95_ms": round(_percentile(ms, 0.95), 2),
    }


def rss_mb() -> float:
    """This process's resident set size (VmRSS of /proc/self/status), in MB; 0.0 if unknown."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0.0


def _offline() -> None:
    """No network for model files: the prepared folder is read as it is."""
    for name in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"):
        os.environ[name] = "1"
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")


def _min_cosine(a: Any, b: Any) -> float:
    """The smallest cosine between matching rows of two matrices."""
    import numpy as np

    x, y = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    y /= np.linalg.norm(y, axis=1, keepdims=True)
    return round(float(np.min(np.sum(x * y, axis=1))), 4)


def _queries(items: list[dict[str, Any]]) -> tuple[list[str], list[set[str]]]:
    """The items' questions and relevant ids; an item missing either is an error."""
    queries, relevant = [], []
    for i, item in enumerate(items):
        rel = set(item.get("relevant") or [])
        if not item.get("q") or not rel:
            raise ValueError(f"item {item.get('id', i)} needs 'q' and 'relevant'")
        queries.append(str(item["q"]))
        relevant.append(rel)
    return queries, relevant


def ours(service: Any, queries: list[str], relevant: list[set[str]]) -> dict[str, Any]:
    """Our fused ranking's metrics and ``service.search``'s wall time per query."""
    from kb.search.index import SearchOptions

    index = service.index
    for q in WARM_UP:
        service.search(q, k=DEPTH)
    # Timed first: the index keeps each query's vector, so timing after ranking the same
    # queries would leave the model out of every query.
    ms = []
    for q in queries:
        t0 = time.perf_counter()
        service.search(q, k=DEPTH)
        ms.append((time.perf_counter() - t0) * 1000)
    rankings = []
    for q in queries:
        mentions = index.linker.link(q, fuzzy=True)
        hits = index.search(q, SearchOptions(k=DEPTH), mentions)
        rankings.append([h.node.id for h in hits])
    embedder = getattr(index.embedder, "name", None)
    return {**ranking_metrics(rankings, relevant), **_latency(ms), "embedder": embedder}


def peer(
    service: Any, queries: list[str], relevant: list[set[str]], model_path: Path | str
) -> dict[str, Any]:
    """txtai's Embeddings over the same units and texts: metrics, latency, build, memory."""
    _offline()
    index = service.index
    ids = [n.id for n in index.units]
    texts = list(index.texts)
    before = rss_mb()
    t0 = time.perf_counter()
    try:
        txtai = importlib.import_module("txtai")
    except ImportError as exc:
        raise PeerUnavailable(f"txtai cannot be imported: {exc}") from exc
    import_s = time.perf_counter() - t0
    imported = rss_mb()
    config = {
        "path": str(model_path),  # a str: txtai takes anything else for an already loaded model
        "instructions": {"query": "query: ", "data": "passage: "},
        "backend": "faiss",
        "content": False,
    }
    t0 = time.perf_counter()
    embeddings = txtai.Embeddings(config)
    embeddings.index(list(zip(ids, texts, strict=True)))
    build_s = time.perf_counter() - t0
    added = rss_mb() - before

    agreement: dict[str, float] = {}
    if index.vectors is not None and index.embedder is not None:
        n = min(AGREEMENT_SAMPLE, len(texts))
        agreement["passage_cosine_min"] = _min_cosine(
            embeddings.batchtransform(texts[:n], category="data"), index.vectors[:n]
        )
        sample = queries[:AGREEMENT_SAMPLE]
        agreement["query_cosine_min"] = _min_cosine(
            embeddings.batchtransform(sample, category="query"),
            index.embedder.embed_queries(sample),
        )

    for q in WARM_UP:
        embeddings.search(q, DEPTH)
    ms, rankings = [], []
    for q in queries:
        t0 = time.perf_counter()
        found = embeddings.search(q, DEPTH)
        ms.append((time.perf_counter() - t0) * 1000)
        rankings.append([str(uid) for uid, _score in found])
    try:
        import torch

        threads: int | None = int(torch.get_num_threads())
    except ImportError:
        threads = None
    embeddings.close()
    return {
        **ranking_metrics(rankings, relevant),
        **_latency(ms),
        "build_s": round(build_s, 2),
        "import_s": round(import_s, 2),
        "rss_added_mb": round(added),
        "rss_added_by_import_mb": round(imported - before),
        "version": importlib.metadata.version("txtai"),
        "units": len(ids),
        "torch_threads": threads,
        "agreement": agreement,
    }


def compare(service: Any, items: list[dict[str, Any]], *, model_path: Path | str) -> dict[str, Any]:
    """Ours against txtai on `items` (rows of tests/data/retrieval.jsonl), in this process."""
    queries, relevant = _queries(items)
    mine = ours(service, queries, relevant)
    theirs = peer(service, queries, relevant, model_path)
    return {"queries": len(queries), "ours": mine, "txtai": theirs}


def markdown(result: dict[str, Any]) -> str:
    """The two rows as a Markdown table."""
    lines = [
        f"{result['queries']} queries; txtai {result['txtai'].get('version')} built its index in"
        f" {result['txtai']['build_s']} s, adding {result['txtai']['rss_added_mb']} MB of RSS.",
        "",
        "| search | R@1 | R@5 | MRR | p50 ms | p95 ms |",
        "|---|---|---|---|---|---|",
    ]
    for name in ("ours", "txtai"):
        r = result[name]
        lines.append(
            f"| {name} | {r['recall@1']:.3f} | {r['recall@5']:.3f} | {r['mrr']:.3f}"
            f" | {r['p50_ms']} | {r['p95_ms']} |"
        )
    return "\n".join(lines) + "\n"


def _skip(reason: str, as_json: bool) -> None:
    print(f"bench.peer: skipped: {reason} (pip install txtai to run it)", file=sys.stderr)
    if as_json:
        print(json.dumps({"skipped": reason}))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--data", type=Path, default=None, help="data directory (YGO_DATA_DIR)")
    parser.add_argument(
        "--set",
        type=Path,
        default=REPO / "tests" / "data" / "retrieval.jsonl",
        help="retrieval set (JSONL rows with q and relevant)",
    )
    parser.add_argument("--json", action="store_true", help="print JSON")
    args = parser.parse_args(argv)
    if not available():
        _skip(SKIPPED, args.json)
        return
    _offline()
    from api.runtime import load_runtime, model_path
    from kb.config import Settings
    from kb.evaluation import read_jsonl

    settings = Settings.from_env(data_dir=args.data)
    items = read_jsonl(args.set)
    service = load_runtime(settings).service
    try:
        result = compare(service, items, model_path=model_path(settings))
    except PeerUnavailable as exc:
        _skip(str(exc), args.json)
        return
    print(json.dumps(result, indent=2) if args.json else markdown(result))


if __name__ == "__main__":
    main()
