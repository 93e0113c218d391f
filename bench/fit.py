"""Fit the answerer's tuned values on the evaluation sets: the statement matcher's
(`Settings.statement_*`), the claim reader's (`claim_*`) and the order matcher's (`order_*`).

A coordinate search: each value in turn takes each candidate of its grid, the others held,
and keeps the one that answers the most questions right, summed over both columns (today's
build and the documents alone, `bench.variants`; the claims' values only move the first); ties
keep the value it had. Every question of the sets (``qa*``, ``real_*``, ``nonsense*``, both
sides of ``pairs``; a null verdict expected counts as right when the answer is null) is asked at
every step: ~40 s a step on this machine.

The questions are split in two halves by a hash of their text: the search sees one half only, and
the report gives what the chosen values do on the other half, which the search never saw, beside
what they do on the half it fitted. Nothing is written into the code: the report names the values
(and their `YGO_…` settings) and the change on each set and column.

Usage: python -m bench.fit --data data [--json] [--passes N]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any, TypeVar

from bench.quality import REPO, find_sets, git_commit
from kb.answering.claims import ClaimSettings
from kb.evaluation import read_jsonl
from kb.reason.order import OrderSettings
from kb.reason.statement_match import StatementSettings

T = TypeVar("T")

# The candidates of each value, as "<group>.<field>" of `Tuned` (today's default is among them).
GRID: dict[str, tuple[float, ...]] = {
    "statement.min_score": (0.9, 0.92, 0.95, 0.98, 1.0),
    "statement.lexical_weight": (0.25, 0.3, 0.35, 0.4, 0.45),
    "statement.context_weight": (0.05, 0.1, 0.15, 0.2, 0.25),
    "statement.tie_margin": (0.0, 0.01, 0.02, 0.04),
    "statement.other_format_penalty": (0.0, 0.03, 0.06, 0.1),
    "statement.amount_margin": (0.04, 0.08, 0.1, 0.12, 0.16),
    "statement.override_margin": (0.04, 0.08, 0.12, 0.16),
    "claim.min_score": (0.82, 0.84, 0.86, 0.88, 0.9),
    "claim.same_topic": (0.9, 0.92, 0.94, 0.96),
    "claim.format_margin": (0.1, 0.15, 0.2),
    "claim.general_penalty": (0.0, 0.02, 0.04),
    "claim.other_format_penalty": (0.0, 0.03, 0.06),
    "claim.card_bonus": (0.03, 0.06, 0.09),
    "claim.asked_weight": (0.5, 1.0, 1.5),
    "claim.other_case": (0.04, 0.08, 0.12),
    "claim.class_penalty": (0.0, 0.05, 0.1),
    "order.min_fit": (0.5, 0.6, 0.7),
    "order.tie_margin": (0.02, 0.05, 0.1),
}
COLUMNS = ("curated", "documents-alone")


@dataclass(frozen=True)
class Tuned:
    """Every tuned value the search moves, by the part that reads it."""

    statement: StatementSettings
    claim: ClaimSettings
    order: OrderSettings


def value_of(tuned: Any, key: str) -> Any:
    """The value at `key` ("<group>.<field>", or a plain field name)."""
    for part in key.split("."):
        tuned = getattr(tuned, part)
    return tuned


def with_value(tuned: T, key: str, value: float) -> T:
    """`tuned` with the value at `key` replaced (frozen dataclasses, nested by the dots)."""
    head, _, rest = key.partition(".")
    if not rest:
        return replace(tuned, **{head: value})  # type: ignore[type-var]
    return replace(tuned, **{head: with_value(getattr(tuned, head), rest, value)})  # type: ignore[type-var]


@dataclass(frozen=True)
class Item:
    set: str
    question: str
    format: str | None
    verdict: str | None

    @property
    def fitted(self) -> bool:
        """In the half the search sees (a stable hash of the question's text)."""
        return hashlib.blake2b(self.question.encode(), digest_size=1).digest()[0] % 2 == 0


@dataclass(frozen=True)
class Trial:
    name: str
    value: float
    score: int
    kept: bool


def coordinate_search(
    start: T,
    grid: Mapping[str, Sequence[float]],
    score: Callable[[T], int],
    passes: int = 1,
) -> tuple[T, int, list[Trial]]:
    """The values (a frozen dataclass) scoring best, found one field at a time over `grid`, with
    its score and every trial; a candidate replaces the current value only when it scores higher."""
    best, best_score = start, score(start)
    trials: list[Trial] = []
    for _ in range(passes):
        moved = False
        for name, values in grid.items():
            for value in values:
                if value_of(best, name) == value:
                    continue
                candidate = with_value(best, name, value)
                got = score(candidate)
                kept = got > best_score
                trials.append(Trial(name, value, got, kept))
                if kept:
                    best, best_score, moved = candidate, got, True
        if not moved:
            break
    return best, best_score, trials


def evaluation_items(folder: Path) -> list[Item]:
    """Every question of the sets, each side of a pair as its own question."""
    items: list[Item] = []
    for name, path in find_sets(folder, None).items():
        for row in read_jsonl(path):
            texts = [row[k] for k in ("pt", "en")] if name == "pairs" else [row.get("q")]
            items += [
                Item(name, t, row.get("format"), row.get("verdict"))
                for t in texts
                if isinstance(t, str)
            ]
    return items


def right_answers(services: Mapping[str, Any], tuned: Tuned, items: Iterable[Item]) -> set[int]:
    """The indices (column, item) answered right with these values, as one int each."""
    items = list(items)
    right: set[int] = set()
    for c, service in enumerate(services.values()):
        answerer = service.answerer
        answerer.statements.settings = tuned.statement
        answerer.statements._last_candidates = None  # its one-question memory
        answerer.claims.settings = tuned.claim
        answerer.orders.settings = tuned.order
        for i, item in enumerate(items):
            answer = service.answerer.answer(item.question, item.format, 5)
            if answer["verdict"] == item.verdict:
                right.add(c * len(items) + i)
    return right


def per_set(right: set[int], items: Sequence[Item], columns: Sequence[str]) -> dict[str, int]:
    out: dict[str, int] = {}
    for c, column in enumerate(columns):
        for i, item in enumerate(items):
            key = f"{column}:{item.set}:{'fitted' if item.fitted else 'held-out'}"
            out[key] = out.get(key, 0) + (c * len(items) + i in right)
    return out


def load_columns(data: Path) -> dict[str, Any]:
    from api.runtime import load_runtime
    from bench.variants import prepare
    from kb.config import Settings

    base = Settings.from_env(data_dir=data, corpus_dir=REPO / "corpus")
    services: dict[str, Any] = {}
    for column in COLUMNS:
        settings = base
        if column != "curated":
            v = prepare(column, base.corpus_dir, base.data_dir)
            settings = Settings.from_env(data_dir=v.data_dir, corpus_dir=v.corpus_dir)
        service = load_runtime(settings).service
        service.warm()
        services[column] = service
    return services


def run(data: Path, passes: int) -> dict[str, Any]:
    services = load_columns(data)
    items = evaluation_items(REPO / "tests" / "data")
    fitted = {i for i, item in enumerate(items) if item.fitted}
    n = len(items)
    answerer = next(iter(services.values())).answerer
    start = Tuned(answerer.statements.settings, answerer.claims.settings, answerer.orders.settings)
    seen: dict[Any, set[int]] = {}

    def answered(settings: Any) -> set[int]:
        if settings not in seen:
            seen[settings] = right_answers(services, settings, items)
        return seen[settings]

    def score(settings: Any) -> int:
        return sum(1 for r in answered(settings) if r % n in fitted)

    t0 = time.time()
    chosen, _, trials = coordinate_search(start, GRID, score, passes)
    before, after = (
        per_set(answered(start), items, COLUMNS),
        per_set(answered(chosen), items, COLUMNS),
    )

    def total(counts: dict[str, int], half: str) -> int:
        return sum(v for k, v in counts.items() if k.endswith(":" + half))

    changed = {
        key: {"from": value_of(start, key), "to": value_of(chosen, key)}
        for key in (
            f"{group.name}.{f.name}"
            for group in fields(start)
            for f in fields(getattr(start, group.name))
        )
        if value_of(start, key) != value_of(chosen, key)
    }
    return {
        "commit": git_commit(),
        "date": time.strftime("%Y-%m-%d"),
        "seconds": round(time.time() - t0),
        "questions": n,
        "columns": list(COLUMNS),
        "fitted_questions": len(fitted),
        "changed": changed,
        "fitted_half": {"before": total(before, "fitted"), "after": total(after, "fitted")},
        "held_out_half": {"before": total(before, "held-out"), "after": total(after, "held-out")},
        "per_set": {
            k: {"before": before[k], "after": after[k]} for k in before if before[k] != after[k]
        },
        "trials": [t.__dict__ for t in trials],
    }


def render(result: dict[str, Any]) -> str:
    lines = [
        f"commit {result['commit']}  {result['date']}  {result['questions']} questions x "
        f"{len(result['columns'])} columns, {result['seconds']} s",
        "right answers, fitted half: {before} -> {after}".format(**result["fitted_half"]),
        "right answers, held-out half: {before} -> {after}".format(**result["held_out_half"]),
    ]
    if not result["changed"]:
        lines.append("every value is locally best: none changed")
    for name, change in result["changed"].items():
        env = "YGO_" + name.replace(".", "_").upper()
        lines.append(f"  {name} ({env}): {change['from']} -> {change['to']}")
    for key, change in sorted(result["per_set"].items()):
        lines.append(f"  {key}: {change['before']} -> {change['after']}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=Path("data"))
    parser.add_argument("--passes", type=int, default=1, help="rounds over the values")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    args = parser.parse_args(argv)
    result = run(args.data, max(1, args.passes))
    out = REPO / "bench" / "results"
    out.mkdir(parents=True, exist_ok=True)
    (out / "fit.json").write_text(json.dumps(result, indent=2) + "\n", "utf-8")
    sys.stdout.write((json.dumps(result, indent=2) if args.json else render(result)) + "\n")


if __name__ == "__main__":
    main()
