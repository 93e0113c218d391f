"""Card search latency and quality over the card-facts table (~14,000 cards).

Builds the card service's index from `corpus/carddb/cards.tsv`, then times `CardService.search`
(what GET /cards and `ygo-rulings cards search` run, without HTTP) on queries drawn from the
table with a fixed seed: exact English and pt names, pt names without accents, prefixes typed
so far (search-as-you-type), names with one typo, two words of a name, and a share of queries
with a filter (type, attribute, the first declared card pool). Reports median/p95/p99 latency per
kind and overall, and how often the intended card is the first hit (or in the top 3).
Usage: python -m bench.cards [--table PATH] [--n 2000] [--seed 0] [--json]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from pathlib import Path
from typing import Any

import yaml

from kb.cards.service import CardService
from kb.cards.table import CardRecord, parse_table
from kb.formats import Formats, parse_specs
from kb.graph import KnowledgeGraph
from kb.ids import fold

REPO = Path(__file__).resolve().parents[1]
KINDS = ("exact-en", "exact-pt", "no-accents", "prefix", "typo", "two-words")


def _pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p * (len(ordered) - 1)))]


def _typo(name: str, rng: random.Random) -> str:
    """One edit (drop, double, swap or replace a letter) away from the name."""
    letters = [i for i, ch in enumerate(name) if ch.isalpha()]
    if len(letters) < 4:
        return name
    i = rng.choice(letters[1:-1])
    edit = rng.randrange(4)
    if edit == 0:
        return name[:i] + name[i + 1 :]
    if edit == 1:
        return name[:i] + name[i] + name[i:]
    if edit == 2 and i + 1 < len(name):
        return name[:i] + name[i + 1] + name[i] + name[i + 2 :]
    return name[:i] + rng.choice("aeiourstn") + name[i + 1 :]


def queries(records: list[CardRecord], n: int, seed: int) -> list[tuple[str, str, str]]:
    """(kind, query, intended card id) drawn from the records."""
    rng = random.Random(seed)
    bilingual = [r for r in records if r.name_pt]
    out = []
    for i in range(n):
        kind = KINDS[i % len(KINDS)]
        r = rng.choice(bilingual)
        assert r.name_pt is not None
        name = r.name_pt if kind in ("exact-pt", "no-accents") or rng.random() < 0.5 else r.name_en
        if kind == "no-accents":
            q = fold(name)
        elif kind == "prefix":
            q = name[: rng.randint(3, max(3, min(12, len(name))))]
        elif kind == "typo":
            q = _typo(name, rng)
        elif kind == "two-words":
            words = name.split()
            start = rng.randrange(max(1, len(words) - 1))
            q = " ".join(words[start : start + 2])
        else:
            q = name
        out.append((kind, q, r.id))
    return out


def run(table: Path, n: int, seed: int) -> dict[str, Any]:
    records = parse_table(table.read_text("utf-8"), str(table))[1]
    manifest = yaml.safe_load((REPO / "corpus" / "manifest.yaml").read_text("utf-8"))
    formats = Formats(tuple(parse_specs(manifest["formats"], "manifest")))
    pooled = next((s.id for s in formats.specs if s.card_pool), None)
    t0 = time.perf_counter()
    service = CardService(records, formats, KnowledgeGraph([], []))
    build_ms = (time.perf_counter() - t0) * 1000
    rng = random.Random(seed + 1)
    times: dict[str, list[float]] = {k: [] for k in KINDS}
    first: dict[str, int] = dict.fromkeys(KINDS, 0)
    top3: dict[str, int] = dict.fromkeys(KINDS, 0)
    filtered: list[float] = []
    for kind, q, want in queries(records, n, seed):
        service.search(q, k=10)  # warm: the timings below are of a warm index, as served
        t = time.perf_counter()
        result = service.search(q, k=10)
        times[kind].append((time.perf_counter() - t) * 1000)
        ids = [h.id for h in result.hits]
        first[kind] += bool(ids) and ids[0] == want
        top3[kind] += want in ids[:3]
        if rng.random() < 0.2:
            option = rng.randrange(3)
            kw: dict[str, Any] = (
                {"type": rng.choice(("monster", "spell", "trap"))},
                {"attribute": rng.choice(("DARK", "LIGHT", "EARTH"))},
                {"format": pooled},
            )[option]
            service.search(q, k=10, **kw)
            t = time.perf_counter()
            service.search(q, k=10, **kw)
            filtered.append((time.perf_counter() - t) * 1000)
    every = [x for v in times.values() for x in v]

    def summary(values: list[float]) -> dict[str, float]:
        return {
            "n": len(values),
            "median_ms": round(statistics.median(values), 2),
            "p95_ms": round(_pct(values, 0.95), 2),
            "p99_ms": round(_pct(values, 0.99), 2),
            "max_ms": round(max(values), 2),
        }

    return {
        "cards": len(records),
        "names": len(service.index.names),
        "index_build_ms": round(build_ms, 1),
        "all": summary(every),
        "filtered": summary(filtered) if filtered else None,
        "by_kind": {
            k: {
                **summary(times[k]),
                "top1": round(first[k] / len(times[k]), 3),
                "top3": round(top3[k] / len(times[k]), 3),
            }
            for k in KINDS
            if times[k]
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--table", type=Path, default=REPO / "corpus" / "carddb" / "cards.tsv")
    parser.add_argument("--n", type=int, default=2000, help="Queries (spread over the kinds).")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true", help="Print the summary as JSON.")
    args = parser.parse_args()
    result = run(args.table, args.n, args.seed)
    if args.json:
        print(json.dumps(result, indent=2))
        return
    a = result["all"]
    print(
        f"{result['cards']} cards, {result['names']} names; index built in "
        f"{result['index_build_ms']:.0f} ms\n"
        f"all {a['n']} queries: median {a['median_ms']} ms, p95 {a['p95_ms']} ms, "
        f"p99 {a['p99_ms']} ms, max {a['max_ms']} ms"
    )
    if result["filtered"]:
        f = result["filtered"]
        print(f"filtered {f['n']}: median {f['median_ms']} ms, p95 {f['p95_ms']} ms")
    for kind, m in result["by_kind"].items():
        print(
            f"  {kind:<11} median {m['median_ms']:>5} ms  p95 {m['p95_ms']:>5} ms  "
            f"top-1 {m['top1']:.3f}  top-3 {m['top3']:.3f}"
        )


if __name__ == "__main__":
    main()
