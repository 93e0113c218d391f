"""The cost of the card database: build, artifact, start-up, memory and answer latency by size.

For each size (the curated cards only; the Edison pool; every card of corpus/carddb/cards.tsv) a
corpus copy holds that much of the table; each is built without embeddings (timed), then loaded
in a fresh process with the real model (start-up: artifact + service, model load reported
apart), and asked the evaluation questions (median and p95 of /ask through the service, warm).

Usage: python -m bench.cards_scale [--n 150] [--json]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
TABLE = Path("carddb") / "cards.tsv"

_PROBE = r"""
import json, resource, statistics, sys, time
from pathlib import Path
t0 = time.perf_counter()
from api.runtime import make_embedder
from kb.config import Settings
from kb.store import load_artifact
from kb.service import RulingsService
from kb.adapters.embedding_cache import cached_embeddings
from kb.search.index import index_texts, clause_texts, claim_texts
settings = Settings.from_env(data_dir=Path(sys.argv[1]), corpus_dir=Path(sys.argv[2]))
t1 = time.perf_counter()
emb = make_embedder(settings)
emb.embed_queries(["warm"])
t2 = time.perf_counter()
art = load_artifact(settings.data_dir)
kg = art.graph
units, parts, claims = index_texts(kg), clause_texts(kg), claim_texts(kg)
vectors, _ = cached_embeddings(emb, [*units, *parts, *claims], settings.data_dir / "cache")
a, b = len(units), len(units) + len(parts)
service = RulingsService(art, settings, emb, vectors[:a], vectors[a:b], vectors[b:])
t3 = time.perf_counter()
questions = json.loads(sys.argv[3])
for q in questions[:10]:
    service.ask(q)
times = []
for q in questions:
    s = time.perf_counter(); service.ask(q); times.append((time.perf_counter() - s) * 1000)
times.sort()
print(json.dumps({
    "imports_s": round(t1 - t0, 2), "model_s": round(t2 - t1, 2), "kb_start_s": round(t3 - t2, 2),
    "ask_median_ms": round(statistics.median(times), 1),
    "ask_p95_ms": round(times[min(len(times) - 1, round(0.95 * (len(times) - 1)))], 1),
    "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024,
    "cards": len(kg.of_type("Card")), "facts": len(kg.facts),
}))
"""


def _questions(n: int) -> list[str]:
    out: list[str] = []
    for name in ("qa.jsonl", "qa_cards.jsonl", "real_rulings.jsonl"):
        for line in (REPO / "tests" / "data" / name).read_text("utf-8").splitlines():
            if line.strip():
                out.append(json.loads(line)["q"])
    return out[:n]


def _subset(table: str, keep: str) -> str:
    lines = table.splitlines(keepends=True)
    head = [ln for ln in lines if ln.startswith("#")]
    body = [ln for ln in lines if not ln.startswith("#")]
    columns = body[0].rstrip("\n").split("\t")
    pool = columns.index("edison_pool")
    rows = body[1:]
    if keep == "none":
        rows = []
    elif keep == "pool":
        rows = [r for r in rows if r.split("\t")[pool] == "1"]
    return "".join([*head, body[0], *rows])


def measure(keep: str, n: int, model_dir: Path | None) -> dict[str, Any]:
    from ingest.build import build_kb

    with tempfile.TemporaryDirectory() as tmp:
        corpus = Path(tmp) / "corpus"
        shutil.copytree(REPO / "corpus", corpus)
        table = (REPO / "corpus" / TABLE).read_text("utf-8")
        (corpus / TABLE).write_text(_subset(table, keep), "utf-8")
        data = Path(tmp) / "data"
        if model_dir is not None and model_dir.exists():
            (data / "models").mkdir(parents=True)
            (data / "models" / model_dir.name).symlink_to(model_dir.resolve())
        t0 = time.perf_counter()
        report = build_kb(corpus, data)
        build_s = time.perf_counter() - t0
        size = sum(f.stat().st_size for f in report.path.rglob("*") if f.is_file())
        probe = subprocess.run(
            [sys.executable, "-c", _PROBE, str(data), str(corpus), json.dumps(_questions(n))],
            capture_output=True,
            text=True,
            check=True,
            cwd=REPO,
        )
        result = json.loads(probe.stdout.strip().splitlines()[-1])
        return {
            "table": keep,
            "build_s": round(build_s, 2),
            "artifact_mb": round(size / 1e6, 1),
            **result,
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=150, help="questions asked per size")
    parser.add_argument(
        "--model-dir", type=Path, default=REPO / "data" / "models" / "multilingual-e5-small"
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows = [measure(keep, args.n, args.model_dir) for keep in ("none", "pool", "all")]
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    cols = [
        "table",
        "cards",
        "facts",
        "build_s",
        "artifact_mb",
        "kb_start_s",
        "model_s",
        "ask_median_ms",
        "ask_p95_ms",
        "rss_mb",
    ]
    print(" | ".join(cols))
    for r in rows:
        print(" | ".join(str(r[c]) for c in cols))


if __name__ == "__main__":
    main()
