"""Fresh questions for the benchmarks: the evaluation sets' questions with their cards swapped.

A benchmark that repeats a fixed list measures caches (the answer cache, the query-embedding
cache), not the work a new question costs. Here every question of `tests/data/*.jsonl` (but
`retrieval`) that names a curated card (`corpus/cards.yaml`, en or pt name or alias) is asked
again with each named card replaced by another card of the same kind (monster, spell, trap)
drawn from the card table (`corpus/carddb/cards.tsv`), in the language of the name it replaces.
Each variation is given once per generator; a different seed gives other variations, so a run
seeded from the clock asks nothing a previous run asked.

Usage: python -m bench.questions [--n 10] [--seed 1]   (prints some)
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import re
from collections.abc import Iterator
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
MIN_NAME = 4  # shorter names ("Ojama") would match inside ordinary words


def evaluation_questions(data: Path = REPO / "tests" / "data") -> list[str]:
    """Every distinct question of the evaluation sets (pt and en), in a fixed order."""
    seen: dict[str, None] = {}
    for path in sorted(data.glob("*.jsonl")):
        if path.stem == "retrieval":
            continue
        for line in path.read_text("utf-8").splitlines():
            if not line.strip():
                continue
            item = json.loads(line)
            for key in ("q", "pt", "en"):
                if isinstance(item.get(key), str):
                    seen.setdefault(item[key], None)
    return list(seen)


def curated_names(corpus: Path) -> dict[str, tuple[str, str]]:
    """Each surface of a curated card (lower case) → (its kind, its language: en or pt)."""
    loaded = yaml.safe_load((corpus / "cards.yaml").read_text("utf-8"))
    out: dict[str, tuple[str, str]] = {}
    for card in loaded.get("cards", []):
        kind = str(card.get("card_type") or "")
        for lang, names in (
            ("en", [card.get("en")]),
            ("pt", [card.get("pt"), *(card.get("aliases") or [])]),
        ):
            for name in names:
                if isinstance(name, str) and len(name) >= MIN_NAME:
                    out.setdefault(name.lower(), (kind, lang))
    return out


def table_names(corpus: Path) -> dict[tuple[str, str], list[str]]:
    """(kind, language) → the names of the card table's cards of that kind with both names."""
    lines = [
        line
        for line in (corpus / "carddb" / "cards.tsv").read_text("utf-8").splitlines()
        if line and not line.startswith("#")
    ]
    out: dict[tuple[str, str], list[str]] = {}
    for row in csv.DictReader(lines, delimiter="\t", quoting=csv.QUOTE_NONE):
        en, pt, kind = row.get("name_en") or "", row.get("name_pt") or "", row.get("card_type")
        if en and pt and kind:
            out.setdefault((kind, "en"), []).append(en)
            out.setdefault((kind, "pt"), []).append(pt)
    return out


def fresh_questions(seed: int, corpus: Path = REPO / "corpus") -> Iterator[str]:
    """An endless stream of distinct variations of the evaluation questions, each naming other
    cards than the question it comes from (the questions that name no curated card are left
    out: a variation of them would be the same question)."""
    rng = random.Random(seed)
    curated = curated_names(corpus)
    table = table_names(corpus)
    pattern = re.compile(
        r"(?<!\w)("
        + "|".join(re.escape(n) for n in sorted(curated, key=len, reverse=True))
        + r")(?!\w)",
        re.IGNORECASE,
    )
    sources = [q for q in evaluation_questions() if pattern.search(q)]
    if not sources:
        raise SystemExit("error: no evaluation question names a curated card")
    given: set[str] = set()

    def swap(match: re.Match[str]) -> str:
        kind, lang = curated[match.group(0).lower()]
        choices = table.get((kind, lang)) or table.get(("monster", lang)) or [match.group(0)]
        return rng.choice(choices)

    misses = 0
    while True:
        question = pattern.sub(swap, rng.choice(sources))
        if question in given:
            misses += 1
            if misses > 10_000:
                raise SystemExit("error: the variations ran out")
            continue
        given.add(question)
        yield question


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=10)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    stream = fresh_questions(args.seed)
    for _ in range(args.n):
        print(next(stream))


if __name__ == "__main__":
    main()


def listed_format(corpus: Path = REPO / "corpus") -> str:
    """The first format the corpus gives a Forbidden & Limited list: what the card routes and
    commands are timed on."""
    from kb.formats import parse_specs

    manifest = yaml.safe_load((corpus / "manifest.yaml").read_text("utf-8"))
    specs = parse_specs(manifest["formats"], "corpus/manifest.yaml")
    return next(spec.id for spec in specs if spec.banlist is not None)
