"""CPU per question, split: the query embedding, then the reasoning without it.

`embed` is the question's embedding alone (the configured embedder, nothing cached). The
embeddings are then kept, so the other timings are of the answer itself: `read` (kb.reading),
`match` (kb.reason.statement_match over every statement) and `answer` (the whole answerer,
embedding cached). Questions are the items of the given sets, each asked once, in process (no
HTTP); CPU time of the process (every thread of the embedder counts).

Usage: python -m bench.reasoning --data data [--sets qa_holdout5,qa_holdout6,real_rulings]
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from kb.evaluation import read_jsonl
from kb.reading import read_question

REPO = Path(__file__).resolve().parents[1]


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * share))]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=None, help="data directory (YGO_DATA_DIR)")
    parser.add_argument("--sets", default="qa_holdout5,qa_holdout6,real_rulings,real_formats")
    args = parser.parse_args(argv)

    from api.runtime import load_runtime
    from kb.config import Settings

    runtime = load_runtime(Settings.from_env(data_dir=args.data))
    answerer = runtime.service.answerer
    questions = [
        (str(it["q"]), it.get("format"))
        for name in args.sets.split(",")
        for it in read_jsonl(REPO / "tests" / "data" / f"{name}.jsonl")
    ]
    timings: dict[str, list[float]] = {"embed": [], "read": [], "match": [], "answer": []}
    for q, _ in questions:
        t0 = time.process_time()
        answerer.index._embed_query(q)
        timings["embed"].append((time.process_time() - t0) * 1000)
        answerer.index._query_vec(q)  # kept: the reasoning below is measured without it
    for q, fmt in questions:
        # The whole answer first, while the question is new to the linker's and reader's memories
        # (what a fresh question costs); then its parts.
        t0 = time.process_time()
        answerer.answer(q, fmt, 5)
        t1 = time.process_time()
        asked = answerer.read(q, fmt)
        t2 = time.process_time()
        reading = read_question(
            q, asked.mentions, asked.lang if asked.lang in ("pt", "en") else None
        )
        t3 = time.process_time()
        answerer.statements.decide(reading, asked.format, answerer.index._query_vec(q))
        t4 = time.process_time()
        timings["answer"].append((t1 - t0) * 1000)
        timings["read"].append((t3 - t2) * 1000)
        timings["match"].append((t4 - t3) * 1000)
    print(f"CPU per question, {len(questions)} questions: the embedding, then the reasoning (ms)")
    for name, values in timings.items():
        print(
            f"  {name:<7} median {statistics.median(values):6.2f}"
            f"  p95 {percentile(values, 0.95):6.2f}"
        )


if __name__ == "__main__":
    main()
