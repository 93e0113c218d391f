"""Answer quality on every evaluation set, one service load for all of them.

Sets (under ``tests/data`` unless ``--sets`` says otherwise):
- ``qa*.jsonl`` and ``real_*.jsonl``: verdict accuracy on yes/no items and cite@3, as
  ``ygo-rulings eval`` computes them (:func:`kb.evaluation.evaluate_answers`);
- ``nonsense*.jsonl``: the share answered with verdict ``null`` (each item is an out-of-scope item);
- ``pairs.jsonl``: the share of pt/en pairs with the same verdict and the same top citation id,
  and each side's verdict accuracy and cite@3 against the pair's ``verdict`` and ``cite``;
- a reliability table over every yes/no item asked: confidence band (0.1 wide) -> count, share
  correct.

Columns (``--variant``, see :mod:`bench.variants`): today's build (curated, the default), and
``documents-alone`` (the documents from their manifest rows only: no claims, no bespoke parser).
``--newdocs`` measures each real document of ``tests/fixtures/newdocs`` added to today's corpus by
its manifest row alone, on that document's own questions.

Usage: python -m bench.quality --data data [--json] [--only qa_cards,nonsense,pairs]
       [--variant documents-alone] [--newdocs [folder,…] [--jobs N]]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from kb.evaluation import Answers, evaluate_answers, read_jsonl

REPO = Path(__file__).resolve().parents[1]
YES_NO = ("yes", "no")


class RecordingService:
    """Wraps a service; remembers every answer so one ask serves several measures."""

    def __init__(self, service: Answers) -> None:
        self.service = service
        self.answers: dict[tuple[str, str | None], dict[str, Any]] = {}

    def ask(self, question: str, format: str | None = None, k: int = 5) -> dict[str, Any]:
        key = (question, format)
        if key not in self.answers:
            self.answers[key] = self.service.ask(question, format=format, k=k)
        return self.answers[key]


def find_sets(folder: Path, only: set[str] | None) -> dict[str, Path]:
    """The evaluation files in `folder` by stem, restricted to `only` when given."""
    paths = [
        *sorted(folder.glob("qa*.jsonl")),
        *sorted(folder.glob("real_*.jsonl")),
        *sorted(folder.glob("nonsense*.jsonl")),
        *[p for p in (folder / "pairs.jsonl",) if p.exists()],
    ]
    found = {p.stem: p for p in paths}
    if only is not None:
        unknown = only - set(found)
        if unknown:
            raise SystemExit(f"error: no set named {sorted(unknown)} in {folder}")
        found = {k: v for k, v in found.items() if k in only}
    return found


def nonsense_items(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Nonsense questions as out-of-scope items of the answer evaluation."""
    for item in items:
        if item.get("verdict") is not None:
            raise SystemExit(f"error: nonsense item {item.get('id')} has a verdict")
    return [
        {
            "id": it.get("id"),
            "q": it["q"],
            "format": it.get("format"),
            "verdict": None,
            "topic": "out-of-scope",
            "contains": [],
            "cite": "",
        }
        for it in items
    ]


def pair_items(pairs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each pair as two answer-evaluation items, topic = the language."""
    items = []
    for pair in pairs:
        if not pair.get("pt") or not pair.get("en"):
            raise SystemExit(f"error: pair {pair.get('id')} needs 'pt' and 'en'")
        for lang in ("pt", "en"):
            items.append(
                {
                    "id": f"{pair.get('id')}-{lang}",
                    "q": pair[lang],
                    "format": pair.get("format"),
                    "verdict": pair.get("verdict"),
                    "cite": pair.get("cite") or "",
                    "topic": lang,
                }
            )
    return items


def top_citation(answer: dict[str, Any]) -> str | None:
    cites = answer.get("citations") or []
    return str(cites[0]["id"]) if cites else None


def pair_agreement(recorder: RecordingService, pairs: list[dict[str, Any]]) -> dict[str, Any]:
    """Share of pairs whose two answers give the same verdict and the same top citation."""
    same_verdict = same_both = 0
    disagreements = []
    for pair in pairs:
        fmt = pair.get("format")
        pt, en = recorder.ask(pair["pt"], format=fmt), recorder.ask(pair["en"], format=fmt)
        verdict_ok = pt["verdict"] == en["verdict"]
        cite_ok = top_citation(pt) == top_citation(en)
        same_verdict += verdict_ok
        same_both += verdict_ok and cite_ok
        if not (verdict_ok and cite_ok):
            disagreements.append(
                {
                    "id": pair.get("id"),
                    "pt": [pt["verdict"], top_citation(pt)],
                    "en": [en["verdict"], top_citation(en)],
                }
            )
    n = max(len(pairs), 1)
    return {
        "pairs": len(pairs),
        "same_verdict": same_verdict / n,
        "agreeing": same_both / n,
        "disagreements": disagreements,
    }


def reliability(recorder: RecordingService, items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Confidence bands of 0.1 over yes/no items: count and share with the right verdict."""
    bands: dict[str, list[bool]] = {}
    seen: set[tuple[str, str | None]] = set()
    for item in items:
        key = (str(item["q"]), item.get("format") or None)
        if item.get("verdict") not in YES_NO or key in seen:
            continue
        seen.add(key)
        answer = recorder.ask(*key)
        conf = answer.get("confidence")
        band = "none" if conf is None else f"{min(int(float(conf) * 10), 9) / 10:.1f}"
        bands.setdefault(band, []).append(answer["verdict"] == item["verdict"])
    return [
        {"band": band, "n": len(ok), "share_correct": sum(ok) / len(ok)}
        for band, ok in sorted(bands.items())
    ]


def measure(service: Answers, sets: dict[str, Path]) -> dict[str, Any]:
    """Every measure over the given sets, asking each distinct question once."""
    recorder = RecordingService(service)
    result: dict[str, Any] = {"sets": {}}
    yes_no_items: list[dict[str, Any]] = []
    for name, path in sets.items():
        items = read_jsonl(path)
        t0 = time.perf_counter()
        if name.startswith("nonsense"):
            ev = evaluate_answers(recorder, nonsense_items(items))
            o = ev["overall"]
            result.setdefault("nonsense_sets", {})[name] = {
                "n": o["n"],
                "null_share": o["oos_accuracy"],
                "answered": [{"id": f["id"], "got": f["got"]} for f in ev["failures"]],
            }
        elif name == "pairs":
            expanded = pair_items(items)
            ev = evaluate_answers(recorder, expanded)
            yes_no_items += expanded
            result["pairs"] = pair_agreement(recorder, items) | {
                "verdict_accuracy": ev["overall"]["verdict_accuracy"],
                "yes_no": ev["overall"]["yes_no"],
                "cite_hit3": ev["overall"]["cite_hit3"],
                "by_language": {
                    lang: {k: s[k] for k in ("verdict_accuracy", "cite_hit3")}
                    for lang, s in ev["topics"].items()
                },
            }
        else:
            ev = evaluate_answers(recorder, items)
            yes_no_items += items
            o = ev["overall"]
            result["sets"][name] = {
                k: o[k] for k in ("n", "yes_no", "verdict_accuracy", "cited", "cite_hit3")
            } | {"failures": [f["id"] for f in ev["failures"]]}
        print(f"  {name}: {len(items)} items, {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    result["reliability"] = reliability(recorder, yes_no_items)
    result["questions_asked"] = len(recorder.answers)
    return result


def git_commit() -> str | None:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=REPO,
            capture_output=True,
            text=True,
            check=True,
        )
    except (OSError, subprocess.CalledProcessError):
        return None
    return out.stdout.strip()


def render(result: dict[str, Any]) -> str:
    lines = [f"commit {result.get('commit')}  {result.get('date')}  {result.get('variant', '')}"]
    for name, s in result["sets"].items():
        lines.append(
            f"{name:<16} verdict {s['verdict_accuracy']:.3f} (n={s['yes_no']})"
            f"  cite@3 {s['cite_hit3']:.3f} (n={s['cited']})"
        )
    for name, s in result.get("nonsense_sets", {}).items():
        lines.append(f"{name:<16} null {s['null_share']:.3f} (n={s['n']})")
    if "pairs" in result:
        s = result["pairs"]
        lines.append(
            f"{'pairs':<16} agreeing {s['agreeing']:.3f} (same verdict {s['same_verdict']:.3f},"
            f" n={s['pairs']})  verdict {s['verdict_accuracy']:.3f} (n={s['yes_no']})"
            f"  cite@3 {s['cite_hit3']:.3f}"
        )
    lines.append("confidence band   n   share correct")
    for row in result["reliability"]:
        lines.append(f"  {row['band']:>4}        {row['n']:>4}   {row['share_correct']:.3f}")
    return "\n".join(lines)


def measure_newdocs(args: argparse.Namespace) -> dict[str, Any]:
    """Each new document added by its manifest row alone, measured on its own questions. With
    more than one document, each is measured in a child process of its own (`args.jobs` at a
    time): a loaded service is frozen out of the garbage collector's reach (`gc.freeze`), so one
    process holding seventeen builds would run out of memory."""
    from bench.variants import new_documents

    wanted = {s.strip() for s in str(args.newdocs).split(",") if s.strip()}
    folders = [f for f in new_documents() if not wanted or f.name in wanted]
    if len(folders) > 1:
        return _newdocs_apart([f.name for f in folders], args)
    return _newdocs_here(folders, args)


def _newdocs_apart(names: list[str], args: argparse.Namespace) -> dict[str, Any]:
    """`names` measured one child process each, `args.jobs` at a time, merged in their order."""
    from concurrent.futures import ThreadPoolExecutor

    def child(name: str) -> dict[str, Any]:
        cmd = [sys.executable, "-m", "bench.quality", "--newdocs", name, "--json"]
        for flag, value in (("--data", args.data), ("--corpus", args.corpus)):
            if value is not None:
                cmd += [flag, str(Path(value).resolve())]
        done = subprocess.run(cmd, capture_output=True, text=True, cwd=REPO, check=False)
        if done.returncode != 0:
            tail = done.stderr.strip().splitlines()[-1:] or ["no output"]
            raise SystemExit(f"error: new document {name}: {tail[0]}")
        docs: dict[str, Any] = json.loads(done.stdout)["docs"]
        return docs

    out: dict[str, Any] = {"commit": git_commit(), "date": time.strftime("%Y-%m-%d"), "docs": {}}
    with ThreadPoolExecutor(max(1, args.jobs)) as pool:
        for docs in pool.map(child, names):
            out["docs"].update(docs)
    return out


def _newdocs_here(folders: list[Path], args: argparse.Namespace) -> dict[str, Any]:
    from api.runtime import load_runtime
    from bench.variants import prepare
    from kb.config import Settings

    base = Settings.from_env(data_dir=args.data, corpus_dir=args.corpus)
    out: dict[str, Any] = {"commit": git_commit(), "date": time.strftime("%Y-%m-%d"), "docs": {}}
    for folder in folders:
        v = prepare(f"newdoc:{folder.name}", base.corpus_dir, base.data_dir)
        runtime = load_runtime(Settings.from_env(data_dir=v.data_dir, corpus_dir=v.corpus_dir))
        ev = evaluate_answers(runtime.service, read_jsonl(folder / "questions.jsonl"))
        o = ev["overall"]
        out["docs"][folder.name] = {
            "n": o["yes_no"],
            "right": round(o["verdict_accuracy"] * o["yes_no"]),
            "verdict_accuracy": o["verdict_accuracy"],
            "cite_hit3": o["cite_hit3"],
            "failures": [f["id"] for f in ev["failures"]],
        }
    return out


def render_newdocs(result: dict[str, Any]) -> str:
    lines = [f"commit {result.get('commit')}  {result.get('date')}  new documents (manifest row)"]
    for name, s in result["docs"].items():
        lines.append(
            f"{name:<24} {s['right']}/{s['n']}  cite@3 {s['cite_hit3']:.2f}"
            f"  misses {','.join(s['failures'])}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=None, help="data directory (YGO_DATA_DIR)")
    parser.add_argument("--corpus", type=Path, default=None, help="corpus directory")
    parser.add_argument("--sets", type=Path, default=REPO / "tests" / "data", help="folder")
    parser.add_argument("--only", default=None, help="comma-separated set names (file stems)")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument("--variant", default=None, help="documents-alone (default: curated)")
    parser.add_argument(
        "--newdocs", nargs="?", const="", default=None, help="measure new documents (folders)"
    )
    parser.add_argument(
        "--jobs", type=int, default=1, help="new documents measured at once (one process each)"
    )
    args = parser.parse_args(argv)
    if args.newdocs is not None:
        result = measure_newdocs(args)
        print(json.dumps(result, indent=2) if args.json else render_newdocs(result))
        return

    from api.runtime import load_runtime
    from kb.config import Settings

    only = {s.strip() for s in args.only.split(",") if s.strip()} if args.only else None
    sets = find_sets(args.sets, only)
    settings = Settings.from_env(data_dir=args.data, corpus_dir=args.corpus)
    if args.variant:
        from bench.variants import prepare

        v = prepare(args.variant, settings.corpus_dir, settings.data_dir)
        settings = Settings.from_env(data_dir=v.data_dir, corpus_dir=v.corpus_dir)
    t0 = time.perf_counter()
    runtime = load_runtime(settings)
    print(f"service loaded in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    result = {
        "commit": git_commit(),
        "date": time.strftime("%Y-%m-%d"),
        "variant": args.variant or "curated",
    } | measure(runtime.service, sets)
    print(json.dumps(result, ensure_ascii=False, indent=2) if args.json else render(result))


if __name__ == "__main__":
    main()
