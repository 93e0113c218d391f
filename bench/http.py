"""HTTP benchmark against a real `ygo-rulings serve` on loopback: speed, memory and quality in one run.

One server start (``--workers``, default 0: one worker per core; the answer cache off,
``YGO_ANSWER_CACHE=0``) measures:
- cold start: spawn → first ``/health`` 200, and spawn → first ``/ask`` 200;
- ``/ask`` and ``/search`` with fresh questions (bench.questions: the evaluation questions with
  their cards swapped for others of the card table, seeded by the clock unless ``--seed``: no
  request repeats one the server saw), and with ``--scenarios`` also SPARQL (the queries of
  bench/sparql.py) and mixed traffic (search, ask, ``/id/…``, quiz, SPARQL), at concurrency 1, 8
  and 32: p50/p95/p99 latency, throughput, errors and the server's CPU per request;
- memory of every server process (the supervisor, its workers, their SPARQL workers): RSS and
  PSS (shared pages split between the processes that map them) of each, and their sums;
- the CLI's wall time per command against this server (``--server``) and, once it is stopped, in
  process (bench.cli; ``--no-cli`` skips both);
- then the answer-quality numbers of ``bench.quality`` (``--no-quality`` skips them);
- and, when txtai is installed, search against it (``bench.peer``: same model, same units, in
  process; ``--no-peer`` skips it).

Requests go out from one asyncio client in this process, which shares the machine's cores with
the server. Results: ``bench/results/http.json`` and ``bench/results/http.md`` (a Markdown table).
Usage: python -m bench.http [--data DIR] [--workers N] [--n 200] [--scenarios ask,search]
       [--seed S] [--no-cli] [--no-quality] [--no-peer]
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from bench import peer as peer_bench
from bench.cli import cli_times
from bench.questions import fresh_questions
from bench.sparql import QUERIES

REPO = Path(__file__).resolve().parents[1]
CONCURRENCY = (1, 8, 32)
CELL_SECONDS = 120.0  # a cell stops sending after this long, whatever its count
SPARQL_ACCEPT = "application/sparql-results+json, text/turtle;q=0.9"


@dataclass(frozen=True)
class Call:
    """One request: method, path and keyword arguments for httpx."""

    method: str
    path: str
    kw: dict[str, Any]


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p * (len(ordered) - 1)))]


# --- what is asked ---------------------------------------------------------------------------


def search_queries() -> list[str]:
    lines = (REPO / "tests" / "data" / "retrieval.jsonl").read_text("utf-8").splitlines()
    return [json.loads(line)["q"] for line in lines if line.strip()]


def ask(question: str) -> Call:
    return Call("POST", "/ask", {"json": {"question": question}})


def search(q: str) -> Call:
    return Call("GET", "/search", {"params": {"q": q, "k": 10}})


def sparql(query: str) -> Call:
    return Call(
        "GET", "/sparql", {"params": {"query": query}, "headers": {"accept": SPARQL_ACCEPT}}
    )


def mixed(questions: Iterator[str], queries: list[str], ids: list[str]) -> Iterator[Call]:
    """Ten requests in each round: 3 search, 3 ask, 2 `/id/…`, 1 quiz, 1 SPARQL."""
    sparqls, searches, nodes = (itertools.cycle(x) for x in (QUERIES.values(), queries, ids))
    for i in itertools.count():
        yield search(next(searches))
        yield ask(next(questions))
        yield Call("GET", f"/id/{next(nodes)}", {"headers": {"accept": "application/ld+json"}})
        yield search(next(searches))
        yield ask(next(questions))
        yield Call("GET", "/quiz", {"params": {"n": 5, "seed": i}})
        yield search(next(searches))
        yield ask(next(questions))
        yield Call("GET", f"/id/{next(nodes)}", {"headers": {"accept": "text/turtle"}})
        yield sparql(next(sparqls))


# --- load --------------------------------------------------------------------------------------


async def _run_cell(base: str, calls: list[Call], concurrency: int) -> dict[str, Any]:
    """Send `calls` with at most `concurrency` in flight: latency percentiles and throughput."""
    latencies: list[float] = []
    errors: dict[str, int] = {}
    pending = iter(calls)
    deadline = time.perf_counter() + CELL_SECONDS
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(base_url=base, timeout=60, limits=limits) as client:

        async def lane() -> None:
            for call in pending:
                if time.perf_counter() > deadline:
                    return
                t0 = time.perf_counter()
                try:
                    r = await client.request(call.method, call.path, **call.kw)
                    ok, why = r.status_code < 400, str(r.status_code)
                except httpx.HTTPError as exc:
                    ok, why = False, type(exc).__name__
                latencies.append((time.perf_counter() - t0) * 1000)
                if not ok:
                    errors[why] = errors.get(why, 0) + 1

        t0 = time.perf_counter()
        await asyncio.gather(*(lane() for _ in range(concurrency)))
        wall = time.perf_counter() - t0
    return {
        "concurrency": concurrency,
        "n": len(latencies),
        "errors": sum(errors.values()),
        "error_statuses": errors,
        "throughput_per_s": round(len(latencies) / wall, 1),
        "p50_ms": round(_pct(latencies, 0.50), 1),
        "p95_ms": round(_pct(latencies, 0.95), 1),
        "p99_ms": round(_pct(latencies, 0.99), 1),
    }


def run_load(
    base: str, n: int, server: int, seed: int, names: list[str]
) -> tuple[dict[str, Any], dict[str, list[dict[str, Any]]]]:
    """(first use, the scenarios `names` at every concurrency); /ask, /search and mixed never
    repeat a question (fresh variations, bench.questions). Each cell also reports the CPU the
    server's processes (under pid `server`) spent on it."""
    questions = fresh_questions(seed)
    queries = search_queries()
    with httpx.Client(base_url=base, timeout=300) as client:
        for i in range(10):  # warm-up (not measured)
            client.get("/search", params={"q": f"aquecimento {i} warm-up"})
        ids = [
            h["id"]
            for q in queries[:20]
            for h in client.get("/search", params={"q": q}).json()["hits"]
        ]
    # What each worker builds on first use (the question bank, the RDF graph, the SPARQL workers'
    # first queries): sent 4 at a time so every worker gets some; the slowest is reported.
    first = [Call("GET", "/quiz", {"params": {"n": 5, "seed": i}}) for i in range(4)]
    first += [
        Call("GET", f"/id/{ids[i]}", {"headers": {"accept": "text/turtle"}}) for i in range(4)
    ]
    first += [sparql(q) for q in QUERIES.values()]
    warm = asyncio.run(_run_cell(base, first, 4))
    print(json.dumps({"first_use": warm}), file=sys.stderr)
    scenarios: dict[str, Callable[[int], list[Call]]] = {
        "ask": lambda c: [ask(next(questions)) for _ in range(n)],
        "search": lambda c: [search(next(questions)) for _ in range(n)],
        "sparql": lambda c: [
            sparql(q) for q in itertools.islice(itertools.cycle(QUERIES.values()), n // 2)
        ],
        "mixed": lambda c: list(itertools.islice(mixed(questions, queries, ids), n)),
    }
    out: dict[str, list[dict[str, Any]]] = {}
    for name in names:
        make = scenarios[name]
        out[name] = []
        for c in CONCURRENCY:
            try:
                calls = make(c)
            except StopIteration:
                raise SystemExit("error: not enough unique questions; lower --n") from None
            before = cpu_seconds(_tree(server))
            cell = asyncio.run(_run_cell(base, calls, c))
            cell |= cpu_spent(before, cpu_seconds(_tree(server)), cell["n"])
            out[name].append(cell)
            print(json.dumps({"scenario": name, **cell}), file=sys.stderr)
    return warm, out


# --- the server --------------------------------------------------------------------------------


def _tree(root: int) -> list[int]:
    """`root` and every process under it."""
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        try:
            text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
        except OSError:
            continue
        todo += [int(p) for p in text.split()]
    return found


def cpu_seconds(pids: list[int]) -> dict[int, float]:
    """User + system CPU seconds of each process so far (from /proc/<pid>/stat)."""
    tick = os.sysconf("SC_CLK_TCK")
    out = {}
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        out[pid] = (int(fields[11]) + int(fields[12])) / tick
    return out


def cpu_spent(before: dict[int, float], after: dict[int, float], requests: int) -> dict[str, Any]:
    """The server's CPU per request over a cell, and the busiest process's share of it (with 2
    workers, 0.5 is an even spread; 1.0 is one worker doing all the work)."""
    spent = {pid: after[pid] - before.get(pid, 0.0) for pid in after}
    total = sum(spent.values())
    return {
        "server_cpu_ms_per_request": round(1000 * total / max(requests, 1), 1),
        "busiest_process_share": round(max(spent.values(), default=0.0) / total, 2)
        if total
        else None,
    }


def process_memory(pid: int) -> dict[str, Any] | None:
    """A process's RSS and PSS (MB, from /proc/<pid>/smaps_rollup) and what it runs."""
    try:
        rollup = Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return None
    kb = {line.split(":")[0]: int(line.split()[1]) for line in rollup[1:] if line.split()}
    words = [a.decode(errors="replace") for a in argv if a]
    command = " ".join([Path(words[0]).name, *words[1:]]) if words else "?"
    private = kb.get("Private_Clean", 0) + kb.get("Private_Dirty", 0)
    return {
        "pid": pid,
        "command": command[:60],
        "rss_mb": round(kb.get("Rss", 0) / 1024),
        "pss_mb": round(kb.get("Pss", 0) / 1024),
        "private_mb": round(private / 1024),
    }


def memory(root: int) -> dict[str, Any]:
    """RSS and PSS (MB) of each of the server's processes (the first is the one started), and
    their sums (RSS counts shared pages once per process, PSS splits them)."""
    each = [m for m in (process_memory(pid) for pid in _tree(root)) if m is not None]
    return {
        "processes": len(each),
        "rss_mb": sum(m["rss_mb"] for m in each),
        "pss_mb": sum(m["pss_mb"] for m in each),
        "each": each,
    }


class LoadSampler:
    """The machine's 1-minute load average, sampled every few seconds in a background thread
    while the benchmark runs (other work on the machine slows every number here)."""

    def __init__(self, every_s: float = 5.0) -> None:
        self.samples = [os.getloadavg()[0]]
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(every_s,), daemon=True)
        self._thread.start()

    def _run(self, every_s: float) -> None:
        while not self._stop.wait(every_s):
            self.samples.append(os.getloadavg()[0])

    def stop(self) -> dict[str, float]:
        self._stop.set()
        self._thread.join()
        self.samples.append(os.getloadavg()[0])
        s = self.samples
        return {
            "load_average": round(s[0], 1),
            "load_average_end": round(s[-1], 1),
            "load_average_max": round(max(s), 1),
            "load_average_mean": round(sum(s) / len(s), 1),
        }


def cold_start(
    exe: str, data: Path, workers: int
) -> tuple[subprocess.Popen[bytes], str, dict[str, Any]]:
    """Start the server: (process, base URL, seconds to the first /health and the first /ask)."""
    port = _port()
    base = f"http://127.0.0.1:{port}"
    cmd = [exe, "serve", "--data", str(data), "--port", str(port), "--workers", str(workers)]
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        cmd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "HF_HUB_OFFLINE": "1", "YGO_ANSWER_CACHE": "0"},
    )
    times: dict[str, Any] = {}
    with httpx.Client(base_url=base, timeout=30) as client:
        for name, call in (
            ("health_s", Call("GET", "/health", {})),
            ("ask_s", ask("O que é uma corrente?")),
        ):
            while True:
                if proc.poll() is not None:
                    raise SystemExit("error: the server exited during start")
                try:
                    if client.request(call.method, call.path, **call.kw).status_code == 200:
                        break
                except httpx.HTTPError:
                    time.sleep(0.05)
                if time.perf_counter() - t0 > 300:
                    raise SystemExit("error: the server did not start")
            times[name] = round(time.perf_counter() - t0, 2)
        times["model"] = client.get("/health").json().get("model")
    return proc, base, times


def quality(data: Path) -> dict[str, Any]:
    """bench.quality's numbers (verdict accuracy and cite@3 per set, nonsense, pairs)."""
    result = _json_of("bench.quality", data)
    return {
        "sets": {
            k: {"verdict": v["verdict_accuracy"], "cite3": v["cite_hit3"]}
            for k, v in result["sets"].items()
        },
        "nonsense_null": {k: v["null_share"] for k, v in result.get("nonsense_sets", {}).items()},
        "pairs_agreeing": result.get("pairs", {}).get("agreeing"),
    }


def peer(data: Path) -> dict[str, Any]:
    """bench.peer's comparison with txtai, run in a process of its own."""
    return _json_of("bench.peer", data)


def _json_of(module: str, data: Path) -> dict[str, Any]:
    """What `python -m <module> --data DATA --json` prints, run in a process of its own."""
    out = subprocess.run(
        [sys.executable, "-m", module, "--data", str(data), "--json"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict[str, Any] = json.loads(out.stdout)
    return result


# --- report --------------------------------------------------------------------------------------


def markdown(result: dict[str, Any]) -> str:
    cs, mem, m = result["cold_start"], result["memory"], result["machine"]
    lines = [
        f"`make bench` {result['date']}, commit {result['commit']}, {result['workers']} workers,"
        f" {m['cpus']} cores, load average (1 min) {m['load_average']} at the start,"
        f" {m['load_average_end']} at the end, mean {m.get('load_average_mean')}"
        f" / max {m.get('load_average_max')} over the speed run",
        "",
        "| traffic | concurrency | requests | errors | per second | p50 ms | p95 ms | p99 ms"
        " | server CPU ms / request | busiest process |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, cells in result["load"].items():
        for c in cells:
            lines.append(
                f"| {name} | {c['concurrency']} | {c['n']} | {c['errors']} | {c['throughput_per_s']}"
                f" | {c['p50_ms']} | {c['p95_ms']} | {c['p99_ms']}"
                f" | {c.get('server_cpu_ms_per_request')} | {c.get('busiest_process_share')} |"
            )
    lines += [
        "",
        f"Cold start: first `/health` {cs['health_s']} s, first `/ask` {cs['ask_s']} s."
        f" Memory of the {mem['processes']} server processes after the load: RSS {mem['rss_mb']} MB"
        f" summed, PSS {mem['pss_mb']} MB. First use of `/quiz`, `/id/…` and SPARQL (what each"
        f" worker builds then; 4 at a time, before the load): slowest"
        f" {result['first_use']['p99_ms'] / 1000:.1f} s.",
        "",
        "| process | RSS MB | PSS MB | private MB |",
        "|---|---|---|---|",
        *(
            f"| {e['pid']} `{e['command']}` | {e['rss_mb']} | {e['pss_mb']} | {e['private_mb']} |"
            for e in mem["each"]
        ),
    ]
    cli = result.get("cli") or {}
    if cli:
        local, remote = cli.get("in_process", {}), cli.get("server", {})
        lines += [
            "",
            "| CLI command | in process: wall s | CPU s | with `--server`: wall s | CPU s |",
            "|---|---|---|---|---|",
        ]
        for name in {**local, **remote}:
            a, b = local.get(name, {}), remote.get(name, {})
            lines.append(
                f"| {name} | {a.get('wall_s')} | {a.get('cpu_s')} | {b.get('wall_s')}"
                f" | {b.get('cpu_s')} |"
            )
    if result.get("quality"):
        q = result["quality"]
        sets = ", ".join(
            f"`{k}` {v['verdict']:.3f} / {v['cite3']:.3f}" for k, v in q["sets"].items()
        )
        nonsense = ", ".join(f"`{k}` {v:.3f}" for k, v in q["nonsense_null"].items())
        lines += [
            "",
            f"Answer quality (verdict / cite@3): {sets}; nonsense answered null: {nonsense};"
            f" pt/en pairs agreeing {q['pairs_agreeing']:.3f}.",
        ]
    p = result.get("peer")
    if p and not p.get("skipped"):
        lines += [
            "",
            f"Search against txtai (same model, same units, in process): {p['queries']} queries,"
            f" txtai {p['txtai'].get('version')}, its index built in {p['txtai']['build_s']} s,"
            f" +{p['txtai']['rss_added_mb']} MB RSS.",
            "",
            "| search | R@1 | R@5 | MRR | p50 ms | p95 ms |",
            "|---|---|---|---|---|---|",
            *(
                f"| {name} | {p[name]['recall@1']:.3f} | {p[name]['recall@5']:.3f}"
                f" | {p[name]['mrr']:.3f} | {p[name]['p50_ms']} | {p[name]['p95_ms']} |"
                for name in ("ours", "txtai")
            ),
        ]
    elif result.get("peer_skipped"):
        lines += ["", f"Search against txtai: skipped ({result['peer_skipped']})."]
    return "\n".join(lines) + "\n"


def _commit() -> str | None:
    out = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True
    )
    return out.stdout.strip() or None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, default=REPO / "data")
    parser.add_argument(
        "--workers", type=int, default=0, help="server processes (default 0: one per core)"
    )
    parser.add_argument("--n", type=int, default=200, help="requests per cell (SPARQL: half)")
    parser.add_argument(
        "--scenarios",
        default="ask,search",
        help="comma-separated: ask, search, sparql, mixed (default ask,search)",
    )
    parser.add_argument("--seed", type=int, default=None, help="of the fresh questions (clock)")
    parser.add_argument("--cli-repeat", type=int, default=3, help="runs of each CLI command")
    parser.add_argument("--no-cli", action="store_true", help="skip the CLI wall times")
    parser.add_argument("--no-quality", action="store_true", help="skip the answer-quality sets")
    parser.add_argument("--no-peer", action="store_true", help="skip the search against txtai")
    args = parser.parse_args()
    names = [s.strip() for s in args.scenarios.split(",") if s.strip()]
    unknown = sorted(set(names) - {"ask", "search", "sparql", "mixed"})
    if unknown:
        raise SystemExit(f"error: unknown scenarios {', '.join(unknown)}")
    seed = args.seed if args.seed is not None else time.time_ns() % 2**31
    exe = shutil.which("ygo-rulings", path=str(Path(sys.executable).parent)) or "ygo-rulings"
    subprocess.run([exe, "stats", "--data", str(args.data)], check=True, capture_output=True)
    sampler = LoadSampler()
    proc, base, start = cold_start(exe, args.data, args.workers)
    cli: dict[str, Any] = {}
    try:
        first_use, load = run_load(base, args.n, proc.pid, seed, names)
        mem = memory(proc.pid)
        if not args.no_cli:
            cli["server"] = cli_times(exe, args.data, base, args.cli_repeat, seed + 1)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        load_average = sampler.stop()
    if not args.no_cli:
        cli["in_process"] = cli_times(exe, args.data, None, args.cli_repeat, seed + 2)
    from api.workers import worker_count

    env = ("YGO_EMBEDDER", "YGO_QUANTIZE", "OMP_WAIT_POLICY")
    result = {
        "date": time.strftime("%Y-%m-%d"),
        "commit": _commit(),
        "machine": {"cpus": os.cpu_count(), **load_average},
        "environment": {name: os.environ[name] for name in env if name in os.environ},
        "seed": seed,
        "workers": worker_count(args.workers),
        "model": start.pop("model"),
        "cold_start": start,
        "first_use": first_use,
        "memory": mem,
        "load": load,
        "cli": cli,
        "quality": None if args.no_quality else quality(args.data),
    }
    if args.no_peer:
        result |= {"peer": None, "peer_skipped": "--no-peer"}
    elif not peer_bench.available():
        result |= {"peer": None, "peer_skipped": peer_bench.SKIPPED}
    else:
        compared = peer(args.data)
        skipped = compared.get("skipped")
        result |= {"peer": None if skipped else compared, "peer_skipped": skipped}
    out = REPO / "bench" / "results"
    out.mkdir(exist_ok=True)
    (out / "http.json").write_text(json.dumps(result, indent=2), "utf-8")
    (out / "http.md").write_text(markdown(result), "utf-8")
    print(markdown(result))


if __name__ == "__main__":
    main()
