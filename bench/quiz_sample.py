"""The seeded quiz sample reviewed in docs/quiz-review.md, printed for review.

    python -m bench.quiz_sample --data DIR [--corpus corpus] [--seed 13] [--n 100]

Prints one block per question (id, prompt, context, statement, options with the key marked,
explanation, citation text) in the order `QuestionBank.sample` gives them.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from kb.config import Settings
from kb.presentation.quiz_model import Question
from kb.service import RulingsService
from kb.store import load_artifact

SEED = 13
SIZE = 100


def describe(i: int, q: Question) -> str:
    lines = [f"{i:3d}. {q.id}  [{q.kind} · {q.family} · {q.format}]", f"     P: {q.prompt}"]
    if q.context:
        lines.append(f"     C: {q.context}")
    if q.statement:
        lines.append(f"     S: {q.statement}")
    lines += [f"     {'*' if o.key == q.answer else ' '}{o.key}) {o.text}" for o in q.options]
    lines.append(f"     E: {q.explanation}")
    lines.append(f"     Q: [{q.citation.id}] {q.citation.text}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--corpus", type=Path, default=Path("corpus"))
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--n", type=int, default=SIZE)
    args = parser.parse_args()
    settings = Settings(data_dir=args.data, corpus_dir=args.corpus)
    service = RulingsService(load_artifact(args.data), settings)
    for i, q in enumerate(service.question_bank.sample(args.n, args.seed), 1):
        print(describe(i, q))


if __name__ == "__main__":
    main()
