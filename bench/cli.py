"""Wall time of the CLI's query commands: in process (each loads what it needs) and with
`--server` (each sends one request to a running server).

Each command runs `--repeat` times as a new process (the way a user or a script runs it); the
median wall time and the median CPU (user + system of the command's process) are reported. `ask`
and `search` get a fresh question each time (bench.questions), so the server's caches never
answer them.

Usage: python -m bench.cli [--data DIR] [--server URL] [--repeat 3]
(without --server: in process only; bench.http runs both around its own server)
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from bench.questions import fresh_questions, listed_format

REPO = Path(__file__).resolve().parents[1]
LISTED = listed_format()
DECK = REPO / "tests" / "data" / "decks" / "edison_four_copies.txt"


def commands(questions: Iterator[str]) -> dict[str, list[str]]:
    """The measured commands (a fresh question for each `ask` and `search`)."""
    return {
        "ask": ["ask", next(questions), "--json"],
        "search": ["search", next(questions), "--json"],
        "cards search": ["cards", "search", "dragao negro armdo", "--k", "5", "--json"],
        "cards legality": ["cards", "legality", "card/pot-of-greed", "--format", LISTED],
        "deck check": ["deck", "check", str(DECK), "--format", LISTED, "--json"],
        "rules-about": ["rules-about", "concept/chain", "--k", "5", "--json"],
        "stats": ["stats", "--json"],
    }


def timed(argv: list[str]) -> tuple[float, float, int]:
    """(wall seconds, CPU seconds of the process, exit status) of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run(argv, cwd=REPO, capture_output=True, check=False)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.returncode


def cli_times(
    exe: str, data: Path, server: str | None, repeat: int = 3, seed: int = 0
) -> dict[str, dict[str, Any]]:
    """{command: {wall_s, cpu_s, status}} (medians over `repeat` runs): in process, or against
    `server` when given. Exit status 1 of `deck check` is its verdict (the deck breaks a rule)."""
    questions = fresh_questions(seed)
    runs: dict[str, list[tuple[float, float, int]]] = {}
    for _ in range(repeat):
        for name, args in commands(questions).items():
            via = ["--server", server] if server else ["--data", str(data)]
            runs.setdefault(name, []).append(timed([exe, *args, *via]))
    return {
        name: {
            "wall_s": round(statistics.median(r[0] for r in results), 2),
            "cpu_s": round(statistics.median(r[1] for r in results), 2),
            "status": sorted({r[2] for r in results}),
        }
        for name, results in runs.items()
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=REPO / "data")
    parser.add_argument("--server", default=None, help="a running server's URL")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=None)
    args = parser.parse_args()
    exe = shutil.which("ygo-rulings", path=str(Path(sys.executable).parent)) or "ygo-rulings"
    seed = args.seed if args.seed is not None else time.time_ns() % 2**31 + os.getpid()
    result = cli_times(exe, args.data, args.server, args.repeat, seed)
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
