"""Query-embedding CPU per question and process memory, for each embedding runner.

Each runner (`YGO_EMBEDDER` value) is measured in a fresh process of its own, on the same
questions: the process's RSS before the embedder is made (Python, numpy and the project's
modules), after, and after embedding every question; its peak RSS; whether torch was imported;
then the CPU time (this thread's) of `embed_queries([question])`, one question at a time, as
`/ask` embeds them: median and p95. The first `--warmup` questions of a different set run
first and are not counted (the runners cache per-word work: the timed questions are unseen).
The vectors' agreement (min / mean cosine to the first runner's) is reported too.

A runner is a `YGO_EMBEDDER` value, optionally with a `YGO_QUANTIZE` value: `torch:none` is
the float32 reference.

With `--service` each process loads the whole service (the KB, its indexes, the cached passage
vectors) and measures its embedder: the RSS is then the serving process's.

Usage: python -m bench.embedding [--data DIR] [--runners torch:none,torch,onnx] [--sets …]
       [--service]
Writes bench/results/embedding.json (or embedding-service.json) and prints a markdown table.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[1]
DEFAULT_SETS = "retrieval,real_rulings,real_formats,qa_holdout5,qa_holdout6"
WARMUP_SET = "qa"


def rss_mb(field: str = "VmRSS") -> float:
    """This process's resident memory (``VmRSS``) or its peak (``VmHWM``), in MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return float("nan")


def questions(sets: str) -> list[str]:
    """The ``q`` of every item of the named ``tests/data`` sets, in order."""
    from kb.evaluation import read_jsonl

    return [
        str(item["q"])
        for name in sets.split(",")
        for item in read_jsonl(REPO / "tests" / "data" / f"{name}.jsonl")
    ]


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * share))]


def measure(
    runner: str, data: Path | None, sets: str, warmup: int, vectors: Path, service: bool
) -> dict[str, Any]:
    """Measure one runner in this process (the child's side); with ``service``, the whole
    service is loaded (KB, indexes, cached passage vectors) and its embedder measured."""
    from api.runtime import load_runtime, make_embedder
    from kb.config import Settings

    asked = questions(sets)
    before = rss_mb()
    started = time.perf_counter()
    backend, _, quantize = runner.partition(":")
    settings = Settings.from_env(data_dir=data, embedder=backend, quantize=quantize or None)
    embedder = load_runtime(settings).service.index.embedder if service else make_embedder(settings)
    assert embedder is not None
    load_seconds = time.perf_counter() - started
    loaded = rss_mb()
    for question in questions(WARMUP_SET)[:warmup]:
        embedder.embed_queries([question])
    cpu_ms: list[float] = []
    rows = []
    for question in asked:
        t0 = time.thread_time()
        rows.append(embedder.embed_queries([question])[0])
        cpu_ms.append((time.thread_time() - t0) * 1000)
    np.save(vectors, np.stack(rows))
    return {
        "runner": runner,
        "name": embedder.name,
        "warning": getattr(embedder, "warning", None),
        "questions": len(asked),
        "load_seconds": round(load_seconds, 2),
        "cpu_ms_median": round(statistics.median(cpu_ms), 2),
        "cpu_ms_p95": round(percentile(cpu_ms, 0.95), 2),
        "rss_mb_before": round(before),
        "rss_mb_loaded": round(loaded),
        "rss_mb_after": round(rss_mb()),
        "rss_mb_peak": round(rss_mb("VmHWM")),
        "torch_imported": "torch" in sys.modules,
    }


def run_child(runner: str, args: argparse.Namespace, vectors: Path) -> dict[str, Any]:
    """Measure ``runner`` in a fresh interpreter and return its result."""
    command = [sys.executable, "-m", "bench.embedding", "--child", runner, "--sets", args.sets]
    command += ["--warmup", str(args.warmup), "--vectors", str(vectors)]
    command += ["--service"] if args.service else []
    if args.data is not None:
        command += ["--data", str(args.data)]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    out = subprocess.run(command, capture_output=True, text=True, check=True, env=env, cwd=REPO)
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def table(results: list[dict[str, Any]]) -> str:
    """The results as a markdown table."""
    lines = [
        "| runner | name | CPU/question median | p95 | RSS before → loaded → after | peak | "
        "torch | cosine to first (min / mean) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        lines.append(
            f"| {r['runner']} | `{r['name']}` | {r['cpu_ms_median']} ms | {r['cpu_ms_p95']} ms | "
            f"{r['rss_mb_before']} → {r['rss_mb_loaded']} → {r['rss_mb_after']} MB | "
            f"{r['rss_mb_peak']} MB | {'yes' if r['torch_imported'] else 'no'} | "
            f"{r['cosine_min']:.5f} / {r['cosine_mean']:.5f} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=None, help="data directory (YGO_DATA_DIR)")
    parser.add_argument("--runners", default="torch:none,torch,onnx")
    parser.add_argument("--sets", default=DEFAULT_SETS)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument(
        "--service", action="store_true", help="load the whole service, not the embedder alone"
    )
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--vectors", type=Path, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child is not None:
        assert args.vectors is not None
        result = measure(args.child, args.data, args.sets, args.warmup, args.vectors, args.service)
        print(json.dumps(result))
        return
    out_dir = REPO / "bench" / "results"
    out_dir.mkdir(parents=True, exist_ok=True)
    results = []
    for runner in args.runners.split(","):
        vectors = out_dir / f".embedding-{runner.replace(':', '-')}.npy"
        results.append(run_child(runner, args, vectors))
        results[-1]["_vectors"] = vectors
    first = np.load(results[0]["_vectors"])
    for r in results:
        cosines = np.sum(np.load(r["_vectors"]) * first, axis=1)
        r["cosine_min"], r["cosine_mean"] = float(cosines.min()), float(cosines.mean())
        Path(r.pop("_vectors")).unlink()
    report = {"load": os.getloadavg(), "cores": os.cpu_count(), "results": results}
    name = "embedding-service.json" if args.service else "embedding.json"
    (out_dir / name).write_text(json.dumps(report, indent=2) + "\n")
    print(table(results))
    print(f"load average {os.getloadavg()}")


if __name__ == "__main__":
    main()
