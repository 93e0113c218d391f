"""Fit the confidence calibration on the evaluation sets and measure how well it holds.

Asks every yes/no question of the sets (``qa*``, ``real_*`` and both sides of ``pairs``) with
calibration off, so each answer carries its reasoner's raw confidence, then:

- writes the counts per (reasoner, raw band) to ``kb/answering/calibration.json`` (``--write``),
  the table the server reads; with ``--variant documents-alone`` the answers come from the
  documents alone (bench.variants) and go to ``calibration-documents.json``, the table of a
  knowledge base without curated claims;
- reports a reliability table (confidence band -> answers, mean confidence, share right) where
  each set's confidences come from a table fitted on the *other* sets (leave one set out), so the
  table measures calibration on questions the fit did not see; and the same table in-sample.

Usage: python -m bench.calibrate --data data [--variant documents-alone] [--write] [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from bench.quality import REPO, YES_NO, find_sets, git_commit, pair_items
from kb.answering.calibration import Calibration, table_for
from kb.evaluation import Answers, read_jsonl

Outcome = tuple[str, str, float, bool]  # set, reasoner, raw confidence, verdict right


def yes_no_items(sets: dict[str, Path]) -> dict[str, list[dict[str, Any]]]:
    """Each set's yes/no items (pairs as both their questions); the nonsense set has none."""
    found: dict[str, list[dict[str, Any]]] = {}
    for name, path in sets.items():
        items = read_jsonl(path)
        if name == "pairs":
            items = pair_items(items)
        found[name] = [it for it in items if it.get("verdict") in YES_NO]
    return found


def outcomes(service: Answers, items: dict[str, list[dict[str, Any]]]) -> list[Outcome]:
    """(set, reasoner, raw confidence, right) for every answer with a verdict; each distinct
    question counted once (in the first set that asks it)."""
    seen: set[tuple[str, str | None]] = set()
    found: list[Outcome] = []
    for name, rows in items.items():
        for it in rows:
            key = (str(it["q"]), it.get("format") or None)
            if key in seen:
                continue
            seen.add(key)
            answer = service.ask(key[0], format=key[1])
            raw = answer.get("confidence")
            if answer.get("verdict") is None or raw is None:
                continue
            found.append(
                (name, str(answer["reasoner"]), float(raw), answer["verdict"] == it["verdict"])
            )
    return found


def reliability(rows: Iterable[tuple[float, bool]]) -> list[dict[str, Any]]:
    """Confidence bands of 0.1: answers, mean confidence, share right, and their gap."""
    bands: dict[str, list[tuple[float, bool]]] = {}
    for conf, ok in rows:
        bands.setdefault(f"{min(int(round(conf * 10, 6)), 9) / 10:.1f}", []).append((conf, ok))
    table = []
    for band, cell in sorted(bands.items()):
        mean = sum(c for c, _ in cell) / len(cell)
        share = sum(ok for _, ok in cell) / len(cell)
        table.append(
            {
                "band": band,
                "n": len(cell),
                "mean_confidence": round(mean, 3),
                "share_right": round(share, 3),
                "gap": round(abs(mean - share), 3),
            }
        )
    return table


def held_out(found: list[Outcome]) -> list[tuple[float, bool]]:
    """Each answer's confidence from a table fitted on every set but its own."""
    rows: list[tuple[float, bool]] = []
    for name in dict.fromkeys(s for s, *_ in found):
        fitted = Calibration.fit((r, raw, ok) for s, r, raw, ok in found if s != name)
        for s, r, raw, ok in found:
            if s == name:
                conf = fitted.confidence(r, raw)
                assert conf is not None
                rows.append((conf, ok))
    return rows


def render(result: dict[str, Any]) -> str:
    lines = [f"{result['answers']} answers with a verdict, {len(result['sets'])} sets"]
    for title, key in (("held out (leave one set out)", "held_out"), ("in sample", "in_sample")):
        lines.append(f"\n{title}:\n| band | answers | mean confidence | share right | gap |")
        lines.append("|---|---|---|---|---|")
        for row in result[key]:
            lines.append(
                f"| {row['band']} | {row['n']} | {row['mean_confidence']:.2f} | "
                f"{row['share_right']:.2f} | {row['gap']:.2f} |"
            )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=None, help="data directory (YGO_DATA_DIR)")
    parser.add_argument("--corpus", type=Path, default=None, help="corpus directory")
    parser.add_argument("--sets", type=Path, default=REPO / "tests" / "data", help="folder")
    parser.add_argument(
        "--variant", choices=["curated", "documents-alone"], default="curated", help="which build"
    )
    parser.add_argument("--write", action="store_true", help="write the variant's table")
    parser.add_argument("--json", action="store_true", help="print JSON")
    args = parser.parse_args(argv)

    from api.runtime import load_runtime
    from kb.config import Settings

    settings = Settings.from_env(data_dir=args.data, corpus_dir=args.corpus)
    if args.variant != "curated":
        from bench.variants import prepare

        made = prepare(args.variant, settings.corpus_dir, settings.data_dir)
        settings = Settings.from_env(data_dir=made.data_dir, corpus_dir=made.corpus_dir)
    runtime = load_runtime(settings)
    runtime.service.answerer.calibration = None  # raw confidences
    sets = {k: v for k, v in find_sets(args.sets, None).items() if k != "nonsense"}
    t0 = time.perf_counter()
    found = outcomes(runtime.service, yes_no_items(sets))
    print(f"{len(found)} answers in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    meta = {
        "fitted_by": "python -m bench.calibrate --write"
        + ("" if args.variant == "curated" else f" --variant {args.variant}"),
        "date": time.strftime("%Y-%m-%d"),
        "commit": git_commit(),
        "sets": sorted(sets),
    }
    fitted = Calibration.fit(((r, raw, ok) for _, r, raw, ok in found), meta)
    in_sample = [(fitted.confidence(r, raw) or 0.0, ok) for _, r, raw, ok in found]
    result = {
        **meta,
        "answers": len(found),
        "held_out": reliability(held_out(found)),
        "in_sample": reliability(in_sample),
    }
    if args.write:
        table = table_for(args.variant == "curated")
        table.write_text(json.dumps(fitted.to_json(), indent=1) + "\n", encoding="utf-8")
        print(f"wrote {table.relative_to(REPO)}", file=sys.stderr)
    print(json.dumps(result, indent=2) if args.json else render(result))


if __name__ == "__main__":
    main()
