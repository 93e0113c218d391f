"""Memory of a forked server, per process: right after the start, then after every worker served
each kind of request (what a worker builds on first use is its own; what the supervisor built
before the fork is shared until written).

Starts `ygo-rulings serve --workers N` (default 0: one per core; answer cache off), reads RSS, PSS
and private memory of every process from /proc/<pid>/smaps_rollup once `/health` answers, sends
fresh questions to `/ask` and `/search` and a few card, deck, list and quiz requests (several
connections, so every worker gets some), then reads them again.

Usage: python -m bench.memory [--data DIR] [--workers N] [--n 40] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import sys
import time
from pathlib import Path
from typing import Any

from bench.http import Call, _run_cell, ask, cold_start, memory, search
from bench.questions import fresh_questions, listed_format

REPO = Path(__file__).resolve().parents[1]
LISTED = listed_format()
DECK = (REPO / "tests" / "data" / "decks" / "edison_four_copies.txt").read_text("utf-8")


def traffic(n: int, seed: int) -> list[Call]:
    """`n` fresh questions to /ask and to /search, and a few of every card and quiz route."""
    questions = fresh_questions(seed)
    calls = [ask(next(questions)) for _ in range(n)] + [search(next(questions)) for _ in range(n)]
    for i in range(8):
        calls += [
            Call("GET", "/cards", {"params": {"q": f"dragao {i}", "k": 5}}),
            Call("GET", "/cards/card/pot-of-greed/legality", {"params": {"format": LISTED}}),
            Call("GET", "/banlist", {"params": {"format": LISTED}}),
            Call("POST", "/deck/validate", {"json": {"format": LISTED, "deck": DECK}}),
            Call("GET", "/quiz", {"params": {"n": 5, "seed": i}}),
        ]
    return calls


def table(title: str, mem: dict[str, Any]) -> str:
    lines = [
        f"{title}: {mem['processes']} processes, RSS {mem['rss_mb']} MB summed, "
        f"PSS {mem['pss_mb']} MB",
        "",
        "| process | RSS MB | PSS MB | private MB |",
        "|---|---|---|---|",
    ]
    lines += [
        f"| {e['pid']} `{e['command']}` | {e['rss_mb']} | {e['pss_mb']} | {e['private_mb']} |"
        for e in mem["each"]
    ]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=REPO / "data")
    parser.add_argument("--workers", type=int, default=0)
    parser.add_argument("--n", type=int, default=40, help="fresh questions to /ask and /search")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    exe = shutil.which("ygo-rulings", path=str(Path(sys.executable).parent)) or "ygo-rulings"
    seed = args.seed if args.seed is not None else time.time_ns() % 2**31
    proc, base, start = cold_start(exe, args.data, args.workers)
    try:
        started = memory(proc.pid)
        load = asyncio.run(_run_cell(base, traffic(args.n, seed), 4))
        served = memory(proc.pid)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    result = {"cold_start": start, "started": started, "served": served, "traffic": load}
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(f"first /health {start['health_s']} s; {load['n']} requests, {load['errors']} errors\n")
    print(table("After the start", started))
    print(table("After every worker served each kind of request", served))


if __name__ == "__main__":
    main()
