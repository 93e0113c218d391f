"""HTTP latency and start-up benchmark against a real `ygo-rulings serve` on loopback.

Measures: server start with a built KB (artifact + model load, spawn → /health OK), and warm
/search and /ask latency at concurrency 1 (median, p95) over the project's evaluation queries.
With ``--rounds N`` the server is started N times and the summary holds each number's median
over the rounds (the machine is shared, so one round can be noisy).
Usage: python -m bench.http [--data DIR] [--n 200] [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

REPO = Path(__file__).resolve().parents[1]


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _queries(name: str, key: str) -> list[str]:
    lines = (REPO / "tests" / "data" / name).read_text("utf-8").splitlines()
    return [json.loads(line)[key] for line in lines if line.strip()]


def _pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p * (len(ordered) - 1)))]


def _timed(client: httpx.Client, method: str, url: str, **kw: object) -> float:
    t0 = time.perf_counter()
    r = client.request(method, url, **kw)  # type: ignore[arg-type]
    elapsed = (time.perf_counter() - t0) * 1000
    r.raise_for_status()
    return elapsed


def run_round(exe: str, data: Path, n: int) -> dict[str, Any]:
    """Start a server, measure its start and the warm latencies, stop it."""
    port = _port()
    base = f"http://127.0.0.1:{port}"
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [exe, "serve", "--data", str(data), "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "HF_HUB_OFFLINE": "1"},
    )
    try:
        with httpx.Client(timeout=30) as client:
            while True:
                try:
                    if client.get(base + "/health").status_code == 200:
                        break
                except httpx.HTTPError:
                    time.sleep(0.05)
                if time.perf_counter() - t0 > 120:
                    raise SystemExit("server did not start")
            start_s = time.perf_counter() - t0
            model = client.get(base + "/health").json().get("model")
            # Every measured request is a query the server has not seen (no query-embedding cache hits).
            searches = _queries("retrieval.jsonl", "q")[:n]
            questions = _queries("qa.jsonl", "q")[:n]
            for i in range(20):
                client.get(base + "/search", params={"q": f"aquecimento {i} warm-up"})
                client.post(base + "/ask", json={"question": f"pergunta de aquecimento {i}?"})
            search_ms = [
                _timed(client, "GET", base + "/search", params={"q": q, "k": 10}) for q in searches
            ]
            ask_ms = [
                _timed(client, "POST", base + "/ask", json={"question": q}) for q in questions
            ]
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    return {
        "model": model,
        "server_start_s": round(start_s, 2),
        "search_ms": _summary(search_ms),
        "ask_ms": _summary(ask_ms),
    }


def _summary(values: list[float]) -> dict[str, float]:
    return {
        "median": round(statistics.median(values), 1),
        "p95": round(_pct(values, 0.95), 1),
        "n": len(values),
    }


def _median_of(rounds: list[dict[str, Any]]) -> dict[str, Any]:
    """Each number's median over the rounds."""

    def med(values: list[float]) -> float:
        return round(statistics.median(values), 2)

    return {
        "server_start_s": med([r["server_start_s"] for r in rounds]),
        **{
            route: {
                "median": med([r[route]["median"] for r in rounds]),
                "p95": med([r[route]["p95"] for r in rounds]),
                "n": rounds[0][route]["n"],
            }
            for route in ("search_ms", "ask_ms")
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, default=REPO / "data")
    parser.add_argument("--n", type=int, default=1000, help="at most this many queries per route")
    parser.add_argument("--rounds", type=int, default=1, help="start the server this many times")
    args = parser.parse_args()
    exe = shutil.which("ygo-rulings", path=str(Path(sys.executable).parent)) or "ygo-rulings"
    subprocess.run([exe, "stats", "--data", str(args.data)], check=True, capture_output=True)
    rounds = []
    for _ in range(max(1, args.rounds)):
        rounds.append(run_round(exe, args.data, args.n))
        print(json.dumps(rounds[-1]), file=sys.stderr)
    env = ("YGO_EMBEDDER", "YGO_QUANTIZE", "OMP_WAIT_POLICY")
    result = {
        "machine": {"cpus": os.cpu_count()},
        "environment": {name: os.environ[name] for name in env if name in os.environ},
        "model": rounds[0]["model"],
        "rounds": len(rounds),
        **(_median_of(rounds) if len(rounds) > 1 else rounds[0]),
    }
    print(json.dumps(result, indent=2))
    out = REPO / "bench" / "results"
    out.mkdir(exist_ok=True)
    (out / "http.json").write_text(json.dumps(result, indent=2), "utf-8")


if __name__ == "__main__":
    main()
